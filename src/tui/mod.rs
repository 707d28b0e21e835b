//! The dashboard: state → update → view over the engine.

pub mod form;
pub mod keymap;
pub mod table;
