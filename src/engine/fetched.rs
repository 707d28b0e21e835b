//! Saved files of an engine on another machine, fetched through it on demand: a task's video
//! into a local cache keyed by its sha256 (for playing, comparing, `o`) or into a folder the
//! user names (`reel pull`), and its preview stills into this machine's preview cache, where
//! the previews look for them. Every video is checked against the sum the journal holds
//! before it is used, and lands under its name only whole (written beside it, then renamed).

use std::path::{Path, PathBuf};

use futures_util::StreamExt as _;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt as _;

use super::service::RemoteEngine;
use super::service::reads::RemoteFile;
use crate::store::TaskRecord;

/// Bytes asked for at once, and how many asks are in flight: a slow link stays busy.
const CHUNK: u32 = 1 << 20;
const WINDOW: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("task {0} has no saved file")]
    NoFile(i64),
    #[error(transparent)]
    Engine(#[from] super::EngineError),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the file of task {id} arrived damaged (sha256 {got}, the journal says {want}); nothing was kept")]
    Damaged { id: i64, got: String, want: String },
    #[error("the file of task {0} changed size while it was fetched; try again")]
    Moved(i64),
    #[error(transparent)]
    Preview(#[from] crate::preview::PreviewError),
}

/// The sum of the file as saved (the tagged file's when reel wrote provenance into it).
pub fn saved_sum(task: &TaskRecord) -> Option<&str> {
    task.file_sha256.as_deref().or(task.sha256.as_deref())
}

/// Where the cache keeps a fetched video: `<cache>/<sha[0..2]>/<sha>.mp4`.
pub fn cached_video(cache_dir: &Path, sha256: &str) -> Result<PathBuf, FetchError> {
    let sha = crate::preview::cache::checked_hash(sha256)?;
    Ok(cache_dir.join(&sha[..2]).join(format!("{sha}.mp4")))
}

/// The task's video in the cache, fetched first when it is not there. `progress` hears the
/// bytes so far and the whole length.
pub async fn video(
    engine: &RemoteEngine,
    task: &TaskRecord,
    cache_dir: &Path,
    progress: impl FnMut(u64, u64),
) -> Result<PathBuf, FetchError> {
    let sha = saved_sum(task).ok_or(FetchError::NoFile(task.id))?;
    let path = cached_video(cache_dir, sha)?;
    if !path.is_file() {
        fetch_to(engine, task, &path, progress).await?;
    }
    Ok(path)
}

/// Fetches the task's video to `dest`, checked against the journal's sum, written beside it
/// and renamed into place.
pub async fn fetch_to(
    engine: &RemoteEngine,
    task: &TaskRecord,
    dest: &Path,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), FetchError> {
    let id = task.id;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FetchError::Io { path, source }
    };
    if let Some(dir) = dest.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(io(dir))?;
    }
    let temp = dest.with_extension(format!("part-{}-{:08x}", std::process::id(), fastrand::u32(..)));
    let result = async {
        let (total, first) = engine.fetch(RemoteFile::Video { id }, 0, CHUNK).await?;
        let mut file = tokio::fs::File::create(&temp).await.map_err(io(&temp))?;
        let mut hasher = Sha256::new();
        let mut done = first.len() as u64;
        hasher.update(&first);
        file.write_all(&first).await.map_err(io(&temp))?;
        progress(done, total);
        let offsets = (done..total).step_by(CHUNK as usize);
        let mut pieces = futures_util::stream::iter(offsets)
            .map(|offset| async move { (offset, engine.fetch(RemoteFile::Video { id }, offset, CHUNK).await) })
            .buffered(WINDOW);
        while let Some((offset, piece)) = pieces.next().await {
            let (len, bytes) = piece?;
            if len != total || offset != done || (bytes.is_empty() && done < total) {
                return Err(FetchError::Moved(id));
            }
            done += bytes.len() as u64;
            hasher.update(&bytes);
            file.write_all(&bytes).await.map_err(io(&temp))?;
            progress(done, total);
        }
        file.sync_all().await.map_err(io(&temp))?;
        let got = hex(&hasher.finalize());
        match saved_sum(task) {
            Some(want) if !want.eq_ignore_ascii_case(&got) => {
                Err(FetchError::Damaged { id, got, want: want.to_string() })
            }
            _ => Ok(()),
        }
    }
    .await;
    match result {
        Ok(()) => tokio::fs::rename(&temp, dest).await.map_err(io(dest)),
        Err(e) => {
            let _ = tokio::fs::remove_file(&temp).await;
            Err(e)
        }
    }
}

/// The task's poster and strip in this machine's preview cache (`previews`, the folder the
/// previews read), fetched when missing; the engine's machine makes them if it has not yet.
pub async fn stills(engine: &RemoteEngine, task: &TaskRecord, previews: &Path) -> Result<(), FetchError> {
    use crate::preview::{STRIP, StillPaths, cache};
    let sha = task.sha256.as_deref().ok_or(FetchError::NoFile(task.id))?;
    let folder = cache::folder(previews, sha)?;
    if cache::complete(&folder) {
        return Ok(());
    }
    let temp = cache::temp_folder(&folder)?;
    let paths = StillPaths::of(&temp);
    let fetched = async {
        for (index, path) in paths.all().enumerate().take(STRIP + 1) {
            let mut bytes = Vec::new();
            loop {
                let (total, piece) =
                    engine.fetch(RemoteFile::Still { id: task.id, index }, bytes.len() as u64, CHUNK).await?;
                bytes.extend_from_slice(&piece);
                if piece.is_empty() || bytes.len() as u64 >= total {
                    break;
                }
            }
            tokio::fs::write(path, &bytes).await.map_err(|source| FetchError::Io { path: path.clone(), source })?;
        }
        Ok::<(), FetchError>(())
    }
    .await;
    match fetched {
        Ok(()) => Ok(cache::commit(&temp, &folder)?),
        Err(e) => {
            cache::discard(&temp);
            Err(e)
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
