//! Moving a file's bytes: hashing it off the async threads, one PUT for a small file, a
//! multipart upload with progress for a large one, which is hashed again as it is read so a
//! file changed in between never lands under the wrong key.

use std::path::Path;

use bytes::Bytes;
use futures_util::{FutureExt, StreamExt, stream::FuturesUnordered};
use object_store::aws::AmazonS3;
use object_store::path::Path as ObjectPath;
use object_store::{Attribute, Attributes, MultipartUpload, ObjectStore};
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

use super::error::StorageError;
use crate::text::hex;

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

/// Uploads `local` (read from `path`) to `location`, reporting progress.
#[allow(clippy::too_many_arguments)]
pub(super) async fn send(
    store: &AmazonS3,
    location: &ObjectPath,
    path: &Path,
    local: &Local,
    content_type: &'static str,
    transfer: &Transfer,
    progress: &mut (impl FnMut(Progress) + Send),
    fail: impl Fn(object_store::Error) -> StorageError + Send + Sync,
) -> Result<(), StorageError> {
    let total = local.size;
    let mut attributes = Attributes::new();
    attributes.insert(Attribute::ContentType, content_type.into());
    progress(Progress { sent: 0, total });
    if let Some(bytes) = &local.bytes {
        store.put_opts(location, bytes.clone().into(), attributes.into()).await.map_err(fail)?;
        progress(Progress { sent: total, total });
        return Ok(());
    }
    let mut upload = store.put_multipart_opts(location, attributes.into()).await.map_err(&fail)?;
    match send_parts(upload.as_mut(), path, local, transfer, progress, &fail).await {
        Ok(()) => upload.complete().await.map(drop).map_err(fail),
        Err(e) => {
            // Parts left behind cost money until the bucket's lifecycle rules remove them.
            if let Err(abort) = upload.abort().await {
                tracing::warn!(error = %abort, "could not abort a failed multipart upload");
            }
            Err(e)
        }
    }
}

async fn send_parts(
    upload: &mut dyn MultipartUpload,
    path: &Path,
    local: &Local,
    transfer: &Transfer,
    progress: &mut (impl FnMut(Progress) + Send),
    fail: &(impl Fn(object_store::Error) -> StorageError + Send + Sync),
) -> Result<(), StorageError> {
    let changed = || StorageError::FileChanged { path: path.to_path_buf() };
    let mut file = tokio::fs::File::open(path).await.map_err(unreadable(path))?;
    let part_size = transfer.part_size.max(1);
    let mut hasher = Sha256::new();
    let mut read = 0u64;
    let mut sent = 0u64;
    let mut in_flight = FuturesUnordered::new();
    loop {
        let mut part = Vec::with_capacity(part_size);
        (&mut file).take(part_size as u64).read_to_end(&mut part).await.map_err(unreadable(path))?;
        if part.is_empty() {
            break;
        }
        read += part.len() as u64;
        if read > local.size {
            return Err(changed());
        }
        hasher.update(&part);
        let len = part.len() as u64;
        in_flight.push(upload.put_part(Bytes::from(part).into()).map(move |r| r.map(|()| len)));
        while in_flight.len() >= transfer.parallel.max(1) {
            if let Some(done) = in_flight.next().await {
                sent += done.map_err(fail)?;
                progress(Progress { sent, total: local.size });
            }
        }
    }
    while let Some(done) = in_flight.next().await {
        sent += done.map_err(fail)?;
        progress(Progress { sent, total: local.size });
    }
    if read != local.size || hex(&hasher.finalize()) != local.sha256 {
        return Err(changed());
    }
    Ok(())
}
