//! Moving a file's bytes: hashing it off the async threads, one PUT for a small file, a
//! multipart upload with progress for a large one, which is hashed again as it is read so a
//! file changed in between never lands under the wrong key.

use std::path::Path;

use bytes::Bytes;
use futures_util::{FutureExt, StreamExt, stream::FuturesUnordered};
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

use super::bucket::{Bucket, MAX_PARTS};
use super::error::StorageError;
use super::request::Failure;
use reel_rules::text::hex;

/// Bytes of one upload sent so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub sent: u64,
    pub total: u64,
}

/// How large files travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// Files above this go in parts; smaller ones in one PUT, read into memory once.
    pub multipart_threshold: u64,
    /// S3 wants at least 5 MiB for every part but the last.
    pub part_size: usize,
    /// Parts in flight at once.
    pub parallel: usize,
}

impl Default for Transfer {
    fn default() -> Self {
        Transfer { multipart_threshold: 8 << 20, part_size: 8 << 20, parallel: 2 }
    }
}

/// A local file, hashed. `bytes` holds a small file's content, so it is read only once.
pub(super) struct Local {
    pub sha256: String,
    pub size: u64,
    bytes: Option<Bytes>,
}

fn unreadable(path: &Path) -> impl Fn(std::io::Error) -> StorageError + '_ {
    move |source| StorageError::FileUnreadable { path: path.to_path_buf(), source }
}

fn hash_file(path: &Path, threshold: u64) -> Result<Local, StorageError> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(unreadable(path))?;
    let meta = file.metadata().map_err(unreadable(path))?;
    if !meta.is_file() {
        let source = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
        return Err(StorageError::FileUnreadable { path: path.to_path_buf(), source });
    }
    if meta.len() <= threshold {
        let mut content = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut content).map_err(unreadable(path))?;
        let sha256 = hex(&Sha256::digest(&content));
        return Ok(Local { sha256, size: content.len() as u64, bytes: Some(content.into()) });
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(unreadable(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok(Local { sha256: hex(&hasher.finalize()), size, bytes: None })
}

/// Hashes `path` on a blocking thread: a large file takes a while.
pub(super) async fn read_local(path: &Path, threshold: u64) -> Result<Local, StorageError> {
    let owned = path.to_path_buf();
    tokio::task::spawn_blocking(move || hash_file(&owned, threshold))
        .await
        .map_err(|e| StorageError::FileUnreadable { path: path.to_path_buf(), source: std::io::Error::other(e) })?
}

/// Uploads `local` (read from `path`) to `key`, reporting progress.
#[allow(clippy::too_many_arguments)]
pub(super) async fn send(
    bucket: &Bucket,
    key: &str,
    path: &Path,
    local: &Local,
    content_type: &'static str,
    transfer: &Transfer,
    progress: &mut (impl FnMut(Progress) + Send),
    fail: impl Fn(Failure) -> StorageError + Send + Sync,
) -> Result<(), StorageError> {
    let total = local.size;
    progress(Progress { sent: 0, total });
    if let Some(bytes) = &local.bytes {
        bucket.put(key, content_type, bytes.clone()).await.map_err(fail)?;
        progress(Progress { sent: total, total });
        return Ok(());
    }
    let upload_id = bucket.start_parts(key, content_type).await.map_err(&fail)?;
    match send_parts(bucket, key, &upload_id, path, local, transfer, progress, &fail).await {
        Ok(etags) => bucket.finish_parts(key, &upload_id, &etags).await.map_err(fail),
        Err(e) => {
            if let Err(abort) = bucket.abandon_parts(key, &upload_id).await {
                tracing::warn!(error = %abort, "could not abort a failed multipart upload");
            }
            Err(e)
        }
    }
}

/// Sends the parts, `transfer.parallel` at a time; their ETags in order.
#[allow(clippy::too_many_arguments)]
async fn send_parts(
    bucket: &Bucket,
    key: &str,
    upload_id: &str,
    path: &Path,
    local: &Local,
    transfer: &Transfer,
    progress: &mut (impl FnMut(Progress) + Send),
    fail: &(impl Fn(Failure) -> StorageError + Send + Sync),
) -> Result<Vec<String>, StorageError> {
    let changed = || StorageError::FileChanged { path: path.to_path_buf() };
    let mut file = tokio::fs::File::open(path).await.map_err(unreadable(path))?;
    let part_size = transfer.part_size.max(1);
    if local.size.div_ceil(part_size as u64) > u64::from(MAX_PARTS) {
        let detail = format!("{} bytes is more than S3's {MAX_PARTS} parts of {part_size} bytes", local.size);
        return Err(StorageError::UploadFailed { key: key.to_string(), detail });
    }
    let mut hasher = Sha256::new();
    let (mut read, mut sent) = (0u64, 0u64);
    let mut etags: Vec<(u16, String)> = Vec::new();
    let mut in_flight = FuturesUnordered::new();
    let mut number = 0u16;
    loop {
        let mut part = Vec::with_capacity(part_size);
        (&mut file).take(part_size as u64).read_to_end(&mut part).await.map_err(unreadable(path))?;
        if part.is_empty() {
            break;
        }
        read += part.len() as u64;
        if read > local.size || number == MAX_PARTS {
            return Err(changed());
        }
        hasher.update(&part);
        number += 1;
        let len = part.len() as u64;
        let n = number;
        in_flight
            .push(bucket.put_part(key, upload_id, n, Bytes::from(part)).map(move |r| r.map(|etag| (n, etag, len))));
        while in_flight.len() >= transfer.parallel.max(1) {
            if let Some(done) = in_flight.next().await {
                let (n, etag, len) = done.map_err(fail)?;
                etags.push((n, etag));
                sent += len;
                progress(Progress { sent, total: local.size });
            }
        }
    }
    while let Some(done) = in_flight.next().await {
        let (n, etag, len) = done.map_err(fail)?;
        etags.push((n, etag));
        sent += len;
        progress(Progress { sent, total: local.size });
    }
    if read != local.size || hex(&hasher.finalize()) != local.sha256 {
        return Err(changed());
    }
    etags.sort_unstable_by_key(|(n, _)| *n);
    Ok(etags.into_iter().map(|(_, etag)| etag).collect())
}
