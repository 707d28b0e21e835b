//! Inline playback: an ffmpeg child decodes the video to raw RGB frames of a given size at a
//! modest frame rate; a reader thread paces them and hands each to a callback.
//!
//! CONTRACT (filled in by the preview-core branch).

use std::path::Path;

use image::RgbImage;

use super::PreviewError;

/// A playing video. Dropping it stops ffmpeg and the reader thread.
#[derive(Debug)]
pub struct Player {}

impl Player {
    /// Starts playing `video` scaled to fit `width`x`height` pixels (aspect kept) at `fps`,
    /// looping at the end. `on_frame` runs on the reader thread for each frame, in time.
    pub fn start(
        ffmpeg: &str,
        video: &Path,
        width: u32,
        height: u32,
        fps: u32,
        on_frame: Box<dyn Fn(RgbImage) + Send>,
    ) -> Result<Player, PreviewError> {
        let _ = (ffmpeg, video, width, height, fps, on_frame);
        todo!("preview-core")
    }

    /// Pauses (no frames, ffmpeg held back by the pipe) or resumes.
    pub fn set_paused(&self, paused: bool) {
        let _ = paused;
        todo!("preview-core")
    }

    pub fn paused(&self) -> bool {
        todo!("preview-core")
    }
}
