//! Previews of saved videos: a poster frame and a strip of frames made once with `ffmpeg` and
//! cached by the file's sha256, and inline playback streamed from an `ffmpeg` child.
//!
//! CONTRACT (filled in by the preview-core branch; the dashboard codes against these names).

use std::path::{Path, PathBuf};

use image::RgbImage;

pub mod play;

/// Frames in the strip under the poster.
pub const STRIP: usize = 5;

/// What can go wrong making or reading previews; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// ffmpeg is not installed or does not run.
    #[error(
        "previews need ffmpeg: install it (apt install ffmpeg, brew install ffmpeg) or set REEL_FFMPEG to its path"
    )]
    NoFfmpeg { program: String },
    /// The file is gone or unreadable.
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// ffmpeg ran and failed (the file is not a video it can decode, or it was cut short).
    #[error("ffmpeg could not read {path}: {message}")]
    Ffmpeg { path: PathBuf, message: String },
    /// A cached frame did not decode.
    #[error("cached preview {path} is damaged: {message}")]
    Image { path: PathBuf, message: String },
    /// The sha256 given is not 64 hex digits (it names the cache folder).
    #[error("not a sha256: {0:?}")]
    BadHash(String),
}

/// The decoded stills of one video.
#[derive(Debug, Clone)]
pub struct Stills {
    pub poster: RgbImage,
    /// Up to `STRIP` frames spread over the video, in order.
    pub strip: Vec<RgbImage>,
}

/// Makes and reads previews. Cheap to clone; every method that may run ffmpeg blocks, so call
/// it off the UI thread.
#[derive(Debug, Clone)]
pub struct Previewer {
    /// `<data dir>/previews`.
    pub cache_dir: PathBuf,
    /// The ffmpeg program (REEL_FFMPEG, else `ffmpeg` on the PATH).
    pub ffmpeg: String,
}

impl Previewer {
    pub fn new(cache_dir: PathBuf, ffmpeg: String) -> Previewer {
        Previewer { cache_dir, ffmpeg }
    }

    /// `<data dir>/previews`, made with the configured ffmpeg.
    pub fn from_settings(settings: &crate::config::Settings) -> Previewer {
        Previewer::new(settings.data_dir.join("previews"), settings.programs.ffmpeg.clone())
    }

    /// The poster and strip of `video` (content hash `sha256`): read from the cache, made first
    /// when missing or damaged.
    pub fn stills(&self, video: &Path, sha256: &str) -> Result<Stills, PreviewError> {
        let _ = (video, sha256);
        todo!("preview-core")
    }

    /// Only the poster (the history grid), made first when missing.
    pub fn poster(&self, video: &Path, sha256: &str) -> Result<RgbImage, PreviewError> {
        let _ = (video, sha256);
        todo!("preview-core")
    }

    /// Makes the cached frames if missing, without decoding them (the engine, after a download).
    pub fn ensure(&self, video: &Path, sha256: &str) -> Result<(), PreviewError> {
        let _ = (video, sha256);
        todo!("preview-core")
    }
}
