//! The poll scheduler's decision cost with 10,000 tasks in flight: take the due task off the
//! queue, apply the poll answer (state transition and next interval), put it back; first as a
//! bare heap around the transition, then through the engine's own core (`engine::queue::Queue`),
//! which adds the request budget, rationing and the bookkeeping the engine runs.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use reel_api::VideoTask;
use reel_engine::queue::{Job, Limits, Now, Queue};
use reel_engine::schedule::{Pace, PollPolicy, RateWindow, RenderStats, next_poll};
use reel_engine::transition::{Ctx, Next, after_poll};
use reel_store::{LocalState, TaskRecord, fixtures};

const IN_FLIGHT: usize = 10_000;

fn record(id: i64) -> TaskRecord {
    TaskRecord { progress: Some(10.0), poll_count: 3, ..fixtures::record(id, LocalState::InProgress) }
}

fn bench(c: &mut Criterion) {
    let policy = PollPolicy::default();
    let answer = Ok(VideoTask::from_json(serde_json::json!({
        "id": "task_00000001", "object": "video", "status": "in_progress", "progress": 42, "created_at": 1_800_000_000
    }))
    .expect("decodes"));
    let ctx = Ctx {
        now_ms: 1_800_000_030_000,
        policy,
        url_ttl: Duration::from_secs(3600),
        pace: Pace::steady(Duration::from_secs(5)),
        jitter: 0.5,
    };
    let records: Vec<TaskRecord> = (0..IN_FLIGHT as i64).map(record).collect();
    let start = Instant::now();
    let mut due: BinaryHeap<Reverse<(Instant, u64, i64)>> =
        (0..IN_FLIGHT as i64).map(|i| Reverse((start + Duration::from_millis(i as u64), i as u64, i))).collect();
    let mut generation = IN_FLIGHT as u64;

    c.bench_function("scheduler: one poll decision, 10k tasks in flight", |b| {
        b.iter(|| {
            let Some(Reverse((at, _, id))) = due.pop() else { return };
            let step = after_poll(black_box(&records[id as usize]), black_box(&answer), &ctx);
            let wait = match step.next {
                Next::Poll(d) => d,
                _ => Duration::ZERO,
            };
            generation += 1;
            due.push(Reverse((at + wait, generation, id)));
            black_box(step.record.state);
        })
    });

    // The engine's core as the engine runs it: at the default 10 requests/s the budget binds
    // with 10,000 tasks in flight, so each decision also carries a tenth of the once-a-second
    // pass that shares the budget out (one outlook lookup per task); with the budget lifted that
    // pass is spread over thousands of decisions.
    for (label, budget) in [("10 requests/s", policy.budget_per_sec), ("budget lifted", 1_000_000)] {
        let limits = Limits {
            policy: PollPolicy { budget_per_sec: budget, ..policy },
            url_ttl: Duration::from_secs(3600),
            // One request under way at a time, so that each decision below starts exactly one poll.
            max_in_flight: 1,
            max_downloads: 4,
            download_attempts: 5,
        };
        let mut queue = Queue::new(limits, RenderStats::new(HashMap::new()), fastrand::Rng::with_seed(1));
        let mut now = Now { at: Instant::now(), ms: 1_800_000_030_000 };
        for id in 0..IN_FLIGHT as i64 {
            queue.track(record(id), Job::Poll, now.at + Duration::from_millis(id as u64));
        }
        c.bench_function(
            &format!("scheduler: engine core (Queue), one poll started and answered, 10k tasks, {label}"),
            |b| {
                b.iter(|| {
                    // Time jumps to the core's next wake-up (the next due task, or a free slot of
                    // the budget), as the engine's clock would.
                    loop {
                        let plan = queue.next(now);
                        if let Some(start) = plan.starts.first() {
                            let id = start.id();
                            black_box(queue.polled(id, &answer, now));
                            break;
                        }
                        let wake = plan.wake.expect("10,000 tasks are always due at some point");
                        now = now.after(wake.saturating_duration_since(now.at).max(Duration::from_micros(1)));
                    }
                })
            },
        );
    }

    c.bench_function("scheduler: interval only", |b| {
        let pace = Pace::steady(Duration::from_secs(5));
        b.iter(|| next_poll(black_box(&pace), black_box(Some(42.0)), black_box(1_800_000_030_000)))
    });

    c.bench_function("scheduler: request budget check", |b| {
        let mut window = RateWindow::new(10);
        let t0 = Instant::now();
        let mut step = 0u64;
        b.iter(|| {
            step += 1;
            black_box(window.try_acquire(t0 + Duration::from_millis(step * 7)))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
