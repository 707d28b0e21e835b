//! Makes one video's stills: two ffmpeg runs (read the header, then one decoding pass writes
//! all six JPEGs into a temporary folder), checked, completed and renamed into the cache.

use std::path::Path;

use super::probe::{self, VideoInfo};
use super::process::{self, TIME_LIMIT};
use super::{PreviewError, cache, frames};

/// Reads the header of `video`.
pub fn probe(ffmpeg: &str, video: &Path) -> Result<VideoInfo, PreviewError> {
    let ran = process::run(ffmpeg, &frames::probe_args(video), TIME_LIMIT, video)?;
    probe::parse(&ran.stderr).ok_or_else(|| {
        let why = process::last_line(&ran.stderr);
        let why = if why.contains("output file") { "no video stream in it".to_string() } else { why };
        process::failed(video, &why)
    })
}

/// Makes the stills of `video` into `folder` (its cache folder), replacing what is there.
pub fn make(ffmpeg: &str, video: &Path, folder: &Path) -> Result<(), PreviewError> {
    std::fs::File::open(video).map_err(|source| PreviewError::Io { path: video.to_path_buf(), source })?;
    let info = probe(ffmpeg, video)?;
    let temp = cache::temp_folder(folder)?;
    let made = write_stills(ffmpeg, video, &info, &temp).and_then(|()| cache::commit(&temp, folder));
    if made.is_err() {
        cache::discard(&temp);
    }
    made
}

/// The six pictures into `temp`: at the planned moments, or, when the file holds less time than
/// its header claims and nothing came out, from its first frames.
fn write_stills(ffmpeg: &str, video: &Path, info: &VideoInfo, temp: &Path) -> Result<(), PreviewError> {
    let mut why = String::from("no frames came out");
    for duration in [info.duration, Some(0.0)] {
        for stale in cache::StillPaths::of(temp).all() {
            let _ = std::fs::remove_file(stale);
        }
        let args = frames::still_args(video, info, &frames::moments(duration), temp);
        let ran = process::run(ffmpeg, &args, TIME_LIMIT, video)?;
        // Pictures that came out whole are kept even if ffmpeg complained on the way.
        let strip = cache::fill_strip(temp)?;
        if strip > 0 && cache::complete(temp) {
            tracing::debug!(video = %video.display(), strip, "stills made");
            return Ok(());
        }
        if !ran.status.success() {
            return Err(process::failed(video, &process::last_line(&ran.stderr)));
        }
        if !ran.stderr.trim().is_empty() {
            why = process::last_line(&ran.stderr);
        }
    }
    Err(process::failed(video, &why))
}
