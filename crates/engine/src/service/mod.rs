//! One engine per data folder, in a process of its own, shared by the dashboard and every
//! command (as a tmux server is). It listens on a Unix socket in the data folder (mode 0600,
//! same user only), keeps working while any task is unfinished, attached client or not, and
//! exits after a grace period once no client is attached and nothing is left it can progress.
//!
//! `protocol` holds the messages, `status` who an engine is and what it serves, `server` the
//! engine process's side, `idle` when it may exit, `client` the clients' side, `spawn` the start
//! of an engine process by the first client that needs one, `reads` the journal and files read
//! through the engine, `ssh` and `bridge` the two ends of an engine reached over SSH.

mod bridge;
mod client;
pub mod idle;
pub mod protocol;
pub mod reads;
mod server;
mod spawn;
pub mod ssh;
pub mod status;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use bridge::bridge;
pub use client::RemoteEngine;
pub use protocol::{Decides, Request, Served, Status};
pub use server::{ServeOptions, serve};
pub use spawn::{Launch, attach_if_running, connect_or_start};

use super::Activity;

/// The waits before the attempts to attach again: short at first (a killed engine is
/// replaced at once), then every five seconds for as long as it takes.
const BACKOFF_MS: [i64; 5] = [200, 500, 1_000, 2_000, 5_000];

/// The wait before attempt `attempt` (the first is 1).
pub fn backoff_ms(attempt: u32) -> i64 {
    let i = (attempt.max(1) - 1) as usize;
    BACKOFF_MS[i.min(BACKOFF_MS.len() - 1)]
}

/// The socket of a data folder's engine.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join("engine.sock")
}

#[derive(Debug, Error)]
pub enum ServiceError {
    #[error("no engine is running on {0}")]
    NotRunning(PathBuf),
    #[error("cannot use the engine socket {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the data folder {path} cannot be used: {}", folder_trouble(.source))]
    DataFolder { path: PathBuf, source: std::io::Error },
    #[error("the engine sent something reel cannot read: {0}")]
    Protocol(String),
    #[error("the engine refused this reel: {0}")]
    Refused(String),
    #[error(
        "the running engine does not serve what this reel would: {0}; stop it with `reel engine stop`, or use another REEL_DATA_DIR"
    )]
    Mismatch(String),
    #[error("cannot start the engine process ({exe}): {source}")]
    Spawn { exe: PathBuf, source: std::io::Error },
    #[error("the engine process did not answer within {0} s; see its log in the data folder's logs/")]
    NoAnswer(u64),
    #[error("engine processes need Unix domain sockets, which this platform lacks; use --no-service")]
    Unsupported,
    #[error("bad engine address: {0}")]
    BadEngine(String),
    #[error("cannot reach the engine at ssh://{label}: {said}")]
    Ssh { label: String, said: String },
}

/// What is wrong with a data folder that cannot be made or written, in words.
fn folder_trouble(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => format!("its parent folder does not exist, or cannot hold a folder ({e})"),
        PermissionDenied => format!("this user may not write there ({e}); choose another with --data-dir"),
        ReadOnlyFilesystem => format!("it is on a read-only file system ({e})"),
        NotADirectory => format!("a part of its path is a file, not a folder ({e})"),
        StorageFull | QuotaExceeded => format!("the disk holding it is full ({e})"),
        _ => e.to_string(),
    }
}

impl Status {
    pub fn activity(&self) -> Activity {
        Activity {
            unfinished: self.unfinished,
            requests_in_flight: self.requests_in_flight,
            downloads: self.downloads,
            service: self.service.clone(),
            waiting_on_api: 0,
            unrecognized: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_waits_grow_then_stay_at_five_seconds() {
        let waits: Vec<i64> = (0..=8).map(backoff_ms).collect();
        assert_eq!(waits, vec![200, 200, 500, 1_000, 2_000, 5_000, 5_000, 5_000, 5_000]);
    }
}
