//! Saving one result file: stream to `<name>.part`, resume with Range, verify the length,
//! hash, fsync, rename, then write the sidecar.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::api::{ApiError, Client};

/// How a download attempt ended, when it did not save the file.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The URL answers 401, 403, 404 or 410: it will not work again.
    #[error("{0}")]
    Gone(ApiError),
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

/// Progress of a transfer: bytes on disk so far and the file's size, when known.
pub type Progress<'a> = &'a (dyn Fn(u64, Option<u64>) + Send + Sync);

fn part_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".part");
    path.with_file_name(name)
}

fn io(context: &str, path: &Path, e: std::io::Error) -> FetchError {
    FetchError::Retry(format!("{context} {}: {e}", path.display()))
}

/// Hashes what an interrupted transfer left, so a resumed download yields the whole file's hash.
async fn hash_existing(part: &Path, hasher: &mut Sha256) -> Result<u64, FetchError> {
    let mut file = tokio::fs::File::open(part).await.map_err(|e| io("cannot read", part, e))?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buf).await.map_err(|e| io("cannot read", part, e))?;
        if n == 0 {
            return Ok(total);
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
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

/// Downloads `url` to `path`, resuming from `path.part` if an earlier attempt left one.
pub async fn fetch(client: &Client, url: &str, path: &Path, progress: Progress<'_>) -> Result<Saved, FetchError> {
    let dir = path.parent().ok_or_else(|| FetchError::Retry(format!("{} has no folder", path.display())))?;
    tokio::fs::create_dir_all(dir).await.map_err(|e| io("cannot create", dir, e))?;
    let part = part_path(path);
    let offset = tokio::fs::metadata(&part).await.map(|m| m.len()).unwrap_or(0);

    let mut hasher = Sha256::new();
    let mut download = match client.open_download(url, offset).await {
        Ok(d) => d,
        Err(ApiError::RangeNotSatisfiable { total: Some(total), .. }) if total == offset && offset > 0 => {
            // An earlier attempt got every byte but stopped before the rename.
            hash_existing(&part, &mut hasher).await?;
            return finish(&part, path, offset, hasher).await;
        }
        Err(e @ ApiError::UrlGone { .. }) => return Err(FetchError::Gone(e)),
        Err(e) => return Err(FetchError::Retry(e.to_string())),
    };
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&part)
        .await
        .map_err(|e| io("cannot write", &part, e))?;
    let mut written = if download.start == 0 {
        // The server sent the whole file (it ignored the range, or there was nothing to resume).
        file.set_len(0).await.map_err(|e| io("cannot truncate", &part, e))?;
        0
    } else {
        hash_existing(&part, &mut hasher).await?
    };
    let total = download.total;
    progress(written, total);
    let mut last_report = Instant::now();
    loop {
        match download.chunk().await {
            Ok(Some(chunk)) => {
                file.write_all(&chunk).await.map_err(|e| io("cannot write", &part, e))?;
                hasher.update(&chunk);
                written += chunk.len() as u64;
                if last_report.elapsed().as_millis() >= 100 {
                    progress(written, total);
                    last_report = Instant::now();
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = file.flush().await;
                return Err(FetchError::Retry(format!("transfer broke after {written} bytes: {e}")));
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
    if let Some(dir) = path.parent() {
        sync_dir(dir).await;
    }
    let sha256 = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Saved { path: path.to_path_buf(), size, sha256 })
}
