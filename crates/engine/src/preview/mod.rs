//! Previews of saved videos: a poster frame and a strip of frames made once with `ffmpeg` and
//! cached by the file's sha256, and inline playback streamed from an `ffmpeg` child.
//!
//! `frames` and `probe` are pure (moments, sizes, argument lists, ffmpeg's header); `process`
//! runs ffmpeg with a time limit; `cache` is the folder layout and its atomic replacement;
//! `extract` makes the stills; `play` streams frames; `clip` decodes a whole clip for the compare
//! view; `background` makes stills for the engine; `detect` asks the terminal how pictures are
//! drawn; `term` prints a picture in a terminal (`reel show --preview`).

use std::path::{Path, PathBuf};

use image::RgbImage;

pub mod background;
pub mod cache;
pub mod clip;
pub mod detect;
mod extract;
pub mod frames;
pub mod play;
pub mod probe;
mod process;
pub mod term;

pub use cache::StillPaths;
/// ffmpeg as the previews run it (a time limit, standard error kept), for other jobs of it.
pub use process::{last_line, run as run_program};

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
        self.decoded(video, sha256, |paths| {
            let poster = decode(&paths.poster)?;
            let strip = paths.strip.iter().map(|p| decode(p)).collect::<Result<Vec<_>, _>>()?;
            Ok(Stills { poster, strip })
        })
    }

    /// Only the poster (the history grid), made first when missing.
    pub fn poster(&self, video: &Path, sha256: &str) -> Result<RgbImage, PreviewError> {
        self.decoded(video, sha256, |paths| decode(&paths.poster))
    }

    /// Makes the cached frames if missing, without decoding them (the engine, after a download).
    pub fn ensure(&self, video: &Path, sha256: &str) -> Result<(), PreviewError> {
        let folder = cache::folder(&self.cache_dir, sha256)?;
        if cache::complete(&folder) {
            return Ok(());
        }
        extract::make(&self.ffmpeg, video, &folder)
    }

    /// The cached files of `sha256`, when all of them are there; never runs ffmpeg.
    pub fn cached(&self, sha256: &str) -> Result<Option<StillPaths>, PreviewError> {
        let folder = cache::folder(&self.cache_dir, sha256)?;
        Ok(cache::complete(&folder).then(|| StillPaths::of(&folder)))
    }

    /// `read` over the cached files, made first when missing; a file that does not decode
    /// (damaged where the cheap check cannot see) has the stills made again, once.
    fn decoded<T>(
        &self,
        video: &Path,
        sha256: &str,
        read: impl Fn(&StillPaths) -> Result<T, PreviewError>,
    ) -> Result<T, PreviewError> {
        self.ensure(video, sha256)?;
        let folder = cache::folder(&self.cache_dir, sha256)?;
        let paths = StillPaths::of(&folder);
        match read(&paths) {
            Err(e @ (PreviewError::Image { .. } | PreviewError::Io { .. })) => {
                tracing::info!(error = %e, "cached preview damaged or gone; making it again");
                // Away first: the new folder only replaces one that fails the cheap check.
                cache::remove(&folder);
                extract::make(&self.ffmpeg, video, &folder)?;
                read(&paths)
            }
            other => other,
        }
    }
}

/// A cached JPEG as RGB.
fn decode(path: &Path) -> Result<RgbImage, PreviewError> {
    let bytes = std::fs::read(path).map_err(|source| PreviewError::Io { path: path.to_path_buf(), source })?;
    image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map(|i| i.to_rgb8())
        .map_err(|e| PreviewError::Image { path: path.to_path_buf(), message: e.to_string() })
}
