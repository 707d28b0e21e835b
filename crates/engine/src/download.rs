//! Saving one result file: stream to `<name>.part`, resume with a verified Range, cut a
//! transfer that stalls or outgrows what the video can be, verify the length and the file (a
//! complete MP4 of about the seconds asked, see `verify`), hash, fsync, rename.
//!
//! A resume is checked, not trusted: `If-Range` carries the validator of the first answer (in
//! `<name>.part.meta`), `Content-Range` must match what was asked, and the request starts a
//! little before the resume point so that the bytes the server sends again can be compared with
//! those on disk. A server that answers a resume with other bytes makes the download start over.

use std::path::{Path, PathBuf};
use std::time::Instant;

use std::io::Write;

use bytes::Bytes;
use sha2::{Digest, Sha256};
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::disk::{self, Site};
use super::stall::StallWatch;
use super::verify::{self, Expect, Remedy};
use reel_api::download::Validator;
use reel_api::{ApiError, Client, Download, Source};

/// How a download attempt ended, when it did not save the file.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The URL answers 401, 403, 404 or 410: it will not work again.
    #[error("{0}")]
    Gone(ApiError),
    /// Nothing about this URL will change by trying again (not http(s), a redirect loop, a 4xx).
    #[error("{0}")]
    Fatal(String),
    /// Worth another try later; what arrived is kept in the `.part` file.
    #[error("{0}")]
    Retry(String),
    /// The service's file route says the file is not ready yet: tried again later, up to the
    /// task's deadline.
    #[error("{0}")]
    NotReady(String),
    /// The service's file route has no file for this task (HTTP `status`), or there is none.
    #[error("{message}")]
    NoFile { status: u16, message: String },
    /// The disk is full: nothing is wrong with the transfer, and it is not counted as an
    /// attempt. What arrived is kept in the `.part` file; the engine pauses until there is room.
    #[error("the disk holding {} is full: {source}", dir.display())]
    DiskFull {
        dir: PathBuf,
        /// The rest of the file, when its size is known.
        needed: Option<u64>,
        source: std::io::Error,
    },
}

/// A saved file.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub path: PathBuf,
    pub size: u64,
    /// Of the bytes the service sent, verified as they came.
    pub sha256: String,
    /// What became of the file after: tagged with its provenance, or why not (`None`: not asked).
    pub tagged: Option<Result<String, String>>,
}

pub use super::stall::StallRule;

/// Bytes requested again before a resume point and compared with those on disk.
pub const OVERLAP: u64 = 64 * 1024;

/// Progress of a transfer: bytes on disk so far and the file's size, when known.
pub type Progress<'a> = &'a (dyn Fn(u64, Option<u64>) + Send + Sync);

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

fn part_path(path: &Path) -> PathBuf {
    with_suffix(path, ".part")
}

fn meta_path(path: &Path) -> PathBuf {
    with_suffix(path, ".part.meta")
}

fn io(context: &str, path: &Path, e: std::io::Error) -> FetchError {
    if disk::is_full(&e) {
        let dir = path.parent().unwrap_or(path).to_path_buf();
        return FetchError::DiskFull { dir, needed: None, source: e };
    }
    FetchError::Retry(format!("{context} {}: {e}", path.display()))
}

fn failed(e: ApiError) -> FetchError {
    match e {
        e @ ApiError::UrlGone { .. } => FetchError::Gone(e),
        e @ ApiError::NotReady { .. } => FetchError::NotReady(e.to_string()),
        ApiError::NoFile { status, message } => {
            FetchError::NoFile { status, message: ApiError::NoFile { status, message }.to_string() }
        }
        e if e.is_permanent() => FetchError::Fatal(e.to_string()),
        e => FetchError::Retry(e.to_string()),
    }
}

/// Hashes the first `len` bytes of what an interrupted transfer left.
async fn hash_prefix(part: &Path, len: u64, hasher: &mut Sha256) -> Result<(), FetchError> {
    let file = tokio::fs::File::open(part).await.map_err(|e| io("cannot read", part, e))?;
    let mut reader = file.take(len);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = reader.read(&mut buf).await.map_err(|e| io("cannot read", part, e))?;
        if n == 0 {
            return Ok(());
        }
        hasher.update(&buf[..n]);
    }
}

async fn read_range(part: &Path, from: u64, len: u64) -> Result<Vec<u8>, FetchError> {
    let mut file = tokio::fs::File::open(part).await.map_err(|e| io("cannot read", part, e))?;
    file.seek(std::io::SeekFrom::Start(from)).await.map_err(|e| io("cannot read", part, e))?;
    let mut buf = vec![0u8; len as usize];
    file.read_exact(&mut buf).await.map_err(|e| io("cannot read", part, e))?;
    Ok(buf)
}

async fn sync_dir(dir: &Path) {
    // Makes the rename durable; not every platform can open a directory, and that is fine.
    if let Ok(d) = tokio::fs::File::open(dir).await {
        let _ = d.sync_all().await;
    }
}

/// Writes `bytes` to `path` atomically: a `.part` file, fsync, rename. On failure (a full
/// disk) the `.part` file is removed: `path` is either as it was or whole.
pub async fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let part = part_path(path);
    let written = async {
        let mut f = tokio::fs::File::create(&part).await?;
        f.write_all(bytes).await?;
        f.sync_all().await
    }
    .await;
    if let Err(e) = written {
        let _ = tokio::fs::remove_file(&part).await;
        return Err(e);
    }
    tokio::fs::rename(&part, path).await?;
    if let Some(dir) = path.parent() {
        sync_dir(dir).await;
    }
    Ok(())
}

async fn load_validator(path: &Path) -> Validator {
    let bytes = tokio::fs::read(meta_path(path)).await.unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_default()
}

async fn save_validator(path: &Path, v: &Validator) {
    // Without it a later resume still has its overlap check; losing it is not an error.
    if let Ok(body) = serde_json::to_vec(v) {
        let _ = write_atomic(&meta_path(path), &body).await;
    }
}

/// The next piece of the body, or a stall: fewer than `rule.min_bytes` over the last window.
struct Watch {
    watch: StallWatch,
    rule: StallRule,
}

impl Watch {
    fn new(rule: StallRule) -> Watch {
        Watch { watch: StallWatch::new(rule, Instant::now()), rule }
    }

    async fn chunk(&mut self, download: &mut Download) -> Result<Option<bytes::Bytes>, FetchError> {
        loop {
            let next = download.chunk();
            let answer = match self.watch.deadline() {
                Some(deadline) => tokio::time::timeout_at(deadline.into(), next).await,
                None => Ok(next.await),
            };
            match answer {
                Ok(Ok(chunk)) => {
                    let now = Instant::now();
                    self.watch.record(now, chunk.as_ref().map_or(0, |c| c.len() as u64));
                    self.check(now)?;
                    return Ok(chunk);
                }
                Ok(Err(e)) => return Err(FetchError::Retry(format!("the transfer broke: {e}"))),
                Err(_) => self.check(Instant::now())?,
            }
        }
    }

    fn check(&self, now: Instant) -> Result<(), FetchError> {
        match self.watch.stalled(now) {
            Some(bytes) => Err(FetchError::Retry(format!(
                "the transfer stalled ({bytes} bytes in {} s); it will resume",
                self.rule.window.as_secs()
            ))),
            None => Ok(()),
        }
    }
}

/// Chunks queued for the writer. hyper hands over up to about 400 KiB at a time, so this bounds
/// what one download holds in memory to a few MiB; 4 to 64 measured the same.
const QUEUE: usize = 8;

/// Bytes written between two requests to start writing them to disk (see [`start_writeback`]).
const WRITEBACK_EVERY: u64 = 1 << 20;

/// The body on its way to disk: `std::fs::File` writes on one blocking thread fed by a bounded
/// channel of `Bytes` (refcounted: nothing is copied). A `tokio::fs::File` copies every write
/// into its own buffer and hops to the blocking pool for each; here the receiving task only
/// hashes and hands over, so hashing one chunk overlaps writing the previous ones.
struct Writer {
    tx: mpsc::Sender<Bytes>,
    job: JoinHandle<std::io::Result<std::fs::File>>,
}

impl Writer {
    /// Appends to `file` (at `path`), which is positioned at byte `at`.
    fn start(mut file: std::fs::File, path: PathBuf, at: u64) -> Writer {
        let (tx, mut rx) = mpsc::channel::<Bytes>(QUEUE);
        let job = tokio::task::spawn_blocking(move || {
            let (mut asked, mut end) = (at, at);
            while let Some(chunk) = rx.blocking_recv() {
                disk::check(Site::File, &path)?;
                file.write_all(&chunk)?;
                end += chunk.len() as u64;
                if end - asked >= WRITEBACK_EVERY {
                    start_writeback(&file, asked, end - asked);
                    asked = end;
                }
            }
            Ok(file)
        });
        Writer { tx, job }
    }

    /// Queues `chunk`, waiting only while the writer is `QUEUE` chunks behind.
    async fn write(&mut self, chunk: Bytes) -> std::io::Result<()> {
        if self.tx.send(chunk).await.is_ok() {
            return Ok(());
        }
        // The writer stops early only on an error, which is the one to report.
        match (&mut self.job).await {
            Ok(Err(e)) => Err(e),
            Ok(Ok(_)) => Err(std::io::Error::other("the writer stopped")),
            Err(e) => Err(std::io::Error::other(e)),
        }
    }

    /// Waits until everything queued is written, then fsyncs if asked.
    async fn close(self, sync: bool) -> std::io::Result<()> {
        drop(self.tx);
        let file = self.job.await.map_err(std::io::Error::other)??;
        if sync {
            tokio::task::spawn_blocking(move || file.sync_all()).await.map_err(std::io::Error::other)??;
        }
        Ok(())
    }
}

/// Asks the kernel to start writing `len` bytes from `from` to disk now, not when its dirty-page
/// timers fire, so that the fsync at the end waits for the last piece only (measured: 15 MB on
/// loopback about a third faster, see BENCHMARKS.md). On Linux `POSIX_FADV_DONTNEED` does this:
/// it starts writeback of the dirty pages and drops only pages already on disk. A hint: its
/// failure changes nothing but the speed.
#[cfg(target_os = "linux")]
pub(crate) fn start_writeback(file: &std::fs::File, from: u64, len: u64) {
    let _ = rustix::fs::fadvise(file, from, std::num::NonZeroU64::new(len), rustix::fs::Advice::DontNeed);
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn start_writeback(_file: &std::fs::File, _from: u64, _len: u64) {}

/// A transfer ready to continue: the `.part` file positioned after what is kept, the hash of
/// those bytes, and the first new bytes (those that came with the overlap of a resume).
struct Opened {
    download: Download,
    file: tokio::fs::File,
    hasher: Sha256,
    kept: u64,
    first: Bytes,
    watch: Watch,
}

/// Opens the transfer, resuming from `path.part` when what the server sends again matches it.
async fn open(client: &Client, source: &Source, path: &Path, stall: StallRule) -> Result<Opened, FetchError> {
    let part = part_path(path);
    // A resume the server answers wrongly (another range, other bytes) starts over, once.
    let mut fresh = false;
    loop {
        let have = if fresh { 0 } else { tokio::fs::metadata(&part).await.map(|m| m.len()).unwrap_or(0) };
        // A short piece is not worth verifying: fetch it again.
        let ask = have.saturating_sub(OVERLAP);
        let validator = if ask > 0 { load_validator(path).await } else { Validator::default() };
        let mut download = match client.open_source(source, ask, &validator).await {
            Err(e @ ApiError::BadRange { .. }) if ask > 0 => {
                tracing::warn!(path = %path.display(), error = %e, "a bad resume; starting over");
                fresh = true;
                continue;
            }
            other => other.map_err(failed)?,
        };
        let mut watch = Watch::new(stall);
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(&part)
            .await
            .map_err(|e| io("cannot write", &part, e))?;
        if download.start == 0 {
            // The whole file (nothing to resume, a changed file, or a server that ignores Range).
            file.set_len(0).await.map_err(|e| io("cannot truncate", &part, e))?;
            save_validator(path, &download.validator).await;
            return Ok(Opened { download, file, hasher: Sha256::new(), kept: 0, first: Bytes::new(), watch });
        }
        // Compare what the server sends again with what is on disk, then append after it.
        let on_disk = read_range(&part, download.start, have - download.start).await?;
        let mut sent = Vec::with_capacity(on_disk.len());
        while sent.len() < on_disk.len() {
            match watch.chunk(&mut download).await? {
                Some(chunk) => sent.extend_from_slice(&chunk),
                None => break,
            }
        }
        if sent.len() < on_disk.len() || sent[..on_disk.len()] != on_disk[..] {
            tracing::warn!(path = %path.display(), have, "resumed bytes do not match those saved; starting over");
            fresh = true;
            continue;
        }
        let mut hasher = Sha256::new();
        file.set_len(have).await.map_err(|e| io("cannot truncate", &part, e))?;
        hash_prefix(&part, have, &mut hasher).await?;
        file.seek(std::io::SeekFrom::Start(have)).await.map_err(|e| io("cannot write", &part, e))?;
        let first = Bytes::from(sent).slice(on_disk.len()..);
        return Ok(Opened { download, file, hasher, kept: have, first, watch });
    }
}

/// Removes what a refused transfer left: it must not be resumed.
async fn discard(path: &Path) {
    let _ = tokio::fs::remove_file(part_path(path)).await;
    let _ = tokio::fs::remove_file(meta_path(path)).await;
}

/// The container check of the whole `.part` file and its first bytes (off the async threads).
async fn inspect(part: &Path, len: u64) -> Result<(Result<verify::Container, verify::Damage>, Vec<u8>), FetchError> {
    let owned = part.to_path_buf();
    let job = tokio::task::spawn_blocking(move || -> std::io::Result<_> {
        let mut file = std::fs::File::open(&owned)?;
        let mut head = vec![0u8; len.min(32) as usize];
        std::io::Read::read_exact(&mut file, &mut head)?;
        Ok((verify::check_container(std::io::BufReader::new(file), len), head))
    });
    match job.await {
        Ok(result) => result.map_err(|e| io("cannot read", part, e)),
        Err(e) => Err(FetchError::Retry(format!("cannot check {}: {e}", part.display()))),
    }
}

/// Downloads `source` to `path`, resuming from `path.part` if an earlier attempt left one. The
/// file is called saved only when it is what `expect` says a task's video is, wherever it
/// came from: a file URL or the service's file route.
pub async fn fetch(
    client: &Client,
    source: &Source,
    path: &Path,
    stall: StallRule,
    expect: &Expect,
    progress: Progress<'_>,
) -> Result<Saved, FetchError> {
    let dir = path.parent().ok_or_else(|| FetchError::Retry(format!("{} has no folder", path.display())))?;
    tokio::fs::create_dir_all(dir).await.map_err(|e| io("cannot create", dir, e))?;
    let part = part_path(path);
    let Opened { mut download, file, mut hasher, kept, first, mut watch } = open(client, source, path, stall).await?;
    let total = download.total;
    if let Some(t) = total
        && t > expect.bound.bytes
    {
        drop(file);
        discard(path).await;
        return Err(FetchError::Fatal(expect.bound.refusal(t, true)));
    }
    let mut writer = Writer::start(file.into_std().await, part.clone(), kept);
    progress(kept, total);
    let mut written = kept;
    let mut last_report = Instant::now();
    let mut next = (!first.is_empty()).then_some(first);
    let received = loop {
        let chunk = match next.take() {
            Some(chunk) => chunk,
            None => match watch.chunk(&mut download).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            },
        };
        written += chunk.len() as u64;
        if written > expect.bound.bytes {
            break Err(FetchError::Fatal(expect.bound.refusal(written, false)));
        }
        if let Some(t) = total
            && written > t
        {
            break Err(FetchError::Retry(format!("got more than the {t} bytes announced")));
        }
        hasher.update(&chunk);
        if let Err(e) = writer.write(chunk).await {
            // The writer has ended; nothing is left to wait for.
            return Err(with_need(io("cannot write", &part, e), total, &part).await);
        }
        if last_report.elapsed().as_millis() >= 100 {
            progress(written, total);
            last_report = Instant::now();
        }
    };
    if let Err(e) = received {
        // What arrived stays in the `.part` file for a resume: let the writer finish it first.
        let _ = writer.close(false).await;
        return Err(match e {
            FetchError::Retry(m) => FetchError::Retry(format!("{m} (after {written} bytes)")),
            other => {
                // Past the size bound: what arrived is no part of a video to resume.
                discard(path).await;
                other
            }
        });
    }
    if let Some(total) = total
        && written != total
    {
        let _ = writer.close(false).await;
        return Err(FetchError::Retry(format!("got {written} of {total} bytes")));
    }
    if let Err(e) = writer.close(true).await {
        return Err(with_need(io("cannot write", &part, e), total, &part).await);
    }
    // Every byte the server announced arrived (checked above), or it announced none, so that
    // the end seen may be a cut that only the file itself can show.
    let framed = total.is_some();
    let (container, head) = inspect(&part, written).await?;
    if let Err(refused) = verify::judge(container, &head, framed, expect.seconds) {
        tracing::warn!(path = %path.display(), bytes = written, why = %refused.why, "not a complete video");
        return Err(match refused.remedy {
            Remedy::Resume => FetchError::Retry(refused.why),
            Remedy::Again => {
                discard(path).await;
                FetchError::Retry(refused.why)
            }
            Remedy::Never => {
                discard(path).await;
                FetchError::Fatal(refused.why)
            }
        });
    }
    progress(written, total.or(Some(written)));
    finish(&part, path, written, hasher).await
}

/// A full disk's error with what the rest of the file needs, judging by what is on disk.
async fn with_need(e: FetchError, total: Option<u64>, part: &Path) -> FetchError {
    match e {
        FetchError::DiskFull { dir, source, .. } => {
            let have = tokio::fs::metadata(part).await.map_or(0, |m| m.len());
            FetchError::DiskFull { dir, needed: total.map(|t| t.saturating_sub(have)), source }
        }
        other => other,
    }
}

async fn finish(part: &Path, path: &Path, size: u64, hasher: Sha256) -> Result<Saved, FetchError> {
    tokio::fs::rename(part, path).await.map_err(|e| io("cannot rename", part, e))?;
    let _ = tokio::fs::remove_file(meta_path(path)).await;
    if let Some(dir) = path.parent() {
        sync_dir(dir).await;
    }
    let sha256 = reel_rules::text::hex(&hasher.finalize());
    Ok(Saved { path: path.to_path_buf(), size, sha256, tagged: None })
}

#[cfg(test)]
#[path = "download_tests.rs"]
mod tests;
