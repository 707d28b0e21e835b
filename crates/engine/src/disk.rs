//! A full disk: how each write site's failure is recognised, the pause it puts the engine's
//! writing work in, how that pause is said, and when there is room again.
//!
//! A full disk is not a task's failure: nothing is marked failed or lost because of it. The
//! engine holds what it could not write and starts nothing new until the write goes through.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use reel_store::StoreError;
pub use reel_store::disk::{Site, check, free_bytes, is_full};

/// Room kept free beyond what the next write needs, so that the journal, a sidecar and the log
/// fit beside the next file.
pub const MARGIN: u64 = 1 << 20;

/// How often a paused engine looks whether there is room again.
pub const PROBE: std::time::Duration = std::time::Duration::from_secs(1);

/// The engine's writing work is paused: the disk holding `dir` is full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskFull {
    /// The folder whose write failed (the data folder for the journal, the videos folder for a
    /// file).
    pub dir: PathBuf,
    /// Free bytes there when last looked at.
    pub free_bytes: Option<u64>,
    /// What the write that failed needs, when known (the rest of a file being downloaded).
    pub needed_bytes: Option<u64>,
    /// What could not be written, in words: "the journal", "task 12's file".
    pub what: String,
    /// When the pause began (Unix ms).
    pub since_ms: i64,
}

fn megabytes(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb < 10.0 { format!("{mb:.1} MB") } else { format!("{mb:.0} MB") }
}

impl DiskFull {
    /// `paused: the disk holding /data/videos is full (0.4 MB free, the next file needs 1.0 MB)`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(free) = self.free_bytes {
            parts.push(format!("{} free", megabytes(free)));
        }
        if let Some(needed) = self.needed_bytes {
            parts.push(format!("the next file needs {}", megabytes(needed)));
        }
        let numbers = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
        format!("paused: the disk holding {} is full{numbers}", reel_rules::text::safe(&self.dir.to_string_lossy()))
    }

    /// Whether `free` bytes are room enough to try again.
    pub fn room_in(&self, free: u64) -> bool {
        free >= self.needed_bytes.unwrap_or(0).saturating_add(MARGIN)
    }
}

/// Whether a journal write failed for want of room: SQLite's `SQLITE_FULL`, or an I/O error of
/// the database file (a write or an fsync that failed), which is tried again like a full disk
/// rather than taken as the end of the journal.
pub fn store_is_full(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
            matches!(f.code, rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
        }
        StoreError::Folder { source, .. } => is_full(source),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None))
    }

    #[test]
    fn journal_writes_that_met_a_full_disk_are_told_from_other_failures() {
        let stores = [
            (sqlite(rusqlite::ffi::SQLITE_FULL), true),
            (sqlite(rusqlite::ffi::SQLITE_IOERR_FSYNC), true),
            (sqlite(rusqlite::ffi::SQLITE_IOERR_WRITE), true),
            (sqlite(rusqlite::ffi::SQLITE_CONSTRAINT), false),
            (sqlite(rusqlite::ffi::SQLITE_BUSY), false),
            (StoreError::Closed, false),
            (StoreError::Missing(3), false),
        ];
        for (e, want) in stores {
            assert_eq!(store_is_full(&e), want, "{e}");
        }
    }

    #[test]
    fn the_pause_is_said_with_its_numbers() {
        let full = |free, needed| DiskFull {
            dir: "/data/videos".into(),
            free_bytes: free,
            needed_bytes: needed,
            what: "task 3's file".into(),
            since_ms: 0,
        };
        let cases = [
            (
                full(Some(400_000), Some(1_048_576)),
                "paused: the disk holding /data/videos is full (0.4 MB free, the next file needs 1.0 MB)",
            ),
            (full(Some(12_400_000), None), "paused: the disk holding /data/videos is full (12 MB free)"),
            (full(None, None), "paused: the disk holding /data/videos is full"),
        ];
        for (disk, want) in cases {
            assert_eq!(disk.summary(), want);
        }
    }

    #[test]
    fn room_is_what_the_next_write_needs_and_a_margin() {
        let full = |needed| DiskFull {
            dir: "/d".into(),
            free_bytes: None,
            needed_bytes: needed,
            what: String::new(),
            since_ms: 0,
        };
        let cases = [
            (None, MARGIN - 1, false),
            (None, MARGIN, true),
            (Some(5_000_000), 5_000_000, false),
            (Some(5_000_000), 5_000_000 + MARGIN, true),
            (Some(u64::MAX), u64::MAX, true),
        ];
        for (needed, free, want) in cases {
            assert_eq!(full(needed).room_in(free), want, "{needed:?} {free}");
        }
    }
}

#[cfg(test)]
#[path = "disk_tests.rs"]
mod site_tests;
