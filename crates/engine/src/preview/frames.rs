//! Pure decisions: which moments of a video to sample, how big each picture is, and the argument
//! lists handed to ffmpeg. Nothing here runs a program or touches the disk.

use std::ffi::OsString;
use std::path::Path;

use super::STRIP;
use super::probe::VideoInfo;

/// The poster fits in this box (pixels), aspect kept, never enlarged.
pub const POSTER_BOX: (u32, u32) = (480, 480);
/// Each strip frame fits in this box.
pub const STRIP_BOX: (u32, u32) = (160, 160);
/// ffmpeg's JPEG quality scale (2 best … 31 worst): small files that still look clean.
const JPEG_QUALITY: &str = "4";
/// Assumed when the container does not say how long the video is.
const UNKNOWN_SECONDS: f64 = 5.0;
/// Longer claims are not believed (a hostile header); sampling stays within reach.
const MAX_SECONDS: f64 = 24.0 * 3600.0;

/// Seconds from the start of the video (its first timestamp) at which to take each picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// A third in: past any fade-in, usually where the subject is.
    pub poster: f64,
    /// At 10 %, 30 %, 50 %, 70 % and 90 %: evenly spread, clear of both ends.
    pub strip: [f64; STRIP],
}

/// Where to sample a video of `duration` seconds. `Some(0.0)` samples the very first frames
/// (the fallback when a file claims more time than it holds).
pub fn moments(duration: Option<f64>) -> Moments {
    let d = match duration {
        Some(d) if d.is_finite() && d >= 0.0 => d.min(MAX_SECONDS),
        _ => UNKNOWN_SECONDS,
    };
    let mut strip = [0.0; STRIP];
    for (i, t) in strip.iter_mut().enumerate() {
        *t = d * (2 * i + 1) as f64 / (2 * STRIP) as f64;
    }
    Moments { poster: d / 3.0, strip }
}

/// The largest size with `source`'s aspect that fits in `bound`, never larger than `source`,
/// both sides even (what encoders and `rgb24` frames want) and at least 2.
pub fn fit(source: (u32, u32), bound: (u32, u32)) -> (u32, u32) {
    let (sw, sh) = (source.0.max(1) as f64, source.1.max(1) as f64);
    let scale = (bound.0 as f64 / sw).min(bound.1 as f64 / sh).min(1.0);
    let even = |v: f64| ((v.round() as u32) & !1).max(2);
    (even(sw * scale), even(sh * scale))
}

/// `file:` keeps a path with a colon from being read as another protocol, and the whitelist
/// refuses everything but files (a playlist or a crafted file cannot make ffmpeg fetch URLs).
fn input(video: &Path) -> [OsString; 4] {
    ["-protocol_whitelist".into(), "file".into(), "-i".into(), file_url(video)]
}

fn file_url(path: &Path) -> OsString {
    let mut s = OsString::from("file:");
    s.push(path.as_os_str());
    s
}

fn os(items: &[&str]) -> Vec<OsString> {
    items.iter().map(OsString::from).collect()
}

/// ffmpeg prints the container's header (duration, streams) and stops: no output is asked for.
pub fn probe_args(video: &Path) -> Vec<OsString> {
    let mut args = os(&["-hide_banner", "-nostdin", "-v", "info"]);
    args.extend(input(video));
    args
}

/// A frame filter expression's number: plain decimal, never exponent notation.
fn num(t: f64) -> String {
    format!("{t:.3}")
}

/// One decoding pass makes all six pictures: a `select` per branch keeps the first frame at or
/// after each moment. (Measured on the simulator's 5 s 720p and 15 s 1080p videos and on x264
/// High files with one key frame: faster and a third of the memory of one seeking input per
/// picture, which decodes from the key frame before each moment six times over.) The strip's
/// frames are renumbered one second apart and written at 1 fps so that no frame is repeated or
/// dropped to fill time, on every ffmpeg version.
pub fn still_args(video: &Path, info: &VideoInfo, at: &Moments, dir: &Path) -> Vec<OsString> {
    let (pw, ph) = fit(info.size(), POSTER_BOX);
    let (sw, sh) = fit(info.size(), STRIP_BOX);
    let start = info.start;
    let strip_select: Vec<String> = at
        .strip
        .iter()
        .map(|t| {
            let t = num(start + t);
            format!("gte(t\\,{t})*(isnan(prev_selected_t)+lt(prev_selected_t\\,{t}))")
        })
        .collect();
    let graph = format!(
        "[0:v:0]split=2[a][b];\
         [a]select='gte(t\\,{poster})',scale={pw}:{ph},setsar=1[p];\
         [b]select='{strip}',settb=1,setpts=N,scale={sw}:{sh},setsar=1[s]",
        poster = num(start + at.poster),
        strip = strip_select.join("+"),
    );
    let mut args = os(&["-hide_banner", "-nostdin", "-v", "error"]);
    args.extend(input(video));
    args.extend(os(&["-filter_complex", &graph]));
    // `-update 1`: one picture under exactly this name, whatever characters the path holds.
    args.extend(os(&["-map", "[p]", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-update", "1", "-y"]));
    args.push(file_url(&dir.join(super::cache::POSTER)));
    args.extend(os(&["-map", "[s]", "-r", "1", "-frames:v", &STRIP.to_string(), "-q:v", JPEG_QUALITY, "-y"]));
    args.push(file_url(&Path::new(&escape_pattern(dir)).join(super::cache::STRIP_PATTERN)));
    args
}

/// Decodes `video` to raw RGB frames of exactly `size` at `fps`, on standard output, no sound.
pub fn play_args(video: &Path, size: (u32, u32), fps: u32) -> Vec<OsString> {
    let filter = format!("fps={},scale={}:{},setsar=1", fps.max(1), size.0, size.1);
    let mut args = os(&["-hide_banner", "-nostdin", "-v", "error"]);
    args.extend(input(video));
    args.extend(os(&["-map", "0:v:0", "-an", "-sn", "-dn", "-vf", &filter, "-f", "rawvideo", "-pix_fmt", "rgb24"]));
    args.push("pipe:1".into());
    args
}

/// Escapes `%` for the image2 muxer, which reads the whole numbered output name as a pattern.
fn escape_pattern(path: &Path) -> OsString {
    let s = path.as_os_str().to_string_lossy();
    if s.contains('%') { OsString::from(s.replace('%', "%%")) } else { path.as_os_str().to_os_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_spread_over_the_video() {
        let cases: [(Option<f64>, f64, [f64; 5]); 6] = [
            (Some(5.0), 5.0 / 3.0, [0.5, 1.5, 2.5, 3.5, 4.5]),
            (Some(15.0), 5.0, [1.5, 4.5, 7.5, 10.5, 13.5]),
            (Some(0.0), 0.0, [0.0; 5]),
            (None, 5.0 / 3.0, [0.5, 1.5, 2.5, 3.5, 4.5]),
            (Some(f64::NAN), 5.0 / 3.0, [0.5, 1.5, 2.5, 3.5, 4.5]),
            (Some(-3.0), 5.0 / 3.0, [0.5, 1.5, 2.5, 3.5, 4.5]),
        ];
        for (duration, poster, strip) in cases {
            let m = moments(duration);
            assert!((m.poster - poster).abs() < 1e-9, "{duration:?}: {m:?}");
            for (a, b) in m.strip.iter().zip(strip) {
                assert!((a - b).abs() < 1e-9, "{duration:?}: {m:?}");
            }
        }
        assert_eq!(moments(Some(1e12)).poster, MAX_SECONDS / 3.0, "absurd lengths are capped");
    }

    #[test]
    fn fit_keeps_aspect_even_and_never_enlarges() {
        let cases = [
            ((1920, 1080), (480, 480), (480, 270)),
            ((1280, 720), (160, 160), (160, 90)),
            ((720, 1280), (480, 480), (270, 480)),
            ((1080, 1080), (160, 160), (160, 160)),
            ((854, 480), (160, 160), (160, 90)),
            ((320, 240), (480, 480), (320, 240)),
            ((321, 241), (480, 480), (320, 240)),
            ((1920, 1080), (80, 48), (80, 44)),
            ((1920, 1080), (1, 1), (2, 2)),
            ((0, 0), (100, 100), (2, 2)),
            ((1920, 1080), (0, 0), (2, 2)),
        ];
        for (source, bound, want) in cases {
            assert_eq!(fit(source, bound), want, "{source:?} in {bound:?}");
        }
    }

    fn text(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn every_run_reads_files_only() {
        let video = Path::new("/v/a:b.mp4");
        let info = VideoInfo { duration: Some(5.0), start: 0.0, width: 1280, height: 720 };
        for args in [
            probe_args(video),
            still_args(video, &info, &moments(Some(5.0)), Path::new("/c")),
            play_args(video, (160, 90), 8),
        ] {
            let args = text(&args);
            let at = args.iter().position(|a| a == "-protocol_whitelist").expect("whitelist");
            assert_eq!(args[at + 1], "file");
            assert_eq!(args[at + 2], "-i");
            assert_eq!(args[at + 3], "file:/v/a:b.mp4");
            assert!(args.contains(&"-nostdin".to_string()));
        }
    }

    #[test]
    fn still_args_name_both_outputs_and_their_sizes() {
        let info = VideoInfo { duration: Some(15.0), start: 1.0, width: 1920, height: 1080 };
        let args = text(&still_args(Path::new("/v.mp4"), &info, &moments(Some(15.0)), Path::new("/c/t")));
        let graph = &args[args.iter().position(|a| a == "-filter_complex").expect("graph") + 1];
        assert!(graph.contains("select='gte(t\\,6.000)',scale=480:270,setsar=1[p]"), "{graph}");
        assert!(graph.contains("gte(t\\,2.500)*(isnan(prev_selected_t)+lt(prev_selected_t\\,2.500))"), "{graph}");
        assert!(graph.contains("settb=1,setpts=N,scale=160:90,setsar=1[s]"), "{graph}");
        assert_eq!(graph.matches("prev_selected_t\\,").count(), 5);
        assert!(args.ends_with(&["-y".into(), "file:/c/t/strip-%d.jpg".into()]), "{args:?}");
        assert!(args.contains(&"file:/c/t/poster.jpg".to_string()));
        assert!(args.windows(2).any(|w| w == ["-frames:v", "5"]));
        assert!(args.windows(2).any(|w| w == ["-r", "1"]));
    }

    #[test]
    fn play_args_stream_raw_rgb_of_the_exact_size() {
        let args = text(&play_args(Path::new("/v.mp4"), (320, 180), 0));
        assert!(args.windows(2).any(|w| w == ["-vf", "fps=1,scale=320:180,setsar=1"]), "{args:?}");
        assert!(args.windows(2).any(|w| w == ["-pix_fmt", "rgb24"]));
        assert!(args.contains(&"-an".to_string()) && !args.contains(&"-re".to_string()));
        assert_eq!(args.last().map(String::as_str), Some("pipe:1"));
    }

    #[test]
    fn percent_signs_are_escaped_for_the_pattern() {
        assert_eq!(escape_pattern(Path::new("/a/100%/x")), OsString::from("/a/100%%/x"));
        assert_eq!(escape_pattern(Path::new("/a/b")), OsString::from("/a/b"));
    }
}
