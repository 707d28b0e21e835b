//! The detail pane: everything about the selected task, scrolled with the keys of `Focus::Detail`
//! (the App keeps the scroll). `view` draws it; the history screen draws its own with the same
//! pieces.

pub mod effects;
pub mod view;
