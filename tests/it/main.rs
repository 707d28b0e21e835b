//! The integration tests, one binary: the real `reel` binary, the engine and the dashboard against
//! the simulator on 127.0.0.1. Shared helpers live in `common`, once.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

mod common;

mod admission;
mod batch;
mod batch_retry;
mod cli_gh_like;
mod cli_output;
mod client_against_sim;
mod commands;
mod disk_full;
mod doctor;
mod download_verify;
mod engine_against_sim;
mod engine_burst;
mod engine_hostile;
mod engine_orphan;
mod engine_patience;
mod engine_service;
mod exit_codes;
mod gateways;
mod history;
mod import;
mod log_file;
mod mcp;
mod media_local;
mod media_preflight;
mod media_storage;
mod picks;
mod preview;
mod preview_wiring;
mod provenance;
mod remote;
mod remote_dashboard;
mod server_strings;
mod sim_hostile;
mod sim_standalone;
mod tui_app;
mod tui_batch;
mod tui_compare;
mod tui_media;
mod tui_preview;
mod tui_snapshots;
mod tui_tmux;
mod video_playable;
mod wire_forms;
