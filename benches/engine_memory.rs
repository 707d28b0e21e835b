//! Resident memory of the engine with 10,000 tasks in flight. The simulator runs as its own
//! process so only reel is measured. Run: `cargo bench --bench engine_memory`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/sim.rs"]
mod sim;

use std::time::{Duration, Instant};

use reel_api::{ApiKey, Client, ClientOptions};
use reel_engine::{Engine, EngineConfig, Event};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_store::{LocalState, Store};

const TASKS: u32 = 10_000;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn main() {
    let sim = sim::start(&["--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000"]);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("reel.db")).expect("store");
        let client =
            Client::new(&sim.base_url, ApiKey::new("sim-key").expect("key"), ClientOptions::default()).expect("client");
        let mut config = EngineConfig::new(dir.path().join("videos"));
        config.policy.budget_per_sec = 2000;
        let before = rss_kib();
        let (engine, mut events) = Engine::start(config, client, store).await.expect("engine");
        let draft = Draft {
            model: "acme/aurora-3.0/text-to-video".into(),
            prompt: "a red fox running through fresh snow at dawn".into(),
            ..Draft::default()
        };
        let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
        let started = Instant::now();
        for _ in 0..TASKS / 1000 {
            engine.submit(valid.clone(), 1000, None).await.expect("submitted");
        }
        let mut accepted = std::collections::HashSet::new();
        while accepted.len() < TASKS as usize {
            match tokio::time::timeout(Duration::from_secs(120), events.recv()).await {
                Ok(Some(Event::Task(u))) if u.record.state == LocalState::Queued => {
                    accepted.insert(u.record.id);
                }
                Ok(Some(_)) => {}
                _ => panic!("only {} accepted", accepted.len()),
            }
        }
        let all_in = started.elapsed();
        // Let polling run at full load for a while, then measure.
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            let _ = tokio::time::timeout(Duration::from_millis(100), events.recv()).await;
        }
        let after = rss_kib();
        println!("tasks in flight:             {TASKS}");
        println!("time to submit all:          {:.1} s", all_in.as_secs_f64());
        println!("resident memory before:      {:.1} MiB", before as f64 / 1024.0);
        println!("resident memory in flight:   {:.1} MiB", after as f64 / 1024.0);
        println!("per task:                    {:.1} KiB", (after.saturating_sub(before)) as f64 / f64::from(TASKS));
        engine.shutdown().await;
    });
}
