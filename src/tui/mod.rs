//! The dashboard: state → update → view over the engine.

pub mod keymap;
