//! Saved files of an engine on another machine, fetched through it on demand: a task's video
//! into a local cache keyed by its sha256 (for playing, comparing, `o`) or into a folder the
//! user names (`reel pull`), and its preview stills into this machine's preview cache, where
//! the previews look for them. Every video is checked against the sum the journal holds
//! before it is used, and lands under its name only whole (written beside it, then renamed).

use std::path::{Path, PathBuf};

use futures_util::StreamExt as _;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt as _;

use super::Engine;
use super::service::reads::{Found, Read, RemoteFile};
use reel_store::TaskRecord;

/// Bytes asked for at once, and how many asks are in flight: a slow link stays busy.
const CHUNK: u32 = 1 << 20;
const WINDOW: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("task {0} has no saved file")]
    NoFile(i64),
    #[error("no saved file on the engine's machine has the sha256 {0}")]
    NoSum(String),
    #[error("the engine's machine sent preview stills of {0} that are not pictures reel can use")]
    BadStill(String),
    #[error(transparent)]
    Engine(#[from] super::EngineError),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{what} arrived damaged (sha256 {got}, the journal says {want}); nothing was kept")]
    Damaged { what: String, got: String, want: String },
    #[error("{0} changed size while it was fetched; try again")]
    Moved(String),
    #[error(transparent)]
    Preview(#[from] crate::preview::PreviewError),
}

/// The sum of the file as saved (the tagged file's when reel wrote provenance into it).
pub fn saved_sum(task: &TaskRecord) -> Option<&str> {
    task.file_sha256.as_deref().or(task.sha256.as_deref())
}

/// This machine's cache of videos fetched from an engine on another machine.
pub fn cache_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("fetched")
}

/// Where the cache keeps a fetched video: `<cache>/<sha[0..2]>/<sha>.mp4`.
pub fn cached_video(cache_dir: &Path, sha256: &str) -> Result<PathBuf, FetchError> {
    let sha = crate::preview::cache::checked_hash(sha256)?;
    Ok(cache_dir.join(&sha[..2]).join(format!("{sha}.mp4")))
}

/// The task's video in the cache, fetched first when it is not there. `progress` hears the
/// bytes so far and the whole length.
pub async fn video(
    engine: &Engine,
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

/// The saved video whose sha256 is `sha` (the service's bytes or the tagged file: the
/// previews know a file by the former) in the cache, fetched first when it is not there.
pub async fn video_by_sum(
    engine: &Engine,
    sha: &str,
    cache_dir: &Path,
    progress: impl FnMut(u64, u64),
) -> Result<PathBuf, FetchError> {
    let task = match engine.read(Read::BySum { sha256: sha.to_string() }).await? {
        Found::Tasks(mut t) => t.pop().ok_or_else(|| FetchError::NoSum(sha.to_string()))?,
        other => return Err(super::EngineError::Unexpected(other.kind()).into()),
    };
    video(engine, &task, cache_dir, progress).await
}

/// Fetches the task's video to `dest`, checked against the journal's sum, written beside it
/// and renamed into place.
pub async fn fetch_to(
    engine: &Engine,
    task: &TaskRecord,
    dest: &Path,
    progress: impl FnMut(u64, u64),
) -> Result<(), FetchError> {
    let what = format!("the file of task {}", task.id);
    fetch_file(engine, RemoteFile::Video { id: task.id }, saved_sum(task), &what, dest, progress).await
}

/// Fetches `file` to `dest` in pieces, several asked at once, checked against `want`.
async fn fetch_file(
    engine: &Engine,
    file: RemoteFile,
    want: Option<&str>,
    what: &str,
    dest: &Path,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), FetchError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FetchError::Io { path, source }
    };
    if let Some(dir) = dest.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(io(dir))?;
    }
    let temp = dest.with_extension(format!("part-{}-{:08x}", std::process::id(), fastrand::u32(..)));
    let result = async {
        let (total, first) = engine.fetch(file.clone(), 0, CHUNK).await?;
        let mut out = tokio::fs::File::create(&temp).await.map_err(io(&temp))?;
        let mut hasher = Sha256::new();
        let mut done = first.len() as u64;
        hasher.update(&first);
        out.write_all(&first).await.map_err(io(&temp))?;
        progress(done, total);
        let offsets = (done..total).step_by(CHUNK as usize);
        let file = &file;
        let mut pieces = futures_util::stream::iter(offsets)
            .map(|offset| async move { (offset, engine.fetch(file.clone(), offset, CHUNK).await) })
            .buffered(WINDOW);
        while let Some((offset, piece)) = pieces.next().await {
            let (len, bytes) = piece?;
            if len != total || offset != done || (bytes.is_empty() && done < total) {
                return Err(FetchError::Moved(what.to_string()));
            }
            done += bytes.len() as u64;
            hasher.update(&bytes);
            out.write_all(&bytes).await.map_err(io(&temp))?;
            progress(done, total);
        }
        out.sync_all().await.map_err(io(&temp))?;
        let got = reel_rules::text::hex(&hasher.finalize());
        match want {
            Some(want) if !want.eq_ignore_ascii_case(&got) => {
                Err(FetchError::Damaged { what: what.to_string(), got, want: want.to_string() })
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

/// The poster and strip of the saved video whose sha256 is `sha` in this machine's preview
/// cache (`previews`, the folder the previews read), fetched when missing; the engine's machine
/// makes them if it has not yet. The poster first (asking for it makes them all there, with one
/// ffmpeg), then the strip at once.
pub async fn stills(engine: &Engine, sha: &str, previews: &Path) -> Result<(), FetchError> {
    use crate::preview::{StillPaths, cache};
    let folder = cache::folder(previews, sha)?;
    if cache::complete(&folder) {
        return Ok(());
    }
    let temp = cache::temp_folder(&folder)?;
    let paths = StillPaths::of(&temp);
    let one = |index: usize, path: &PathBuf| {
        let path = path.clone();
        async move {
            let bytes = still(engine, sha, index).await?;
            tokio::fs::write(&path, &bytes).await.map_err(|source| FetchError::Io { path, source })
        }
    };
    let fetched = async {
        one(0, &paths.poster).await?;
        futures_util::future::try_join_all(paths.strip.iter().enumerate().map(|(i, p)| one(i + 1, p))).await?;
        // What the host sent must be pictures the previews can use, or nothing is kept.
        if cache::complete(&temp) { Ok(()) } else { Err(FetchError::BadStill(sha.to_string())) }
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

/// The most bytes a still may have: a JPEG frame of a strip is tens of KiB.
const MAX_STILL: u64 = 8 << 20;

/// One still's bytes, in pieces while the host has more; its length must not change meanwhile.
async fn still(engine: &Engine, sha: &str, index: usize) -> Result<Vec<u8>, FetchError> {
    let file = RemoteFile::StillBySum { sha256: sha.to_string(), index };
    let (total, mut bytes) = engine.fetch(file.clone(), 0, CHUNK).await?;
    if total > MAX_STILL {
        return Err(FetchError::BadStill(sha.to_string()));
    }
    while (bytes.len() as u64) < total {
        let (again, piece) = engine.fetch(file.clone(), bytes.len() as u64, CHUNK).await?;
        if again != total || piece.is_empty() {
            return Err(FetchError::Moved(format!("a still of {sha}")));
        }
        bytes.extend_from_slice(&piece);
    }
    bytes.truncate(usize::try_from(total).unwrap_or(usize::MAX));
    Ok(bytes)
}
