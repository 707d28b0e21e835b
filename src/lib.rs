//! reel: a terminal dashboard for asynchronous video-generation APIs.
//!
//! Module map:
//! - `rules`  the spec's rules, pure: model ids, catalog, validation, billing
//! - `api`    the HTTP API: wire types, client, downloads, errors
pub mod api;
pub mod rules;
pub mod sim;
