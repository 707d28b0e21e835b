//! A whole clip decoded to frames in memory, for playing several videos on one clock (the
//! compare view): the same ffmpeg decoding as inline playback, read to the end at once instead
//! of paced, so that the caller decides which frame shows when.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;

use image::RgbImage;

use super::{PreviewError, extract, frames, process};

/// The frames of `video` fitted to `width`x`height` pixels (aspect kept, never enlarged) at
/// `fps`, from its start, at most `most` of them. Blocks while ffmpeg decodes: call it off the
/// UI thread.
pub fn decode(
    ffmpeg: &str,
    video: &Path,
    width: u32,
    height: u32,
    fps: u32,
    most: usize,
) -> Result<Vec<RgbImage>, PreviewError> {
    std::fs::File::open(video).map_err(|source| PreviewError::Io { path: video.to_path_buf(), source })?;
    let info = extract::probe(ffmpeg, video)?;
    let size = frames::fit(info.size(), (width, height));
    let mut child = process::spawn(ffmpeg, &frames::play_args(video, size, fps), Stdio::piped())?;
    let (Some(mut stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(process::failed(video, "no output"));
    };
    let complaints = std::thread::spawn(move || process::read_stderr(stderr));
    let frame_len = size.0 as usize * size.1 as usize * 3;
    let mut out = Vec::new();
    while out.len() < most {
        let mut buf = vec![0u8; frame_len];
        if stdout.read_exact(&mut buf).is_err() {
            break;
        }
        match RgbImage::from_raw(size.0, size.1, buf) {
            Some(frame) => out.push(frame),
            None => break,
        }
    }
    // Enough frames: the rest of the video is not wanted.
    let _ = child.kill();
    drop(stdout);
    let _ = child.wait();
    let complaints = complaints.join().unwrap_or_default();
    if out.is_empty() {
        return Err(process::failed(video, &process::last_line(&complaints)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_sim::video::testing::{have_ffmpeg, video as sample};

    #[test]
    fn a_clip_is_every_frame_at_the_rate_asked_up_to_the_most() {
        if !have_ffmpeg() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let video = sample(dir.path());
        let all = decode("ffmpeg", &video, 160, 160, 10, 1000).expect("decoded");
        assert!((19..=21).contains(&all.len()), "2 s at 10 fps: {} frames", all.len());
        assert_eq!((all[0].width(), all[0].height()), (160, 90), "fitted, aspect kept");
        let some = decode("ffmpeg", &video, 160, 160, 10, 5).expect("decoded");
        assert_eq!(some.len(), 5);
        std::fs::write(&video, b"not a video").expect("write");
        assert!(matches!(decode("ffmpeg", &video, 160, 160, 10, 5), Err(PreviewError::Ffmpeg { .. })));
        let gone = dir.path().join("gone.mp4");
        assert!(matches!(decode("ffmpeg", &gone, 160, 160, 10, 5), Err(PreviewError::Io { .. })));
    }
}
