//! Reads what ffmpeg prints about an input (its length, start and first video stream's size)
//! from the header it writes to standard error. Pure: the text in, plain data out.
//!
//! Only ffmpeg's own lines count: they start with exactly two spaces (`  Duration:`,
//! `  Stream #`), while anything taken from the file (metadata, possibly multi-line) is printed
//! indented further, so a crafted title cannot pose as a header line.

/// What the pictures are made from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoInfo {
    /// Seconds, when the container says.
    pub duration: Option<f64>,
    /// The first timestamp, in seconds (frame times in filters count from here).
    pub start: f64,
    /// Display size: non-square pixels and a ±90° rotation already applied.
    pub width: u32,
    pub height: u32,
}

impl VideoInfo {
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// Larger claims are not believed (16K is the largest size any codec here allows).
const MAX_SIDE: u32 = 16_384;

/// The header of `ffmpeg -i FILE`, or `None` when it names no video stream with a size.
pub fn parse(stderr: &str) -> Option<VideoInfo> {
    let mut duration = None;
    let mut start = 0.0;
    let mut video: Option<(u32, u32)> = None;
    let mut rotated = false;
    let mut in_video = false;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("  Duration: ") {
            if duration.is_none() {
                duration = rest.split(',').next().and_then(clock);
                start =
                    field(rest, "start: ").and_then(|s| s.parse::<f64>().ok()).filter(|s| s.is_finite()).unwrap_or(0.0);
            }
        } else if let Some(rest) = line.strip_prefix("  Stream #") {
            in_video = false;
            if video.is_none()
                && let Some((_, codec)) = rest.split_once(": Video: ")
            {
                video = dimensions(codec);
                in_video = video.is_some();
            }
        } else if in_video && line.starts_with("    ") && rotation_is_quarter(line) {
            rotated = true;
        } else if !line.starts_with("    ") {
            in_video = false;
        }
    }
    let (w, h) = video?;
    let (width, height) = if rotated { (h, w) } else { (w, h) };
    Some(VideoInfo { duration, start, width, height })
}

/// `HH:MM:SS.ss` → seconds; `N/A` → None.
fn clock(text: &str) -> Option<f64> {
    let mut parts = text.trim().split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let secs = h.parse::<f64>().ok()? * 3600.0 + m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

fn field<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let at = text.find(name)? + name.len();
    text[at..].split(',').next().map(str::trim)
}

/// The `1280x720 [SAR 4:3 DAR 16:9]` part of a stream description, as the display size.
fn dimensions(codec: &str) -> Option<(u32, u32)> {
    codec.split(',').map(str::trim).find_map(|part| {
        let mut words = part.split_whitespace();
        let (w, h) = words.next()?.split_once('x')?;
        let (w, h) = (w.parse::<u32>().ok()?, h.parse::<u32>().ok()?);
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            return None;
        }
        let sar = words.skip_while(|&word| word != "[SAR").nth(1).and_then(|r| r.split_once(':'));
        let w = match sar.and_then(|(n, d)| Some((n.parse::<u32>().ok()?, d.parse::<u32>().ok()?))) {
            Some((n, d)) if n > 0 && d > 0 && n != d => {
                (u64::from(w) * u64::from(n) / u64::from(d)).clamp(1, u64::from(MAX_SIDE)) as u32
            }
            _ => w,
        };
        Some((w, h))
    })
}

/// `displaymatrix: rotation of -90.00 degrees`: ffmpeg turns such frames upright, so the
/// pictures come out with width and height swapped.
fn rotation_is_quarter(line: &str) -> bool {
    let Some(rest) = line.trim().strip_prefix("displaymatrix: rotation of ") else { return false };
    let Some(degrees) = rest.split_whitespace().next().and_then(|d| d.parse::<f64>().ok()) else { return false };
    let quarter = (degrees.abs().round() as i64) % 180;
    quarter == 90
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIM: &str = "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from '720p5.mp4':
  Metadata:
    major_brand     : isom
    compatible_brands: isomiso2avc1mp41
  Duration: 00:00:05.00, start: 0.000000, bitrate: 571 kb/s
  Stream #0:0[0x1](und): Video: h264 (Constrained Baseline) (avc1 / 0x31637661), yuv420p(progressive), 1280x720, 569 kb/s, 12 fps, 12 tbr, 12k tbn (default)
    Metadata:
      handler_name    : reel sim video
At least one output file must be specified
";

    const HIGH: &str = "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x.mp4':
  Duration: 00:01:02.50, start: 0.041000, bitrate: 2000 kb/s
  Stream #0:0[0x1](und): Audio: aac (LC) (mp4a / 0x6134706D), 48000 Hz, stereo, fltp, 128 kb/s (default)
  Stream #0:1[0x2](und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709, progressive), 1920x1080 [SAR 1:1 DAR 16:9], 1800 kb/s, 24 fps, 24 tbr, 12288 tbn (default)
";

    const ROTATED: &str = "  Duration: 00:00:03.00, start: 0.000000, bitrate: 9000 kb/s
  Stream #0:0[0x1](eng): Video: hevc (Main) (hvc1 / 0x31637668), yuv420p(tv, bt709), 1920x1080, 9000 kb/s, 30 fps (default)
    Side data:
      displaymatrix: rotation of -90.00 degrees
  Stream #0:1[0x2](eng): Audio: aac (LC), 44100 Hz, mono, fltp (default)
";

    const WEBM: &str = "Input #0, matroska,webm, from 'v.webm':
  Duration: N/A, start: 0.000000, bitrate: N/A
  Stream #0:0: Video: vp9 (Profile 0), yuv420p(tv, progressive), 1440x1080 [SAR 4:3 DAR 16:9], 25 fps, 25 tbr, 1k tbn (default)
";

    const CRAFTED: &str = "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'evil.mp4':
  Metadata:
    title           : x
                    :   Duration: 09:00:00.00, start: 0.000000, bitrate: 1 kb/s
                    :   Stream #0:0: Video: h264, yuv420p, 99x77
  Duration: 00:00:05.00, start: 0.000000, bitrate: 571 kb/s
  Stream #0:0[0x1](und): Video: h264 (Constrained Baseline) (avc1 / 0x31637661), yuv420p(progressive), 1280x720, 569 kb/s
";

    #[test]
    fn reads_length_start_and_display_size() {
        let cases = [
            (SIM, Some(VideoInfo { duration: Some(5.0), start: 0.0, width: 1280, height: 720 })),
            (HIGH, Some(VideoInfo { duration: Some(62.5), start: 0.041, width: 1920, height: 1080 })),
            (ROTATED, Some(VideoInfo { duration: Some(3.0), start: 0.0, width: 1080, height: 1920 })),
            (WEBM, Some(VideoInfo { duration: None, start: 0.0, width: 1920, height: 1080 })),
            (CRAFTED, Some(VideoInfo { duration: Some(5.0), start: 0.0, width: 1280, height: 720 })),
            ("  Stream #0:0: Audio: mp3, 44100 Hz\n", None),
            ("  Stream #0:0: Video: h264, yuv420p, 0x0\n", None),
            ("  Stream #0:0: Video: h264, yuv420p, 99999x10\n", None),
            ("/tmp/x.mp4: Invalid data found when processing input\n", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), want, "{text}");
        }
    }

    #[test]
    fn clock_and_rotation() {
        let clocks = [("00:00:05.00", Some(5.0)), ("01:02:03.5", Some(3723.5)), ("N/A", None), ("1:2", None)];
        for (text, want) in clocks {
            assert_eq!(clock(text), want, "{text}");
        }
        let turns = [("-90.00", true), ("90.00", true), ("270", true), ("180.00", false), ("0", false)];
        for (deg, want) in turns {
            assert_eq!(rotation_is_quarter(&format!("      displaymatrix: rotation of {deg} degrees")), want, "{deg}");
        }
    }
}
