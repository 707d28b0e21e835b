//! Previews wired in: the engine makes the stills of each file it saves, and `reel show
//! --preview` prints the poster (half blocks when not on a terminal) or says why it cannot.
//! CI installs ffmpeg; without it these tests say so and pass, except in CI.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use reel_engine::preview::Previewer;
use reel_engine::{Engine, EngineConfig, Event, PollPolicy};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_sim::video::{VideoSpec, render_mp4};
use reel_store::fixtures::new_task;
use reel_store::{LocalState, Store, open_writer, tasks};

fn ready() -> bool {
    have_tools(&["ffmpeg"])
}

#[tokio::test]
async fn the_engine_makes_stills_of_each_file_it_saves() {
    if !ready() {
        return;
    }
    let sim = start(fast_config()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("reel.db")).expect("store");
    let previews = Previewer::new(dir.path().join("previews"), "ffmpeg".into());
    let mut config = EngineConfig::new(dir.path().join("videos"));
    config.policy = PollPolicy {
        first_poll: Duration::from_millis(100),
        base: Duration::from_millis(100),
        max: Duration::from_millis(400),
        slow: Duration::from_millis(400),
        ..PollPolicy::default()
    };
    config.previews = Some(previews.clone());
    let (engine, mut events) = Engine::start(config, client_for(&sim), store).await.expect("engine");
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a lighthouse at dusk".into(),
        seconds: Some("4".into()),
        resolution: Some("720P".into()),
        ratio: Some("16:9".into()),
        ..Draft::default()
    };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
    let ids: Vec<i64> = engine.submit(valid, 2, None).await.expect("submitted").iter().map(|r| r.id).collect();

    let mut saved = std::collections::HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while saved.len() < ids.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Some(Event::Task(u))) if u.record.state == LocalState::Downloaded => {
                saved.insert(u.record.id, u.record.sha256.clone().expect("hash"));
            }
            Ok(Some(_)) => {}
            other => panic!("not downloaded: {other:?}"),
        }
    }
    // The stills follow on their own, off the engine's threads; nobody asked for them.
    for hash in saved.values() {
        let deadline = Instant::now() + Duration::from_secs(60);
        while previews.cached(hash).expect("hash").is_none() {
            assert!(Instant::now() < deadline, "no stills for {hash}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let paths = previews.cached(hash).expect("hash").expect("cached");
        let poster = image::open(&paths.poster).expect("a picture");
        assert_eq!((poster.width(), poster.height()), (480, 270));
    }
    engine.shutdown().await;
}

/// A data folder with one downloaded task whose file is a simulator video.
struct Data {
    dir: tempfile::TempDir,
    sha: String,
}

impl Data {
    fn new() -> Data {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("config.toml"), "[engine]\nidle_exit_secs = 1\n").expect("config");
        let bytes = render_mp4(&VideoSpec { width: 1280, height: 720, seconds: 3, seed: 5, label: "show".into() });
        let video = dir.path().join("videos").join("1-show.mp4");
        std::fs::create_dir_all(video.parent().expect("folder")).expect("videos");
        std::fs::write(&video, &bytes).expect("video");
        let conn = open_writer(&dir.path().join("reel.db")).expect("db");
        let mut t = tasks::insert(&conn, &new_task("a red fox")).expect("insert");
        t.state = LocalState::Downloaded;
        t.file_path = Some(video.to_string_lossy().into_owned());
        t.file_size = Some(bytes.len() as i64);
        t.sha256 = Some(sha256_hex(&bytes));
        tasks::save(&conn, &t).expect("save");
        let waiting = tasks::insert(&conn, &new_task("not yet")).expect("insert");
        assert_eq!((t.id, waiting.id), (1, 2));
        Data { sha: sha256_hex(&bytes), dir }
    }

    fn run(&self, args: &[&str], ffmpeg: &str) -> Output {
        self.run_with(args, ffmpeg, None)
    }

    /// [`Data::run`] with `NO_COLOR` set to `no_color`, or unset.
    fn run_with(&self, args: &[&str], ffmpeg: &str, no_color: Option<&str>) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reel"));
        match no_color {
            Some(v) => command.env("NO_COLOR", v),
            None => command.env_remove("NO_COLOR"),
        };
        command
            .args(args)
            .env("REEL_DATA_DIR", self.dir.path())
            .env("REEL_CONFIG", self.dir.path().join("config.toml"))
            .env("REEL_FFMPEG", ffmpeg)
            .env_remove("REEL_API_KEY")
            .env_remove("REEL_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("runs")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

#[test]
fn show_preview_prints_the_poster_in_half_blocks() {
    if !ready() {
        return;
    }
    let data = Data::new();
    let out = data.run(&["show", "1", "--preview"], "ffmpeg");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("Task 1 "), "the usual text first: {stdout}");
    assert!(stdout.contains('▀') || stdout.contains('▄'), "{stdout}");
    assert!(stdout.contains("\x1b[38;2;"), "24-bit colour");
    let picture: Vec<&str> = stdout.lines().filter(|l| l.contains("\x1b[")).collect();
    assert!(!picture.is_empty() && picture.len() <= 20, "{} rows", picture.len());
    assert!(picture.iter().all(|l| l.ends_with("\x1b[0m")), "each row resets its colours");
    let folder = data.dir.path().join("previews").join(&data.sha[..2]).join(&data.sha);
    assert!(folder.join("poster.jpg").is_file(), "cached in the data folder");

    let json = data.run(&["show", "1", "--preview", "--json"], "ffmpeg");
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["preview"]["poster"], folder.join("poster.jpg").to_string_lossy().as_ref());
    assert_eq!(v["preview"]["strip"].as_array().map(Vec::len), Some(5));
    assert!(v["task"]["id"] == 1 && v.get("preview_unavailable").is_none());
}

#[test]
fn show_preview_under_no_color_names_the_poster_and_writes_no_colour() {
    if !ready() {
        return;
    }
    let data = Data::new();
    let out = data.run_with(&["show", "1", "--preview"], "ffmpeg", Some("1"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains('\x1b'), "no escape at all under NO_COLOR: {stdout:?}");
    let poster = data.dir.path().join("previews").join(&data.sha[..2]).join(&data.sha).join("poster.jpg");
    let line = stdout.lines().last().expect("a line");
    assert_eq!(line, format!("Preview: {} (not drawn: NO_COLOR is set)", poster.display()));
    assert!(poster.is_file(), "made, and named");
}

#[test]
fn show_preview_without_ffmpeg_or_a_file_says_why_and_succeeds() {
    let data = Data::new();
    let out = data.run(&["show", "1", "--preview"], "reel-no-such-ffmpeg");
    assert!(out.status.success(), "the exit code does not depend on the preview");
    let stdout = text(&out.stdout);
    let line = stdout.lines().last().expect("a line");
    assert!(line.starts_with("No preview: previews need ffmpeg") && line.contains("REEL_FFMPEG"), "{line}");
    assert!(!stdout.contains('\x1b'), "{stdout}");

    let waiting = data.run(&["show", "2", "--preview"], "reel-no-such-ffmpeg");
    assert!(waiting.status.success());
    let stdout = text(&waiting.stdout);
    assert!(stdout.lines().last().is_some_and(|l| l.contains("no saved video yet") && l.contains("once it is saved")));

    let json = data.run(&["show", "1", "--preview", "--json"], "reel-no-such-ffmpeg");
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert!(v["preview"].is_null());
    assert!(v["preview_unavailable"].as_str().is_some_and(|w| w.contains("ffmpeg")), "{v}");

    let plain = data.run(&["show", "1"], "reel-no-such-ffmpeg");
    assert!(!text(&plain.stdout).contains("preview"), "no preview unless asked");
    assert!(!Path::new(&data.dir.path().join("previews")).exists());
}
