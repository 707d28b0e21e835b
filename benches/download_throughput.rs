//! Download throughput from the simulator on loopback: reel's downloader (which also hashes and
//! fsyncs) against curl fetching the same file, alternating in one run.
//! Run: `cargo bench --bench download_throughput`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/sim.rs"]
mod sim;

use std::process::Command;
use std::time::{Duration, Instant};

use reel::api::{ApiKey, Client, ClientOptions, Status};
use reel::engine::download;
use reel::rules::{Catalog, Draft, UnknownModels, validate};

const ROUNDS: usize = 15;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
        let (mut reel_rates, mut curl_rates) = (Vec::new(), Vec::new());
        let mut size = 0;
        for round in 0..ROUNDS {
            let path = dir.path().join(format!("reel-{round}.mp4"));
            let t = Instant::now();
            let saved = download::fetch(&client, &url, &path, download::StallRule::default(), &|_, _| {})
                .await
                .expect("downloaded");
            reel_rates.push(saved.size as f64 / t.elapsed().as_secs_f64());
            size = saved.size;

            let path = dir.path().join(format!("curl-{round}.mp4"));
            let t = Instant::now();
            let status = Command::new("curl").args(["-s", "-o"]).arg(&path).arg(&url).status().expect("curl runs");
            assert!(status.success());
            curl_rates.push(size as f64 / t.elapsed().as_secs_f64());
        }
        let mb = |r: f64| r / 1e6;
        println!("file: {size} bytes, {ROUNDS} rounds each, alternating");
        println!("reel (stream, sha256, fsync, rename): median {:.0} MB/s", mb(median(reel_rates.clone())));
        println!("curl -o:                              median {:.0} MB/s", mb(median(curl_rates.clone())));
        println!("reel / curl:                          {:.2}", median(reel_rates) / median(curl_rates));
    });
}
