//! The dashboard: state → update → view over the engine.

pub mod app;
pub mod batch_file;
pub mod columns;
pub mod compare;
pub mod draft_keep;
pub mod effects;
pub mod event_loop;
pub mod form;
pub mod help;
pub mod history;
pub mod kept;
pub mod keymap;
pub mod labels;
pub mod latest;
pub mod layout;
pub mod link;
pub mod media;
pub mod prefs;
pub mod preview;
pub mod table;
pub mod terminal;
pub mod theme;
pub mod views;
