//! Download throughput from the simulator on loopback: reel's downloader (which also hashes and
//! fsyncs) against curl fetching the same file, alternating in one run; then the same file
//! through the binary, `reel download ID` (its whole run: start, attach to the running engine
//! process, download, provenance, journal, exit) against curl's whole run, alternating.
//! Run: `cargo bench --bench download_throughput`.
//!
//! curl's time is its whole run, process start included, as a user would see it; curl's own
//! `time_total` (without the start) is printed too, as the stricter comparison. Rates drift with
//! the machine's load, so each round's ratio is also taken, reel against the curl run beside it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/engine.rs"]
mod engine_process;
#[path = "support/sim.rs"]
mod sim;

use std::process::Command;
use std::time::{Duration, Instant};

use reel_api::{ApiKey, Client, ClientOptions, Status};
use reel_engine::download;
use reel_rules::{Catalog, Draft, UnknownModels, validate};

const ROUNDS: usize = 31;
/// Rounds of `reel download` and curl through their binaries.
const BINARY_ROUNDS: usize = 15;

/// The median and the quartiles around it.
fn spread(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() / 4], v[v.len() * 3 / 4])
}

fn longest() -> reel_rules::ValidSubmission {
    let draft = Draft {
        model: "acme/aurora-2.7/text-to-video".into(),
        prompt: "the longest video the spec allows".into(),
        seconds: Some("150".into()),
        resolution: Some("1080P".into()),
        ratio: Some("16:9".into()),
        ..Draft::default()
    };
    validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
}

/// curl's whole run fetching `url` to `path`: (seconds, bytes).
fn curl(url: &str, path: &std::path::Path) -> (f64, u64) {
    let t = Instant::now();
    let out = Command::new("curl").args(["-s", "-o"]).arg(path).arg(url).output().expect("curl runs");
    let wall = t.elapsed().as_secs_f64();
    assert!(out.status.success());
    (wall, std::fs::metadata(path).expect("curl's file").len())
}

/// curl's whole run, then `sync FILE` (an fsync of it): the same file made as durable as reel
/// makes its own (reel fsyncs before it says "downloaded"): seconds.
fn curl_synced(url: &str, path: &std::path::Path) -> f64 {
    let t = Instant::now();
    let out = Command::new("curl").args(["-s", "-o"]).arg(path).arg(url).output().expect("curl runs");
    assert!(out.status.success());
    let synced = Command::new("sync").arg(path).status().expect("sync runs");
    assert!(synced.success());
    t.elapsed().as_secs_f64()
}

/// `reel download ID` through the binary, against an engine process of its own data folder
/// (default settings: provenance written into the file, previews made after), and curl.
fn binary_rounds(rt: &tokio::runtime::Runtime, base_url: &str) {
    use reel_engine::Event;
    use reel_store::LocalState;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut child = engine_process::start(rt, &data, base_url, "");
    let socket = reel_engine::service::socket_path(&data);
    let attach = || rt.block_on(reel_engine::service::attach_if_running(&socket)).expect("attach").expect("running");
    let (engine, mut events) = attach();
    let engine = reel_engine::Engine::Remote(engine);
    let part = reel_engine::journal::Part { submission: longest(), count: 1, parent: None };
    let task = rt.block_on(async {
        engine.submit_parts(vec![part]).await.expect("submitted");
        loop {
            match tokio::time::timeout(Duration::from_secs(120), events.recv()).await {
                Ok(Some(Event::Task(u))) if u.record.state == LocalState::Downloaded => break u.record,
                Ok(Some(_)) => {}
                other => panic!("not saved: {other:?}"),
            }
        }
    });
    rt.block_on(engine.shutdown());
    let url = task.url.clone().expect("a URL");
    let config = data.with_extension("toml");
    let (mut ratios, mut reel_rates, mut curl_rates) = (Vec::new(), Vec::new(), Vec::new());
    let (mut synced_rates, mut synced_ratios) = (Vec::new(), Vec::new());
    let mut size = 0;
    for round in 0..BINARY_ROUNDS {
        let t = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_reel"))
            .args(["download", &task.id.to_string()])
            .env("REEL_DATA_DIR", &data)
            .env("REEL_CONFIG", &config)
            .env("REEL_BASE_URL", base_url)
            .env("REEL_API_KEY", "sim-key")
            .env_remove("REEL_PROFILE")
            .output()
            .expect("reel download runs");
        let wall = t.elapsed().as_secs_f64();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        size = std::fs::metadata(task.file_path.as_deref().expect("a file")).expect("reel's file").len();
        let (curl_wall, curl_size) = curl(&url, &dir.path().join(format!("curl-{round}.mp4")));
        // reel's file carries its provenance: a little larger than the service's.
        reel_rates.push(curl_size as f64 / wall);
        curl_rates.push(curl_size as f64 / curl_wall);
        ratios.push(curl_wall / wall);
        let synced_wall = curl_synced(&url, &dir.path().join(format!("curl-synced-{round}.mp4")));
        synced_rates.push(curl_size as f64 / synced_wall);
        synced_ratios.push(synced_wall / wall);
    }
    let line = |what: &str, rates: Vec<f64>| {
        let (m, lo, hi) = spread(rates);
        println!("{what:38} median {:4.0} MB/s (quartiles {:.0}-{:.0})", m / 1e6, lo / 1e6, hi / 1e6);
    };
    println!("through the binaries: {BINARY_ROUNDS} rounds each, alternating (reel's file {size} bytes, tagged)");
    line("reel download ID (whole run):", reel_rates);
    line("curl -o (whole run):", curl_rates);
    let (m, lo, hi) = spread(ratios);
    println!("reel download / curl (per round):      {m:.2} (quartiles {lo:.2}-{hi:.2})");
    line("curl -o, then sync FILE (whole run):", synced_rates);
    let (m, lo, hi) = spread(synced_ratios);
    println!("reel download / curl+sync (per round): {m:.2} (quartiles {lo:.2}-{hi:.2})");
    let (engine, _events) = attach();
    rt.block_on(engine.stop(true)).expect("stopped");
    let _ = child.wait();
}

fn main() {
    let sim = sim::start(&["--queue-secs", "0", "--render-min-secs", "0", "--render-max-secs", "0"]);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let client =
            Client::new(&sim.base_url, ApiKey::new("sim-key").expect("key"), ClientOptions::default()).expect("client");
        let valid = longest();
        let queued = client.submit(&reel_engine::journal::request_for(&valid), None).await.expect("submitted");
        let url = loop {
            let t = client.get(&queued.id).await.expect("poll");
            if t.status == Status::Completed {
                break t.url.expect("url");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let source = reel_api::Source::File(url.clone());
        let dir = tempfile::tempdir().expect("tempdir");
        // The simulator renders the file on its first download; that is not what is measured.
        let warm = dir.path().join("warm-up.mp4");
        let expect =
            reel_engine::verify::Expect::any(reel_engine::verify::DEFAULT_MAX_FILE_MB * reel_engine::verify::MB);
        download::fetch(&client, &source, &warm, download::StallRule::default(), &expect, &|_, _| {})
            .await
            .expect("warm-up");
        let (mut reel_rates, mut curl_rates, mut curl_own, mut ratios) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut size = 0;
        for round in 0..ROUNDS {
            let path = dir.path().join(format!("reel-{round}.mp4"));
            let t = Instant::now();
            let saved = download::fetch(&client, &source, &path, download::StallRule::default(), &expect, &|_, _| {})
                .await
                .expect("downloaded");
            reel_rates.push(saved.size as f64 / t.elapsed().as_secs_f64());
            size = saved.size;

            let path = dir.path().join(format!("curl-{round}.mp4"));
            let t = Instant::now();
            let out = Command::new("curl")
                .args(["-s", "-w", "%{time_total}", "-o"])
                .arg(&path)
                .arg(&url)
                .output()
                .expect("curl runs");
            let wall = t.elapsed().as_secs_f64();
            assert!(out.status.success());
            assert_eq!(std::fs::metadata(&path).expect("curl's file").len(), size);
            let own: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("curl's time_total");
            curl_rates.push(size as f64 / wall);
            curl_own.push(size as f64 / own);
            ratios.push(reel_rates[round] / curl_rates[round]);
        }
        let line = |what: &str, rates: Vec<f64>| {
            let (m, lo, hi) = spread(rates);
            println!("{what:38} median {:4.0} MB/s (quartiles {:.0}-{:.0})", m / 1e6, lo / 1e6, hi / 1e6);
        };
        println!("file: {size} bytes, {ROUNDS} rounds each, alternating");
        line("reel (stream, sha256, fsync, rename):", reel_rates.clone());
        line("curl -o (whole run):", curl_rates.clone());
        line("curl -o (its own time_total):", curl_own.clone());
        let (reel, curl, own) = (spread(reel_rates).0, spread(curl_rates).0, spread(curl_own).0);
        println!("reel / curl (medians):                 {:.2}", reel / curl);
        let (m, lo, hi) = spread(ratios);
        println!("reel / curl (per round):               {m:.2} (quartiles {lo:.2}-{hi:.2})");
        println!("reel / curl time_total (medians):      {:.2}", reel / own);
    });
    if std::env::var_os("LIBRARY_ONLY").is_none() {
        binary_rounds(&rt, &sim.base_url);
    }
}
