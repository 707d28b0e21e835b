//! Journaling a 10,000-task batch and handing it to the engine (issue 23: under 2 s, 5,000
//! tasks a second), measured where it happens:
//! - in process: `Engine::submit_parts` on an engine in the bench's process, from the call to
//!   its answer (every task journaled) and to the batch's event;
//! - through the engine process over its socket, as `reel submit --from` and the dashboard
//!   send it: the sender's answer, a second client's batch event (and that it missed no news),
//!   and how long a third client's `Status` took at worst meanwhile (the engine stays
//!   responsive);
//! - in the dashboard: applying the batch's event to an App that shows 1,000 tasks, then one
//!   frame, against the same 10,000 tasks arriving as 10,000 events (as before protocol 4).
//!
//! `reel sim` runs as its own process, renders never finish (only journaling is looked at),
//! and each round uses a fresh data folder. Run: `cargo bench --bench batch_submit`
//! (`REEL_BENCH_ROUNDS=N`, default 3).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/app.rs"]
mod app;
#[path = "support/engine.rs"]
mod engine_process;
#[path = "support/sim.rs"]
mod sim;

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use reel_api::{ApiKey, Client, ClientOptions};
use reel_engine::journal::Part;
use reel_engine::service::{attach_if_running, socket_path};
use reel_engine::{Engine, EngineConfig, Event, TaskUpdate};
use reel_rules::{Catalog, Draft, UnknownModels, ValidSubmission, validate};
use reel_store::fixtures::record;
use reel_store::{LocalState, Store};
use reel_tui::app::{Action, App};
use reel_tui::views;
use tokio::runtime::Runtime;

const TASKS: u32 = 10_000;
const NOW: i64 = 1_800_000_100_000;

fn valid() -> ValidSubmission {
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a red fox running through fresh snow at dawn, cinematic, golden light".into(),
        ..Draft::default()
    };
    validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
}

/// `parts` parts of `TASKS / parts` copies each.
fn shape(parts: u32) -> Vec<Part> {
    (0..parts).map(|_| Part { submission: valid(), count: TASKS / parts, parent: None }).collect()
}

fn secs(d: Duration) -> String {
    format!("{:.2} s ({:.0} tasks/s)", d.as_secs_f64(), f64::from(TASKS) / d.as_secs_f64())
}

/// Waits for the batch's event; panics if news was missed.
async fn batch_event(events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) -> usize {
    loop {
        match tokio::time::timeout(Duration::from_secs(120), events.recv()).await {
            Ok(Some(Event::Tasks(updates))) => return updates.len(),
            Ok(Some(Event::Missed)) => panic!("a client missed news"),
            Ok(Some(_)) => {}
            _ => panic!("no batch event"),
        }
    }
}

fn in_process(rt: &Runtime, base_url: &str, parts: u32) {
    rt.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("reel.db")).expect("store");
        let client =
            Client::new(base_url, ApiKey::new("sim-key").expect("key"), ClientOptions::default()).expect("client");
        let (engine, mut events) =
            Engine::start(EngineConfig::new(dir.path().join("videos")), client, store).await.expect("engine");
        let started = Instant::now();
        let records = engine.submit_parts(shape(parts)).await.expect("journaled");
        let answered = started.elapsed();
        assert_eq!(batch_event(&mut events).await, TASKS as usize);
        let announced = started.elapsed();
        assert_eq!(records.len(), TASKS as usize);
        println!(
            "in process, {parts} part(s) x {}: answer {}, batch event {}",
            TASKS / parts,
            secs(answered),
            secs(announced)
        );
        engine.shutdown().await;
    });
}

fn over_socket(rt: &Runtime, base_url: &str, parts: u32) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut child = engine_process::start(rt, &data, base_url, "");
    let socket = socket_path(&data);
    rt.block_on(async {
        let (sender, _sender_events) = attach_if_running(&socket).await.expect("attach").expect("running");
        let (watcher, mut watcher_events) = attach_if_running(&socket).await.expect("attach").expect("running");
        let (pinger, _pinger_events) = attach_if_running(&socket).await.expect("attach").expect("running");
        let started = Instant::now();
        let pinging = tokio::spawn(async move {
            let mut worst = Duration::ZERO;
            let mut pings = 0u32;
            while started.elapsed() < Duration::from_secs(3) {
                let asked = Instant::now();
                pinger.status().await.expect("status");
                worst = worst.max(asked.elapsed());
                pings += 1;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            pinger.detach().await;
            (worst, pings)
        });
        let sender = reel_engine::Engine::Remote(sender);
        let records = sender.submit_parts(shape(parts)).await.expect("journaled");
        let answered = started.elapsed();
        assert_eq!(records.len(), TASKS as usize);
        assert_eq!(batch_event(&mut watcher_events).await, TASKS as usize);
        let announced = started.elapsed();
        let (worst, pings) = pinging.await.expect("pings");
        println!(
            "engine process, {parts} part(s) x {}: answer {}, another client's batch event {}, \
             worst Status meanwhile {:.0} ms ({pings} asked in 3 s)",
            TASKS / parts,
            secs(answered),
            secs(announced),
            worst.as_secs_f64() * 1000.0
        );
        let reel_engine::Engine::Remote(sender) = sender else { unreachable!("attached over the socket") };
        sender.stop(true).await.expect("stopped");
        watcher.detach().await;
    });
    let _ = child.wait();
}

fn dashboard() -> App {
    let mut app = app::empty(NOW);
    let shown = (1..=1_000).map(|id| record(id, LocalState::Downloaded)).collect();
    app.update(Action::Loaded(shown), NOW);
    app
}

fn in_dashboard() {
    let batch: Vec<TaskUpdate> = (1_001..=1_000 + i64::from(TASKS))
        .map(|id| TaskUpdate { record: record(id, LocalState::Waiting), eta_ms: None })
        .collect();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut app = dashboard();
    let started = Instant::now();
    app.update(Action::Engine(Event::Tasks(batch.clone())), NOW);
    let applied = started.elapsed();
    terminal.draw(|f| views::draw(f, &app)).expect("draw");
    let framed = started.elapsed();
    assert_eq!(app.table().len(), 1_000 + TASKS as usize);
    let mut app = dashboard();
    let started = Instant::now();
    for u in batch {
        app.update(Action::Engine(Event::Task(Box::new(u))), NOW);
    }
    let one_by_one = started.elapsed();
    println!(
        "dashboard with 1,000 tasks: one batch event {:.1} ms, then a frame at 160x48 {:.1} ms; \
         the same as 10,000 events {:.1} ms",
        applied.as_secs_f64() * 1000.0,
        (framed - applied).as_secs_f64() * 1000.0,
        one_by_one.as_secs_f64() * 1000.0
    );
}

fn main() {
    let rounds: usize = std::env::var("REEL_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let sim = sim::start(&["--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000"]);
    let rt = Runtime::new().expect("runtime");
    for round in 1..=rounds {
        println!("round {round}");
        for parts in [1, 100] {
            in_process(&rt, &sim.base_url, parts);
            over_socket(&rt, &sim.base_url, parts);
        }
        in_dashboard();
    }
}
