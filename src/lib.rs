//! reel: a terminal dashboard for asynchronous video-generation APIs.
//!
//! Module map:
//! - `config` the config file, environment and profiles, resolved into settings
//! - `rules`  the spec's rules, pure: model ids, catalog, validation, billing
//! - `batch`  batch files and templates, pure: rows from JSONL/CSV/text, expansion, content keys
//! - `api`    the HTTP API: wire types, client, downloads, errors
//! - `engine` the background engine: submission journal, poll scheduler, downloads, recovery
//! - `store`  the SQLite journal: schema, task rows, events, the writer thread
//! - `media`  reference media: uploads of local files, preflight checks of media URLs
//! - `public` the JSON shape of tasks that scripts (`--json`) and agents (`reel mcp`) read
//! - `preview` previews of saved videos: cached poster and strip frames, inline playback (ffmpeg)
//! - `disk`   the disk under reel's files: a full one told from other failures, free room
//! - `logging` the log file (`tracing`, rotated daily) in the data folder
//! - `session` wiring: settings → store, client (or the demo simulator), engine
//! - `sim`    the embedded simulator of the API: a real HTTP server on loopback
//! - `text`   terminal-safe text: control characters stripped, excerpts, sizes, times
//! - `tui`    the dashboard: state, update, view, keymap, event loop
//! - `cli`    headless commands
//! - `mcp`    `reel mcp`: the engine's work offered to AI agents over MCP, within `[agents]` limits
pub mod api;
pub mod batch;
pub mod cli;
pub mod config;
pub mod disk;
pub mod engine;
pub mod logging;
pub mod mcp;
pub mod media;
pub mod preview;
pub mod public;
pub mod rules;
pub mod session;
pub mod sim;
pub mod store;
pub mod text;
pub mod tui;
