//! reel: a terminal dashboard for asynchronous video-generation APIs.
//!
//! Module map:
//! - `rules`  the spec's rules, pure: model ids, catalog, validation, billing
pub mod rules;
