//! Saving keeps up with finishing (issue 32): 2,000 small files finishing within about a minute,
//! saved by `reel engine run` (its own process, default settings but the request budget, so
//! provenance and previews on) and by a naive poller (every task polled every 5 s, the file
//! fetched and written at once, no fsync, no hash), one after the other in one run, each against
//! a `reel sim` process of its own with the same seed.
//! Run: `cargo bench --bench saving` (about 5 minutes; `TASKS=500` for a shorter run,
//! `REEL_BENCH_CONFIG='[files]\nprovenance = false'` adds lines to the engine's config).
//!
//! "done" is the service's `completed_at` (whole seconds: the middle of that second, ±0.5 s,
//! the same for both), "seen" the poll that saw it (reel: its `completed` event; an engine that
//! polls sees most finishes in the simulator's `progress` steps), "saved" the file on disk
//! (reel: its `downloaded` event, after the fsyncs, the provenance tag and the journal).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/engine.rs"]
mod engine_process;
#[path = "support/sim.rs"]
mod sim;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use reel_api::{ApiKey, Client, ClientOptions, Status};
use reel_engine::Event;
use reel_engine::journal::Part;
use reel_engine::service::{attach_if_running, socket_path};
use reel_rules::{Catalog, Draft, UnknownModels, ValidSubmission, validate};
use reel_store::{LocalState, tasks};
use tokio::runtime::Runtime;

/// The simulator's render times: every task finishes between these seconds after its POST
/// (`BURST=1`: all within 2 s, a backlog that only the saving rate clears).
const RENDER: (&str, &str) = ("20", "80");
const BURST: (&str, &str) = ("30", "32");
const SEED: &str = "32";
const NAIVE_EVERY: Duration = Duration::from_secs(5);

/// When one task was done (service), seen completed and saved, in Unix ms.
#[derive(Debug, Clone, Copy)]
struct Times {
    done: i64,
    seen: i64,
    saved: i64,
}

fn now_ms() -> i64 {
    reel_engine::now_ms()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn submission() -> ValidSubmission {
    // The smallest file the simulator makes for the model: 480P, its shortest length.
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a red fox running through fresh snow at dawn".into(),
        seconds: Some("4".into()),
        resolution: Some("480P".into()),
        ..Draft::default()
    };
    validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
}

fn render() -> (&'static str, &'static str) {
    if std::env::var_os("BURST").is_some() { BURST } else { RENDER }
}

fn start_sim() -> sim::SimProcess {
    let (min, max) = render();
    sim::start(&["--queue-secs", "0", "--render-min-secs", min, "--render-max-secs", max, "--seed", SEED])
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1]
}

/// Seconds in which at least one file was seen completed and not yet saved.
fn busy_secs(times: &[Times]) -> f64 {
    let mut spans: Vec<(i64, i64)> = times.iter().map(|t| (t.seen, t.saved.max(t.seen))).collect();
    spans.sort_unstable();
    let (mut total, mut current): (i64, Option<(i64, i64)>) = (0, None);
    for (a, b) in spans {
        current = match current {
            Some((s, e)) if a <= e => Some((s, e.max(b))),
            Some((s, e)) => {
                total += e - s;
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total as f64 / 1000.0
}

fn report(who: &str, times: &[Times], wanted: usize) {
    let secs = |f: &dyn Fn(&Times) -> i64| times.iter().map(|t| f(t) as f64 / 1000.0).collect::<Vec<f64>>();
    let mut detect = secs(&|t| t.seen - t.done);
    let mut to_saved = secs(&|t| t.saved - t.done);
    let mut seen_to_saved = secs(&|t| t.saved - t.seen);
    let first_done = times.iter().map(|t| t.done).min().unwrap_or(0);
    let last_done = times.iter().map(|t| t.done).max().unwrap_or(0);
    let last_seen = times.iter().map(|t| t.seen).max().unwrap_or(0);
    let last_saved = times.iter().map(|t| t.saved).max().unwrap_or(0);
    let first_seen = times.iter().map(|t| t.seen).min().unwrap_or(0);
    println!(
        "{who}: {} of {wanted} saved; finishes over {:.0} s",
        times.len(),
        (last_done - first_done) as f64 / 1000.0
    );
    println!(
        "  files/s from the first seen to the last saved: {:.1} ({:.1} s)",
        times.len() as f64 / ((last_saved - first_seen) as f64 / 1000.0).max(1e-3),
        (last_saved - first_seen) as f64 / 1000.0
    );
    println!(
        "  files/s while any waited to be saved: {:.1} ({} files in {:.1} s); last saved {:.1} s after the last seen",
        times.len() as f64 / busy_secs(times).max(1e-3),
        times.len(),
        busy_secs(times),
        (last_saved - last_seen) as f64 / 1000.0
    );
    let row = |what: &str, v: &mut Vec<f64>| {
        let (p50, p95, max) = (percentile(v, 0.5), percentile(v, 0.95), percentile(v, 1.0));
        println!("  {what:22} p50 {p50:6.2} s  p95 {p95:6.2} s  max {max:6.2} s");
        p95
    };
    let d = row("done to seen:", &mut detect);
    let s = row("done to saved:", &mut to_saved);
    row("seen to saved:", &mut seen_to_saved);
    println!("  p95 done to saved - p95 done to seen: {:.2} s", s - d);
}

/// reel: an engine process with default settings but a request budget that lets 2,000 tasks be
/// polled as often as the scheduler wants.
fn run_reel(rt: &Runtime, n: usize) -> Vec<Times> {
    let sim = start_sim();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let extra = std::env::var("REEL_BENCH_CONFIG").unwrap_or_default().replace("\\n", "\n");
    let config = format!("[engine]\nrequests_per_second = 1000\n{extra}\n");
    let mut child = engine_process::start(rt, &data, &sim.base_url, &config);
    let socket = socket_path(&data);
    let (engine, mut events) = rt.block_on(attach_if_running(&socket)).expect("attach").expect("running");
    let engine = reel_engine::Engine::Remote(engine);
    let valid = submission();
    let started = Instant::now();
    rt.block_on(async {
        let mut left = n;
        while left > 0 {
            let count = left.min(100);
            let part = Part { submission: valid.clone(), count: count as u32, parent: None };
            engine.submit_parts(vec![part]).await.expect("submitted");
            left -= count;
        }
        let mut saved = HashSet::new();
        let until = Instant::now() + Duration::from_secs(900);
        while saved.len() < n && Instant::now() < until {
            let event = tokio::time::timeout(Duration::from_secs(30), events.recv()).await;
            let updates = match event {
                Ok(Some(Event::Task(u))) => vec![*u],
                Ok(Some(Event::Tasks(us))) => us,
                Ok(Some(_)) | Err(_) => continue,
                Ok(None) => break,
            };
            for u in updates {
                if u.record.state == LocalState::Downloaded {
                    saved.insert(u.record.id);
                }
            }
        }
    });
    println!("reel: all submitted and saved in {:.0} s (load {})", started.elapsed().as_secs_f64(), load());
    rt.block_on(engine.shutdown());
    let (engine, _events) = rt.block_on(attach_if_running(&socket)).expect("attach").expect("running");
    let previews = std::fs::read_dir(data.join("previews"))
        .map(|d| d.flatten().map(|e| std::fs::read_dir(e.path()).map_or(0, Iterator::count)).sum::<usize>())
        .unwrap_or(0);
    rt.block_on(engine.stop(true)).expect("stopped");
    let _ = child.wait();
    let (times, tagged) = times_from_journal(&data.join("reel.db"));
    println!("reel: {tagged} files carry their provenance; {previews} previews made by the time it was stopped");
    times
}

/// Each saved task's times, and how many files were tagged with their provenance.
fn times_from_journal(db: &Path) -> (Vec<Times>, usize) {
    let conn = reel_store::open_reader(db).expect("journal");
    let (mut out, mut tagged) = (Vec::new(), 0);
    reel_store::history::all(&conn, |task| {
        tagged += usize::from(task.file_sha256.is_some() && task.file_sha256 != task.sha256);
        let events = tasks::events(&conn, task.id)?;
        let at = |state: &str| events.iter().find(|e| e.state == state).map(|e| e.at);
        if let (Some(done), Some(seen), Some(saved)) = (task.remote_completed_at, at("completed"), at("downloaded")) {
            out.push(Times { done: done * 1000 + 500, seen, saved });
        }
        Ok(())
    })
    .expect("read the journal");
    (out, tagged)
}

/// The naive poller: one loop per task, a GET every 5 s, the file fetched into memory and written
/// as it is (no `.part`, no hash, no fsync).
fn run_naive(rt: &Runtime, n: usize) -> Vec<Times> {
    let sim = start_sim();
    let dir = tempfile::tempdir().expect("tempdir");
    let client =
        Client::new(&sim.base_url, ApiKey::new("sim-key").expect("key"), ClientOptions::default()).expect("client");
    let files = reqwest::Client::new();
    let request = reel_engine::journal::request_for(&submission());
    let started = Instant::now();
    let times = rt.block_on(async {
        let ids: Vec<String> = futures_util::stream::iter(0..n)
            .map(|_| {
                let (client, request) = (&client, &request);
                async move { client.submit(request, None).await.expect("submitted").id }
            })
            .buffer_unordered(32)
            .collect()
            .await;
        let dir = Arc::new(dir.path().to_path_buf());
        let loops = ids.into_iter().enumerate().map(|(i, id)| {
            let (client, files, dir) = (client.clone(), files.clone(), dir.clone());
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(NAIVE_EVERY).await;
                    let Ok(task) = client.get(&id).await else { continue };
                    match task.status {
                        Status::Completed => {}
                        Status::Failed => return None,
                        _ => continue,
                    }
                    let seen = now_ms();
                    let bytes = files.get(task.url?).send().await.ok()?.bytes().await.ok()?;
                    tokio::fs::write(dir.join(format!("{i}.mp4")), &bytes).await.ok()?;
                    return Some(Times { done: task.completed_at? * 1000 + 500, seen, saved: now_ms() });
                }
            })
        });
        futures_util::future::join_all(loops).await.into_iter().filter_map(|r| r.ok().flatten()).collect::<Vec<_>>()
    });
    println!("naive: all submitted and saved in {:.0} s (load {})", started.elapsed().as_secs_f64(), load());
    times
}

fn main() {
    let n: usize = std::env::var("TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let rt = Runtime::new().expect("runtime");
    let (min, max) = render();
    println!("{n} tasks, renders of {min}-{max} s, 480P 4 s files; load before: {}", load());
    let reel = run_reel(&rt, n);
    let naive = run_naive(&rt, n);
    report("reel engine run (provenance, previews, fsyncs)", &reel, n);
    report("naive poller (every 5 s, no fsync)", &naive, n);
}
