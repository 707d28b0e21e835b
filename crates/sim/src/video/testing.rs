//! For the tests (of every crate) that run ffmpeg: whether it is here, and a short video to read.
#![allow(clippy::expect_used, reason = "test helpers fail loudly on purpose")]

use std::path::{Path, PathBuf};

use super::{VideoSpec, render_mp4};

/// Whether ffmpeg runs here; a test without it says so and is skipped (CI must have it).
pub fn have_ffmpeg() -> bool {
    let ok = std::process::Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
    assert!(ok || std::env::var_os("CI").is_none(), "CI must install ffmpeg (see .ci/run)");
    if !ok {
        eprintln!("skipped: ffmpeg is not installed");
    }
    ok
}

/// A 2 s 320x180 video of the simulator's, written in `dir`.
pub fn video(dir: &Path) -> PathBuf {
    let video = dir.join("v.mp4");
    let spec = VideoSpec { width: 320, height: 180, seconds: 2, seed: 1, label: "t".into() };
    std::fs::write(&video, render_mp4(&spec)).expect("video");
    video
}
