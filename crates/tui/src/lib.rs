//! The dashboard: state → update → view over the engine, organised by part.
//!
//! The parts, each a folder with its state, its `update`, its `effects` (the I/O it asks for,
//! where it has any) and its `view`: `compose` (the form, batch files, media at send time, the
//! kept draft), `tasks` (the table, its columns, actions on many tasks), `detail` (the selected
//! task), `history` (the history screen), `compare` (takes side by side), `preview` (frames,
//! pictures, the player), `help`. `app` holds the parts and routes actions to them; `views`
//! draws the screen around them. The machinery: `event_loop`; `effects` (the context effects
//! run in, the router to each part's, and the dashboard's own: the engine link, the terminal,
//! preferences, the budget); `keymap`, `layout`, `link` (to the engine), `latest` (latest
//! request wins), `kept` and `prefs` (files kept between runs), `labels`, `theme`, `terminal`.

pub mod app;
pub mod compare;
pub mod compose;
pub mod detail;
pub mod effects;
pub mod event_loop;
pub mod help;
pub mod history;
pub mod kept;
pub mod keymap;
pub mod labels;
pub mod latest;
pub mod layout;
pub mod link;
pub mod prefs;
pub mod preview;
pub mod tasks;
pub mod terminal;
pub mod theme;
pub mod views;
