//! A request to the data folder's engine process through the library, without starting a
//! reel process: attach (`attach_if_running`: connect, hello, welcome), one `Status` request,
//! detach; and a `Status` request alone on an attached connection. Measured with the engine
//! idle, then with 2,000 tasks in flight. `reel sim` and `reel engine run` are processes of
//! their own, as in real use. Run: `cargo bench --bench engine_service`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/engine.rs"]
mod engine_process;
#[path = "support/sim.rs"]
mod sim;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use reel_engine::Event;
use reel_engine::journal::Part;
use reel_engine::service::{attach_if_running, socket_path};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_store::LocalState;
use tokio::runtime::Runtime;

fn bench_requests(c: &mut Criterion, rt: &Runtime, socket: &Path, label: &str) {
    c.bench_function(&format!("service: attach + Status + detach, {label}"), |b| {
        b.iter(|| {
            rt.block_on(async {
                let (engine, _events) = attach_if_running(socket).await.expect("attach").expect("running");
                let status = engine.status().await.expect("status");
                engine.detach().await;
                status
            })
        })
    });
    let (engine, mut events) = rt.block_on(attach_if_running(socket)).expect("attach").expect("running");
    c.bench_function(&format!("service: Status on an attached connection, {label}"), |b| {
        b.iter(|| {
            // The engine's news comes to every client: keep it from piling up.
            while events.try_recv().is_ok() {}
            rt.block_on(engine.status()).expect("status")
        })
    });
    rt.block_on(engine.detach());
}

fn bench(c: &mut Criterion) {
    let sim = sim::start(&["--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000"]);
    let rt = Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    // A budget that lets 2,000 POSTs out quickly; everything else is the default.
    let mut child = engine_process::start(&rt, &data, &sim.base_url, "[engine]\nrequests_per_second = 200\n");
    let socket = socket_path(&data);

    bench_requests(c, &rt, &socket, "idle engine");

    // 2,000 tasks in flight, sent as 20 batches of 100 by one client.
    let (engine, mut events) = rt.block_on(attach_if_running(&socket)).expect("attach").expect("running");
    let engine = reel_engine::Engine::Remote(engine);
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a red fox running through fresh snow at dawn".into(),
        ..Draft::default()
    };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
    rt.block_on(async {
        for _ in 0..20 {
            let part = Part { submission: valid.clone(), count: 100, parent: None };
            engine.submit_parts(vec![part]).await.expect("submitted");
        }
        let mut queued = HashSet::new();
        while queued.len() < 2000 {
            match tokio::time::timeout(Duration::from_secs(120), events.recv()).await {
                Ok(Some(Event::Task(u))) if u.record.state == LocalState::Queued => {
                    queued.insert(u.record.id);
                }
                Ok(Some(_)) => {}
                _ => panic!("only {} accepted", queued.len()),
            }
        }
    });
    rt.block_on(engine.shutdown());
    bench_requests(c, &rt, &socket, "2,000 tasks in flight");

    let (engine, _events) = rt.block_on(attach_if_running(&socket)).expect("attach").expect("running");
    rt.block_on(engine.stop(true)).expect("stopped");
    let _ = child.wait();
}

criterion_group!(benches, bench);
criterion_main!(benches);
