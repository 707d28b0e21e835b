//! The log file: `tracing` to `<data dir>/logs/reel.log.<date>`, rotated daily, seven files
//! kept. Every transition, failed request, retry, store error and engine start and stop goes
//! there; the API key never does (it is redacted wherever it is held).

use std::path::{Path, PathBuf};

use thiserror::Error;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// What is logged when no filter is configured.
pub const DEFAULT_FILTER: &str = "reel=info";
/// Log files kept; one per day.
const KEPT: usize = 7;

#[derive(Debug, Error)]
pub enum LogError {
    #[error("cannot open the log folder {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("the log filter {filter:?} is not valid: {reason} (example: reel=debug)")]
    Filter { filter: String, reason: String },
}

/// Keeps the log writer alive; dropping it flushes what is buffered.
pub struct LogGuard {
    _writer: WorkerGuard,
}

pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts logging to `folder(data_dir)` with `filter` (`RUST_LOG` syntax, `reel=info` when
/// `None`); with `mirror`, the same lines also go to stderr.
pub fn init(data_dir: &Path, filter: Option<&str>, mirror: bool) -> Result<LogGuard, LogError> {
    let dir = folder(data_dir);
    let filter_text = filter.filter(|f| !f.trim().is_empty()).unwrap_or(DEFAULT_FILTER);
    let env_filter = EnvFilter::builder()
        .parse(filter_text)
        .map_err(|e| LogError::Filter { filter: filter_text.to_string(), reason: e.to_string() })?;
    std::fs::create_dir_all(&dir).map_err(|e| LogError::Open { path: dir.clone(), reason: e.to_string() })?;
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix("reel")
        .filename_suffix("log")
        .max_log_files(KEPT)
        .build(&dir)
        .map_err(|e| LogError::Open { path: dir.clone(), reason: e.to_string() })?;
    let (file, guard) = tracing_appender::non_blocking(appender);
    let file_layer = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(file);
    let registry = tracing_subscriber::registry().with(env_filter).with(file_layer);
    // A second init in one process (tests) keeps the first subscriber; that is fine.
    let _ = if mirror {
        registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                    .with_writer(std::io::stderr),
            )
            .try_init()
    } else {
        registry.try_init()
    };
    Ok(LogGuard { _writer: guard })
}
