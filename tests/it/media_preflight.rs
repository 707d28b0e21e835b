//! The preflight of reference media against the simulator on 127.0.0.1: each failure, the
//! ranged GET where HEAD is refused, durations by ffprobe and by the headers, and `reel submit`
//! (measured durations for the 15 s totals and billing, `--no-preflight`).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use reel_engine::media::preflight::{self, Checked, Item, Options, PreflightError, Reason};
use reel_engine::media::sniff::Sort;
use reel_engine::media::verdict::Source;
use reel_rules::MediaKind::{self, *};
use reel_sim::{Hostile, SimHandle};
use serde_json::Value;
use tokio::process::Command;

fn item(index: usize, kind: MediaKind, url: String) -> Item {
    Item { index, kind, url, stated: None }
}

fn without_ffprobe() -> Options {
    Options { ffprobe: None, ..Options::default() }
}

async fn check(items: &[Item], options: &Options) -> Vec<Result<Checked, PreflightError>> {
    preflight::check(&preflight::client().expect("client"), items, options).await
}

async fn hostile_sim(hostile: Hostile) -> SimHandle {
    let sim = start(fast_config()).await;
    sim.set_hostile(hostile);
    sim
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn ffprobe_installed() -> bool {
    std::process::Command::new("ffprobe").arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

#[tokio::test]
async fn each_failure_names_the_item_and_the_reason() {
    let sim = start(fast_config()).await;
    let wrong = hostile_sim(Hostile { media_wrong_type: true, ..Hostile::default() }).await;
    let base = sim.base_url();
    let items = [
        item(0, ReferenceImage, format!("{base}/media/a.png")),
        item(1, ReferenceImage, format!("http://127.0.0.1:{}/media/a.png", closed_port())),
        item(2, ReferenceVideo, format!("{base}/media/missing.gif")),
        item(3, ReferenceVideo, format!("{}/media/v.mp4?seconds=4", wrong.base_url())),
        item(4, ReferenceAudio, format!("{base}/media/v.mp4?seconds=4")),
    ];
    let results = check(&items, &without_ffprobe()).await;
    assert!(results[0].is_ok(), "{:?}", results[0]);
    let reasons: Vec<Option<Reason>> = results.iter().map(|r| r.as_ref().err().map(|e| e.reason.clone())).collect();
    assert!(
        matches!(&reasons[1], Some(Reason::Unreachable(why)) if why.to_lowercase().contains("refused")),
        "{reasons:?}"
    );
    assert_eq!(reasons[2], Some(Reason::NotFound(404)));
    assert_eq!(reasons[3], Some(Reason::WrongType { got: "image/png".into(), want: Sort::Video }));
    assert_eq!(reasons[4], Some(Reason::WrongType { got: "video/mp4".into(), want: Sort::Audio }));
    let message = results[3].as_ref().expect_err("refused").to_string();
    assert_eq!(
        message,
        format!(
            "media item 4 (reference video) {}/media/v.mp4?seconds=4: the server says it is image/png, not a video",
            wrong.base_url()
        )
    );
}

#[tokio::test]
async fn a_server_that_stalls_is_given_up_on() {
    let sim =
        hostile_sim(Hostile { media_slow: true, slow_bytes_every: Duration::from_secs(1), ..Hostile::default() }).await;
    let items = [item(0, ReferenceImage, format!("{}/media/a.png", sim.base_url()))];
    let options = Options { timeout: Duration::from_millis(300), ..without_ffprobe() };
    let results = check(&items, &options).await;
    assert!(matches!(results[0].as_ref().map_err(|e| &e.reason), Err(Reason::TimedOut(_))), "{results:?}");
}

#[tokio::test]
async fn a_server_that_ignores_ranges_leaves_a_late_index_unknown() {
    let sim = hostile_sim(Hostile {
        media_moov_last: true,
        media_octet_stream: true,
        range_ignored: reel_sim::Trigger::Always,
        ..Hostile::default()
    })
    .await;
    let items = [item(0, ReferenceVideo, format!("{}/media/v.mp4?seconds=120", sim.base_url()))];
    let results = check(&items, &without_ffprobe()).await;
    let c = results[0].as_ref().expect("the type is known by the first bytes");
    assert_eq!((c.duration, c.source), (None, None), "unknown, never zero");
    assert!(c.to_string().contains("duration unknown"), "{c}");
    let gets = sim.requests().iter().filter(|r| r.method == "GET").count();
    assert_eq!(gets, 2, "the start, then one more window, whose 200 shows that ranges are ignored");
}

#[tokio::test]
async fn a_refused_head_falls_back_to_a_ranged_get() {
    let sim = hostile_sim(Hostile { media_head_405: true, ..Hostile::default() }).await;
    let base = sim.base_url();
    let items = [
        item(0, FirstFrame, format!("{base}/media/f.png")),
        item(1, ReferenceAudio, format!("{base}/media/s.wav?seconds=3")),
    ];
    let results = check(&items, &without_ffprobe()).await;
    let png = results[0].as_ref().expect("the image passes");
    assert_eq!((png.format.as_str(), png.size), ("image/png", Some(reel_sim::MEDIA_PNG.len() as u64)));
    let wav = results[1].as_ref().expect("the audio passes");
    assert_eq!((wav.size, wav.duration, wav.source), (Some(44 + 24_000), Some(3.0), Some(Source::WavHeader)));
    let methods: Vec<(String, u16)> =
        sim.requests().iter().filter(|r| r.path.contains("f.png")).map(|r| (r.method.clone(), r.status)).collect();
    assert_eq!(methods, [("HEAD".to_string(), 405), ("GET".to_string(), 206)]);
}

#[tokio::test]
async fn without_a_content_type_the_first_bytes_decide() {
    for hostile in [
        Hostile { media_octet_stream: true, ..Hostile::default() },
        Hostile { media_untyped: true, ..Hostile::default() },
    ] {
        let sim = hostile_sim(hostile).await;
        let base = sim.base_url();
        let items = [
            item(0, ReferenceImage, format!("{base}/media/a.png")),
            item(1, ReferenceVideo, format!("{base}/media/v.mp4?seconds=6")),
            item(2, ReferenceVideo, format!("{base}/media/a.png")),
        ];
        let results = check(&items, &without_ffprobe()).await;
        let image = results[0].as_ref().expect("a PNG is an image");
        assert!(image.format.ends_with("by its first bytes a PNG image"), "{}", image.format);
        let video = results[1].as_ref().expect("an MP4 is a video");
        assert_eq!((video.duration, video.source), (Some(6.0), Some(Source::Mp4Header)));
        let refused = results[2].as_ref().expect_err("a PNG is not a video");
        assert!(
            matches!(refused.reason, Reason::WrongContent { got: "a PNG image", want: Sort::Video, .. }),
            "{refused}"
        );
    }
}

#[tokio::test]
async fn durations_from_the_headers_without_ffprobe() {
    let sim = start(fast_config()).await;
    let moov_last = hostile_sim(Hostile { media_moov_last: true, ..Hostile::default() }).await;
    let base = sim.base_url();
    let items = [
        item(0, ReferenceVideo, format!("{base}/media/v.mp4?seconds=7")),
        item(1, ReferenceAudio, format!("{base}/media/s.wav?seconds=4")),
        item(2, ReferenceVideo, format!("{}/media/v.mp4?seconds=120", moov_last.base_url())),
    ];
    for options in [without_ffprobe(), Options { ffprobe: Some("reel-no-such-ffprobe".into()), ..Options::default() }] {
        let results = check(&items, &options).await;
        let got: Vec<(Option<f64>, Option<Source>)> =
            results.iter().map(|r| r.as_ref().map(|c| (c.duration, c.source)).expect("passes")).collect();
        assert_eq!(
            got,
            [
                (Some(7.0), Some(Source::Mp4Header)),
                (Some(4.0), Some(Source::WavHeader)),
                (Some(120.0), Some(Source::Mp4Header))
            ]
        );
    }
    // The index at the end was found by ranged GETs, never by reading the whole file.
    let gets: Vec<String> =
        moov_last.requests().iter().filter(|r| r.method == "GET").map(|r| r.status.to_string()).collect();
    assert!(!gets.is_empty() && gets.iter().all(|s| s == "206"), "{gets:?}");
    let size = results_size(&moov_last).await;
    assert!(size > 2 * preflight::WINDOW, "the file ({size} B) is larger than what was read");
}

async fn results_size(sim: &SimHandle) -> u64 {
    let r = preflight::client()
        .expect("client")
        .head(format!("{}/media/v.mp4?seconds=120", sim.base_url()))
        .send()
        .await
        .expect("HEAD");
    let length = r.headers().get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    length.unwrap_or_default()
}

#[tokio::test]
async fn durations_from_ffprobe() {
    if !ffprobe_installed() {
        eprintln!("ffprobe is not installed: skipped (CI installs ffmpeg)");
        return;
    }
    let sim = start(fast_config()).await;
    let moov_last = hostile_sim(Hostile { media_moov_last: true, ..Hostile::default() }).await;
    let items = [
        item(0, ReferenceVideo, format!("{}/media/v.mp4?seconds=8", sim.base_url())),
        item(1, ReferenceAudio, format!("{}/media/s.wav?seconds=3", sim.base_url())),
        item(2, ReferenceVideo, format!("{}/media/v.mp4?seconds=9", moov_last.base_url())),
    ];
    let results = check(&items, &Options::default()).await;
    for (r, want) in results.iter().zip([8.0, 3.0, 9.0]) {
        let c = r.as_ref().expect("passes");
        assert_eq!(c.source, Some(Source::Ffprobe), "{c}");
        assert!((c.duration.expect("measured") - want).abs() < 0.05, "{c}");
    }
}

// `reel submit`: the real binary.

struct Env {
    _dir: tempfile::TempDir,
    data: std::path::PathBuf,
    config: std::path::PathBuf,
}

fn env() -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    std::fs::write(&config, "[engine]\nrequests_per_second = 50\nfirst_poll_secs = 0.2\nidle_exit_secs = 1\n")
        .expect("config");
    Env { _dir: dir, data, config }
}

const MODEL: &str = "acme/aurora-3.0/reference-to-video-global";

async fn submit(env: &Env, sim: &SimHandle, extra: &[&str]) -> (i32, Value, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
    c.args(["--no-service", "submit", "--model", MODEL, "--prompt", "video 1 and video 2", "--seconds", "5", "--json"])
        .args(extra)
        .env("REEL_BASE_URL", sim.base_url())
        .env("REEL_API_KEY", sim.api_key())
        .env("REEL_DATA_DIR", &env.data)
        .env("REEL_CONFIG", &env.config)
        .stdin(Stdio::null());
    let out = tokio::time::timeout(Duration::from_secs(60), c.output()).await.expect("within a minute").expect("runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn posts(sim: &SimHandle) -> usize {
    sim.requests().iter().filter(|r| r.method == "POST").count()
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_refuses_totals_over_15_s_as_measured() {
    let sim = start(fast_config()).await;
    let env = env();
    let video = format!("reference_video={}/media/v.mp4?seconds=8@5", sim.base_url());
    let (code, _, err) = submit(&env, &sim, &["--media", &video, "--media", &video]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("reference_video items total 16 s; at most 15 s"), "{err}");
    assert!(err.contains("stated 5 s, the measured one counts"), "{err}");
    assert_eq!(posts(&sim), 0, "nothing was sent");
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_bills_measured_seconds() {
    let sim = start(fast_config()).await;
    let env = env();
    let video = format!("reference_video={}/media/v.mp4?seconds=8@5", sim.base_url());
    let image = format!("reference_image={}/media/a.png", sim.base_url());
    let (code, tasks, err) = submit(&env, &sim, &["--media", &video, "--media", &image]).await;
    assert_eq!(code, 0, "{err}");
    let task = &tasks[0];
    assert_eq!(task["billed_seconds"].as_f64(), Some(13.0), "5 s out + 8 s measured: {task}");
    assert_eq!(task["media"][0]["seconds"].as_f64(), Some(8.0), "{task}");
    assert_eq!(posts(&sim), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_lists_every_failing_item_and_sends_nothing() {
    let sim = start(fast_config()).await;
    let env = env();
    let base = sim.base_url();
    let gone = format!("reference_image={base}/media/gone.gif");
    let wrong = format!("reference_video={base}/media/a.png");
    let fine = format!("reference_image={base}/media/a.png");
    let (code, _, err) = submit(&env, &sim, &["--media", &gone, "--media", &wrong, "--media", &fine]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("media item 1 (reference image)") && err.contains("no such file (404)"), "{err}");
    assert!(err.contains("media item 2 (reference video)") && err.contains("image/png, not a video"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert_eq!(posts(&sim), 0);

    let media_checks = |sim: &SimHandle| sim.requests().iter().filter(|r| r.path.starts_with("/media/")).count();
    let before = media_checks(&sim);
    let (code, tasks, err) = submit(&env, &sim, &["--no-preflight", "--media", &gone, "--media", &fine]).await;
    assert_eq!(code, 0, "--no-preflight sends without checks: {err}");
    assert_eq!(tasks.as_array().map(Vec::len), Some(1));
    assert_eq!(posts(&sim), 1);
    assert_eq!(media_checks(&sim), before, "no media was checked");
}
