//! The poll scheduler's decision cost with 10,000 tasks in flight: take the due task off the
//! queue, apply the poll answer (state transition and next interval), put it back.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use reel::api::VideoTask;
use reel::engine::schedule::{Pace, PollPolicy, RateWindow, next_poll};
use reel::engine::transition::{Ctx, Next, after_poll};
use reel::store::{LocalState, TaskRecord, fixtures};

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
