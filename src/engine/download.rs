//! Saving one result file: stream to `<name>.part`, resume with a verified Range, cut a
//! transfer that stalls, verify the length, hash, fsync, rename.
//!
//! A resume is checked, not trusted: `If-Range` carries the validator of the first answer (in
//! `<name>.part.meta`), `Content-Range` must match what was asked, and the request starts a
//! little before the resume point so that the bytes the server sends again can be compared with
//! those on disk. A server that answers a resume with other bytes makes the download start over.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

use crate::api::download::Validator;
use crate::api::{ApiError, Client, Download};

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
}

/// A saved file.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub path: PathBuf,
    pub size: u64,
    pub sha256: String,
}

/// A transfer that moves fewer than `min_bytes` in `window` is cut (and resumed later), so a
/// trickling server cannot hold a download slot while other URLs expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StallRule {
    pub window: Duration,
    pub min_bytes: u64,
}

impl Default for StallRule {
    fn default() -> Self {
        StallRule { window: Duration::from_secs(30), min_bytes: 1024 }
    }
}

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
    FetchError::Retry(format!("{context} {}: {e}", path.display()))
}

fn failed(e: ApiError) -> FetchError {
    match e {
        e @ ApiError::UrlGone { .. } => FetchError::Gone(e),
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

/// Writes `bytes` to `path` atomically: a `.part` file, fsync, rename.
pub async fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let part = part_path(path);
    let mut f = tokio::fs::File::create(&part).await?;
    f.write_all(bytes).await?;
    f.sync_all().await?;
    drop(f);
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
        let _ = tokio::fs::write(meta_path(path), body).await;
    }
}

/// The next piece of the body, or a stall: fewer than `rule.min_bytes` in the current window.
struct Watch {
    rule: StallRule,
    since: Instant,
    bytes: u64,
}

impl Watch {
    fn new(rule: StallRule) -> Watch {
        Watch { rule, since: Instant::now(), bytes: 0 }
    }

    async fn chunk(&mut self, download: &mut Download) -> Result<Option<bytes::Bytes>, FetchError> {
        loop {
            let deadline = self.since + self.rule.window;
            match tokio::time::timeout_at(deadline.into(), download.chunk()).await {
                Ok(Ok(chunk)) => {
                    let n = chunk.as_ref().map_or(0, |c| c.len() as u64);
                    self.bytes += n;
                    self.check()?;
                    return Ok(chunk);
                }
                Ok(Err(e)) => return Err(FetchError::Retry(format!("the transfer broke: {e}"))),
                Err(_) => self.check()?,
            }
        }
    }

    /// At the end of each window: enough bytes start a new one, too few end the transfer.
    fn check(&mut self) -> Result<(), FetchError> {
        if self.since.elapsed() < self.rule.window {
            return Ok(());
        }
        if self.bytes < self.rule.min_bytes {
            return Err(FetchError::Retry(format!(
                "the transfer stalled ({} bytes in {} s); it will resume",
                self.bytes,
                self.rule.window.as_secs()
            )));
        }
        self.since = Instant::now();
        self.bytes = 0;
        Ok(())
    }
}

/// Downloads `url` to `path`, resuming from `path.part` if an earlier attempt left one.
pub async fn fetch(
    client: &Client,
    url: &str,
    path: &Path,
    stall: StallRule,
    progress: Progress<'_>,
) -> Result<Saved, FetchError> {
    let dir = path.parent().ok_or_else(|| FetchError::Retry(format!("{} has no folder", path.display())))?;
    tokio::fs::create_dir_all(dir).await.map_err(|e| io("cannot create", dir, e))?;
    let part = part_path(path);
    // A resume the server answers wrongly (another range, other bytes) starts over, once.
    let mut fresh = false;
    let (mut download, mut file, mut hasher, mut written, mut watch) = loop {
        let have = if fresh { 0 } else { tokio::fs::metadata(&part).await.map(|m| m.len()).unwrap_or(0) };
        // A short piece is not worth verifying: fetch it again.
        let ask = have.saturating_sub(OVERLAP);
        let validator = if ask > 0 { load_validator(path).await } else { Validator::default() };
        let mut download = match client.open_download(url, ask, &validator).await {
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
            break (download, file, Sha256::new(), 0, watch);
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
        let rest = &sent[on_disk.len()..];
        file.write_all(rest).await.map_err(|e| io("cannot write", &part, e))?;
        hasher.update(rest);
        break (download, file, hasher, have + rest.len() as u64, watch);
    };
    let total = download.total;
    progress(written, total);
    let mut last_report = Instant::now();
    loop {
        match watch.chunk(&mut download).await {
            Ok(Some(chunk)) => {
                file.write_all(&chunk).await.map_err(|e| io("cannot write", &part, e))?;
                hasher.update(&chunk);
                written += chunk.len() as u64;
                if let Some(t) = total
                    && written > t
                {
                    return Err(FetchError::Retry(format!("got more than the {t} bytes announced")));
                }
                if last_report.elapsed().as_millis() >= 100 {
                    progress(written, total);
                    last_report = Instant::now();
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = file.flush().await;
                return Err(match e {
                    FetchError::Retry(m) => FetchError::Retry(format!("{m} (after {written} bytes)")),
                    other => other,
                });
            }
        }
    }
    file.flush().await.map_err(|e| io("cannot write", &part, e))?;
    if let Some(total) = total
        && written != total
    {
        return Err(FetchError::Retry(format!("got {written} of {total} bytes")));
    }
    file.sync_all().await.map_err(|e| io("cannot sync", &part, e))?;
    drop(file);
    progress(written, total.or(Some(written)));
    finish(&part, path, written, hasher).await
}

async fn finish(part: &Path, path: &Path, size: u64, hasher: Sha256) -> Result<Saved, FetchError> {
    tokio::fs::rename(part, path).await.map_err(|e| io("cannot rename", part, e))?;
    let _ = tokio::fs::remove_file(meta_path(path)).await;
    if let Some(dir) = path.parent() {
        sync_dir(dir).await;
    }
    let sha256 = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Saved { path: path.to_path_buf(), size, sha256 })
}
