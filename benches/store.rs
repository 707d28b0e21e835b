//! Store write throughput: one task save plus one event per transaction, as the engine writes
//! them, through the single writer thread; and the same with 100 events per transaction.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use reel_store::tasks::{self, NewTask};
use reel_store::{LocalState, Store, fixtures};

fn new_task(i: i64) -> NewTask {
    NewTask {
        idempotency_key: format!("k{i}"),
        created_at: 1_800_000_000_000 + i,
        ..fixtures::new_task(&format!("prompt number {i}: a red fox running through fresh snow"))
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("bench.db")).expect("store");
    let seeded = rt
        .block_on(store.write(|c| {
            let tx = c.transaction()?;
            let rows = (0..1000).map(|i| tasks::insert(&tx, &new_task(i))).collect::<Result<Vec<_>, _>>()?;
            tx.commit()?;
            Ok(rows)
        }))
        .expect("seeded");

    let mut group = c.benchmark_group("store");
    group.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    group.bench_function("state change: save + event, one transaction", |b| {
        b.iter(|| {
            i += 1;
            let mut r = seeded[i % seeded.len()].clone();
            r.state = LocalState::InProgress;
            r.poll_count += 1;
            r.updated_at += 1;
            rt.block_on(store.write(move |c| {
                let tx = c.transaction()?;
                tasks::save(&tx, &r)?;
                tasks::add_event(&tx, r.id, r.updated_at, r.state.as_str(), None)?;
                tx.commit()?;
                Ok(())
            }))
            .expect("written");
        })
    });
    group.throughput(Throughput::Elements(100));
    group.bench_function("100 events, one transaction", |b| {
        b.iter(|| {
            rt.block_on(store.write(|c| {
                let tx = c.transaction()?;
                for k in 0..100 {
                    tasks::add_event(&tx, 1 + k % 1000, k, "in_progress", Some("bench"))?;
                }
                tx.commit()?;
                Ok(())
            }))
            .expect("written");
        })
    });
    group.finish();
    black_box(store);
}

criterion_group!(benches, bench);
criterion_main!(benches);
