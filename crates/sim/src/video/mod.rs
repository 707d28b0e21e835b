//! Result videos of the simulator: real, playable MP4 files made in-process.

mod bits;
mod h264;
mod mp4;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use reel_rules::{Ratio, Resolution};

/// Frames per second of simulated videos: enough for the bar to move smoothly, cheap to serve.
pub const FPS: u32 = 12;

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoSpec {
    pub width: u32,
    pub height: u32,
    pub seconds: u32,
    /// Tints the picture; derive it from the task so tasks look different.
    pub seed: u64,
    /// Stored in the file (the task id), so that every task's file has its own bytes.
    pub label: String,
}

/// Frame size for a resolution and ratio: the short side has the resolution's lines, both even.
pub fn dimensions(resolution: Resolution, ratio: Ratio) -> (u32, u32) {
    let lines = resolution.lines();
    let (a, b) = ratio.proportions();
    let long = |short: u32, num: u32, den: u32| ((short * num + den / 2) / den + 1) & !1;
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => (long(lines, a, b), lines),
        std::cmp::Ordering::Less => (lines, long(lines, b, a)),
        std::cmp::Ordering::Equal => (lines, lines),
    }
}

fn with_length(nal: Vec<u8>) -> Vec<u8> {
    let mut out = (nal.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&nal);
    out
}

/// Renders the whole MP4 file. One key frame per second; the bar fills over the length.
pub fn render_mp4(spec: &VideoSpec) -> Vec<u8> {
    let picture = h264::Picture {
        width: spec.width.max(16) & !1,
        height: spec.height.max(16) & !1,
        hue: (spec.seed % 628) as f32 / 100.0,
    };
    let frames = spec.seconds.max(1) * FPS;
    let columns = picture.mbs_wide();
    let filled = |frame: u32| ((u64::from(frame) + 1) * u64::from(columns) / u64::from(frames)) as u32;
    let mut samples = Vec::with_capacity(frames as usize);
    let mut sync = Vec::new();
    let mut since_key = 0;
    for frame in 0..frames {
        if frame % FPS == 0 {
            sync.push(frame);
            since_key = 0;
            samples.push(with_length(h264::idr(&picture, (frame / FPS) % 2, filled(frame))));
        } else {
            since_key += 1;
            let from = filled(frame - 1);
            samples.push(with_length(h264::p_frame(&picture, since_key, from, filled(frame))));
        }
    }
    let (sps, pps) = (h264::sps(&picture, FPS), h264::pps());
    mp4::write(&mp4::Track {
        width: picture.width,
        height: picture.height,
        fps: FPS,
        sps: &sps,
        pps: &pps,
        samples: &samples,
        sync: &sync,
        label: &spec.label,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_follow_ratio_and_resolution() {
        let cases = [
            (Resolution::P720, Ratio::Wide, (1280, 720)),
            (Resolution::P1080, Ratio::Tall, (1080, 1920)),
            (Resolution::P480, Ratio::Wide, (854, 480)),
            (Resolution::P720, Ratio::Square, (720, 720)),
            (Resolution::P720, Ratio::Classic, (960, 720)),
            (Resolution::P1080, Ratio::Portrait, (1080, 1440)),
            (Resolution::P480, Ratio::Adaptive, (854, 480)),
        ];
        for (res, ratio, want) in cases {
            assert_eq!(dimensions(res, ratio), want, "{res} {ratio}");
        }
    }

    #[test]
    fn size_grows_with_seconds_and_resolution_and_stays_small() {
        let size = |res, secs| {
            let (width, height) = dimensions(res, Ratio::Wide);
            render_mp4(&VideoSpec { width, height, seconds: secs, seed: 1, label: "t".into() }).len()
        };
        assert!(size(Resolution::P720, 10) > size(Resolution::P720, 5));
        assert!(size(Resolution::P1080, 5) > size(Resolution::P720, 5));
        assert!(size(Resolution::P720, 5) > size(Resolution::P480, 5));
        assert!(size(Resolution::P1080, 30) < 4 * 1024 * 1024, "a few MB at most");
    }

    #[test]
    fn files_start_like_mp4_and_differ_by_label() {
        let spec = VideoSpec { width: 320, height: 240, seconds: 2, seed: 3, label: "task_a".into() };
        let a = render_mp4(&spec);
        assert_eq!(&a[4..8], b"ftyp");
        let b = render_mp4(&VideoSpec { label: "task_b".into(), ..spec });
        assert_ne!(a, b);
        assert_eq!(a.len(), b.len());
    }
}
