//! Previews with a real ffmpeg: stills from the simulator's videos (and the codecs providers
//! send), the cache, the inline player, the engine making stills after a download, and
//! `reel show --preview` on the binary. CI installs ffmpeg; without it these tests say so and
//! pass, except in CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{have_tools, sha256_hex};
use reel_engine::preview::play::{Player, frame_size};
use reel_engine::preview::{PreviewError, Previewer, STRIP, StillPaths};
use reel_sim::video::{VideoSpec, render_mp4};

/// True when ffmpeg and ffprobe are here; otherwise the test is skipped (never in CI).
fn ready() -> bool {
    have_tools(&["ffmpeg", "ffprobe"])
}

/// A simulator video written to `dir`: its path and sha256.
fn sim_video(dir: &Path, width: u32, height: u32, seconds: u32, label: &str) -> (PathBuf, String) {
    let bytes = render_mp4(&VideoSpec { width, height, seconds, seed: 11, label: label.into() });
    let path = dir.join(format!("{label}.mp4"));
    std::fs::write(&path, &bytes).expect("write");
    (path, sha256_hex(&bytes))
}

/// The size ffprobe reads from a picture.
fn probe_size(path: &Path) -> (u32, u32) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "json"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(info["streams"][0]["codec_name"], "mjpeg", "{}", path.display());
    let side = |k: &str| info["streams"][0][k].as_u64().expect("size") as u32;
    (side("width"), side("height"))
}

fn previewer(cache: &Path) -> Previewer {
    Previewer::new(cache.to_path_buf(), "ffmpeg".into())
}

#[test]
fn stills_of_the_simulators_videos_have_the_planned_sizes() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("previews");
    let p = previewer(&cache);
    for (w, h, seconds, poster, strip) in [
        (1280, 720, 5, (480, 270), (160, 90)),
        (720, 1280, 4, (270, 480), (90, 160)),
        (1080, 1080, 6, (480, 480), (160, 160)),
        (1920, 1080, 15, (480, 270), (160, 90)),
    ] {
        let (video, hash) = sim_video(dir.path(), w, h, seconds, &format!("v{w}x{h}"));
        let stills = p.stills(&video, &hash).expect("stills");
        assert_eq!(stills.poster.dimensions(), poster, "{w}x{h}");
        assert_eq!(stills.strip.len(), STRIP);
        assert!(stills.strip.iter().all(|s| s.dimensions() == strip), "{w}x{h}");
        let paths = p.cached(&hash).expect("hash").expect("cached");
        assert_eq!(paths.poster, cache.join(&hash[..2]).join(&hash).join("poster.jpg"));
        assert_eq!(probe_size(&paths.poster), poster);
        for s in &paths.strip {
            assert_eq!(probe_size(s), strip);
        }
        // The simulator's bar fills over the video: frames spread over it differ.
        let distinct: std::collections::HashSet<&[u8]> = stills.strip.iter().map(|s| s.as_raw().as_slice()).collect();
        assert_eq!(distinct.len(), STRIP, "{w}x{h}: five different moments");
    }
}

#[test]
fn the_cache_is_made_once_keyed_by_content_and_rebuilt_when_damaged() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("previews");
    let (video, hash) = sim_video(dir.path(), 854, 480, 4, "a");
    let real = previewer(&cache);
    let none = Previewer::new(cache.clone(), "reel-no-such-ffmpeg".into());
    let first = real.stills(&video, &hash).expect("made");

    // Made once: without any ffmpeg, the stills still come, from the cache.
    let again = none.stills(&video, &hash).expect("from the cache");
    assert_eq!(again.poster, first.poster);
    none.ensure(&video, &hash).expect("nothing to do");
    assert_eq!(none.poster(&video, &hash).expect("poster"), first.poster);
    // Even with the video gone (the cache is keyed by content, not by path).
    let moved = dir.path().join("moved.mp4");
    std::fs::rename(&video, &moved).expect("move");
    assert!(none.stills(&video, &hash).is_ok());
    std::fs::rename(&moved, &video).expect("back");

    // Keyed by content: the same picture under another hash is made afresh.
    let other = sha256_hex(b"other bytes");
    assert!(matches!(none.stills(&video, &other), Err(PreviewError::NoFfmpeg { .. })));
    let upper = hash.to_ascii_uppercase();
    assert!(none.stills(&video, &upper).is_ok(), "the hash's case does not matter");

    let paths = StillPaths::of(&cache.join(&hash[..2]).join(&hash));
    // A deleted file: made again (without ffmpeg that fails, which shows it was tried).
    std::fs::remove_file(&paths.strip[2]).expect("delete");
    assert!(matches!(none.ensure(&video, &hash), Err(PreviewError::NoFfmpeg { .. })));
    real.ensure(&video, &hash).expect("rebuilt");
    assert!(paths.strip[2].is_file());
    // A file cut short: made again.
    let bytes = std::fs::read(&paths.poster).expect("poster");
    std::fs::write(&paths.poster, &bytes[..bytes.len() / 2]).expect("truncate");
    assert!(real.cached(&hash).expect("hash").is_none(), "a cut file is no cache");
    let mended = real.stills(&video, &hash).expect("rebuilt");
    assert_eq!(mended.poster.dimensions(), first.poster.dimensions());
    assert_eq!(std::fs::read(&paths.poster).expect("poster").len(), bytes.len());
    // A file whose ends look right but whose middle is garbage: decoding fails, made again.
    let mut garbled = bytes.clone();
    let n = garbled.len();
    garbled[4..n - 2].fill(0);
    std::fs::write(&paths.poster, &garbled).expect("garble");
    assert!(real.poster(&video, &hash).is_ok());
    assert_eq!(std::fs::read(&paths.poster).expect("poster"), bytes, "ffmpeg makes the same picture again");
    // No temporary folders are left behind.
    let left: Vec<_> = std::fs::read_dir(cache.join(&hash[..2])).expect("list").flatten().collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

#[test]
fn what_cannot_be_read_says_why() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let p = previewer(&dir.path().join("previews"));
    let hash = sha256_hex(b"x");
    let garbage = dir.path().join("garbage.mp4");
    std::fs::write(&garbage, b"this is not a video at all").expect("write");
    match p.stills(&garbage, &hash) {
        Err(PreviewError::Ffmpeg { path, message }) => {
            assert_eq!(path, garbage);
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(p.stills(&dir.path().join("gone.mp4"), &hash), Err(PreviewError::Io { .. })));
    assert!(matches!(p.stills(&garbage, "../../etc"), Err(PreviewError::BadHash(_))));
    let none = Previewer::new(dir.path().join("previews"), "reel-no-such-ffmpeg".into());
    let err = none.stills(&garbage, &hash).expect_err("no ffmpeg");
    assert!(matches!(err, PreviewError::NoFfmpeg { ref program } if program == "reel-no-such-ffmpeg"));
    assert!(err.to_string().contains("REEL_FFMPEG"), "{err}");
    assert!(
        dir.path().join("previews").read_dir().map_or(true, |mut d| d
            .all(|e| { e.is_ok_and(|e| std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_none())) })),
        "nothing half-made is left"
    );
}

/// Encodes a short test picture with `encoder`, or None when this ffmpeg lacks it.
fn encode(dir: &Path, encoder: &str, ext: &str) -> Option<PathBuf> {
    let path = dir.join(format!("{encoder}.{ext}"));
    let mut args: Vec<&str> =
        vec!["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=12:duration=2", "-c:v", encoder];
    if encoder == "libaom-av1" {
        args.extend(["-cpu-used", "8", "-row-mt", "1"]);
    }
    let out = Command::new("ffmpeg").args(&args).arg("-y").arg(&path).stdin(Stdio::null()).output().ok()?;
    out.status.success().then_some(path)
}

#[test]
fn stills_come_from_what_providers_send() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let p = previewer(&dir.path().join("previews"));
    let mut tried = Vec::new();
    for (encoder, ext) in
        [("libx264", "mp4"), ("libx265", "mp4"), ("libvpx-vp9", "webm"), ("libsvtav1", "mp4"), ("libaom-av1", "mp4")]
    {
        if encoder == "libaom-av1" && tried.iter().any(|t: &&str| t.contains("av1")) {
            continue;
        }
        let Some(video) = encode(dir.path(), encoder, ext) else {
            eprintln!("{encoder}: this ffmpeg cannot encode it; skipped");
            continue;
        };
        let hash = sha256_hex(&std::fs::read(&video).expect("read"));
        let stills = p.stills(&video, &hash).unwrap_or_else(|e| panic!("{encoder}: {e}"));
        assert_eq!(stills.poster.dimensions(), (320, 180), "{encoder}");
        assert_eq!(stills.strip[0].dimensions(), (160, 90), "{encoder}");
        tried.push(encoder);
    }
    assert!(tried.contains(&"libx264") || std::env::var_os("CI").is_none(), "{tried:?}");
    eprintln!("decoded: {tried:?}");
}

/// Frames received by a player's callback.
#[derive(Default)]
struct Seen {
    count: AtomicUsize,
    sizes: Mutex<Vec<(u32, u32)>>,
}

fn start_player(ffmpeg: &str, video: &Path, seen: &Arc<Seen>) -> Result<Player, PreviewError> {
    let s = Arc::clone(seen);
    Player::start(
        ffmpeg,
        video,
        160,
        96,
        12,
        Box::new(move |frame| {
            s.sizes.lock().expect("lock").push(frame.dimensions());
            s.count.fetch_add(1, Ordering::SeqCst);
        }),
    )
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_player_delivers_frames_of_the_computed_size_loops_pauses_and_stops() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // One second at 12 fps: 12 frames a pass, so 30 frames mean it looped.
    let (video, _) = sim_video(dir.path(), 1280, 720, 1, "play");
    let seen = Arc::new(Seen::default());
    let player = start_player("ffmpeg", &video, &seen).expect("plays");
    let count = || seen.count.load(Ordering::SeqCst);
    wait_for("looped frames", Duration::from_secs(30), || count() >= 30);
    assert_eq!(player.frame_size(), Some(frame_size((1280, 720), 160, 96)));
    assert!(seen.sizes.lock().expect("lock").iter().all(|&s| s == (160, 90)));
    assert_eq!(player.failure(), None);

    player.set_paused(true);
    assert!(player.paused());
    // A frame may be on its way to the callback as the pause lands; after that, none.
    std::thread::sleep(Duration::from_millis(200));
    let held = count();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count(), held, "no frames while paused");
    player.set_paused(false);
    wait_for("frames after resuming", Duration::from_secs(30), || count() > held + 3);

    // Dropping (even while paused) stops ffmpeg and the thread: no frame comes after.
    player.set_paused(true);
    drop(player);
    let after = count();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(), after, "stopped");
}

#[test]
fn the_player_reports_what_it_cannot_play() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let seen = Arc::new(Seen::default());
    let (video, _) = sim_video(dir.path(), 640, 360, 1, "p");
    assert!(matches!(start_player("reel-no-such-ffmpeg", &video, &seen), Err(PreviewError::NoFfmpeg { .. })));
    assert!(matches!(start_player("ffmpeg", &dir.path().join("gone.mp4"), &seen), Err(PreviewError::Io { .. })));
    let garbage = dir.path().join("garbage.mp4");
    std::fs::write(&garbage, b"not a video").expect("write");
    let player = start_player("ffmpeg", &garbage, &seen).expect("starts");
    wait_for("a failure", Duration::from_secs(30), || player.failure().is_some());
    assert_eq!(seen.count.load(Ordering::SeqCst), 0);
}
