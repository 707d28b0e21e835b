//! Download throughput from the simulator on loopback: reel's downloader (which also hashes and
//! fsyncs) against curl fetching the same file, alternating in one run.
//! Run: `cargo bench --bench download_throughput`.
//!
//! curl's time is its whole run, process start included, as a user would see it; curl's own
//! `time_total` (without the start) is printed too, as the stricter comparison. Rates drift with
//! the machine's load, so each round's ratio is also taken, reel against the curl run beside it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/sim.rs"]
mod sim;

use std::process::Command;
use std::time::{Duration, Instant};

use reel::api::{ApiKey, Client, ClientOptions, Status};
use reel::engine::download;
use reel::rules::{Catalog, Draft, UnknownModels, validate};

const ROUNDS: usize = 31;

/// The median and the quartiles around it.
fn spread(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() / 4], v[v.len() * 3 / 4])
}

fn main() {
    let sim = sim::start(&["--queue-secs", "0", "--render-min-secs", "0", "--render-max-secs", "0"]);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let client =
            Client::new(&sim.base_url, ApiKey::new("sim-key").expect("key"), ClientOptions::default()).expect("client");
        let draft = Draft {
            model: "acme/aurora-2.7/text-to-video".into(),
            prompt: "the longest video the spec allows".into(),
            seconds: Some("150".into()),
            resolution: Some("1080P".into()),
            ratio: Some("16:9".into()),
            ..Draft::default()
        };
        let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
        let queued = client.submit(&reel::engine::journal::request_for(&valid), None).await.expect("submitted");
        let url = loop {
            let t = client.get(&queued.id).await.expect("poll");
            if t.status == Status::Completed {
                break t.url.expect("url");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        // The simulator renders the file on its first download; that is not what is measured.
        let warm = dir.path().join("warm-up.mp4");
        let expect =
            reel::engine::verify::Expect::any(reel::engine::verify::DEFAULT_MAX_FILE_MB * reel::engine::verify::MB);
        download::fetch(&client, &url, &warm, download::StallRule::default(), &expect, &|_, _| {})
            .await
            .expect("warm-up");
        let (mut reel_rates, mut curl_rates, mut curl_own, mut ratios) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut size = 0;
        for round in 0..ROUNDS {
            let path = dir.path().join(format!("reel-{round}.mp4"));
            let t = Instant::now();
            let saved = download::fetch(&client, &url, &path, download::StallRule::default(), &expect, &|_, _| {})
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
}
