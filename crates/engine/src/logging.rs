//! The log file: `tracing` to `<data dir>/logs/reel.log.<date>`, rotated daily, seven files
//! kept. Every transition, failed request, retry, store error and engine start and stop goes
//! there; the API key never does (it is redacted wherever it is held). Lines are written whole
//! or not at all (`lines`): a full disk loses lines, counted, never leaves half of one.

mod lines;

use std::path::{Path, PathBuf};

use thiserror::Error;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::filter::Targets;
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
    mirror: Option<tokio::task::JoinHandle<()>>,
}

pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts logging to `folder(data_dir)` with `filter` (`target=level` directives split by
/// commas, as in `RUST_LOG`; a target covers those it begins, so `reel` is every crate of
/// ours; `reel=info` when `None`); with `mirror`, the same lines also go to stderr.
pub fn init(data_dir: &Path, filter: Option<&str>, mirror: bool) -> Result<LogGuard, LogError> {
    let dir = folder(data_dir);
    let filter_text = filter.filter(|f| !f.trim().is_empty()).unwrap_or(DEFAULT_FILTER);
    let targets = filter_text
        .parse::<Targets>()
        .map_err(|e| LogError::Filter { filter: filter_text.to_string(), reason: e.to_string() })?;
    std::fs::create_dir_all(&dir).map_err(|e| LogError::Open { path: dir.clone(), reason: e.to_string() })?;
    let appender = lines::WholeLines::new(&dir, KEPT);
    let (file, guard) = tracing_appender::non_blocking(appender);
    let file_layer = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(file);
    // A second init in one process (tests) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::registry().with(targets).with(file_layer).try_init();
    // The engine process writes to the same folder: mirroring the file, not this process's own
    // lines, shows what the engine does for this command too.
    let mirror = mirror.then(|| tokio::spawn(tail(dir)));
    Ok(LogGuard { _writer: guard, mirror })
}

/// The newest log file in `dir`.
fn newest(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("reel.") && n.ends_with(".log"))
        })
        .max()
}

/// Copies what is appended to the log from now on to stderr, line by line, made safe.
async fn tail(dir: PathBuf) {
    use std::io::Write as _;

    use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _};
    let mut current = newest(&dir);
    let mut offset = current.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
    let mut pending = Vec::new();
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let latest = newest(&dir);
        if latest != current {
            (current, offset) = (latest, 0);
        }
        let Some(path) = &current else { continue };
        let Ok(len) = tokio::fs::metadata(path).await.map(|m| m.len()) else { continue };
        if len < offset {
            offset = 0;
        }
        if len == offset {
            continue;
        }
        let Ok(mut file) = tokio::fs::File::open(path).await else { continue };
        if file.seek(std::io::SeekFrom::Start(offset)).await.is_err() {
            continue;
        }
        let mut fresh = Vec::new();
        if file.read_to_end(&mut fresh).await.is_err() {
            continue;
        }
        offset += fresh.len() as u64;
        pending.extend_from_slice(&fresh);
        let Some(end) = pending.iter().rposition(|b| *b == b'\n') else { continue };
        let text = String::from_utf8_lossy(&pending[..=end]).into_owned();
        pending.drain(..=end);
        let mut err = std::io::stderr().lock();
        for line in text.lines() {
            let _ = writeln!(err, "{}", reel_rules::text::safe(line));
        }
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if let Some(task) = self.mirror.take() {
            task.abort();
        }
    }
}
