//! A full disk met at each write site (journal, file, sidecar, provenance): the engine pauses,
//! marks nothing failed, reports the counts the journal has, and resumes by itself when there is
//! room, saving every task. The log's site is tested with its writer (`logging::lines`).

use std::path::Path;
use std::time::Duration;

use super::DiskFull;
use crate::{Activity, Engine, EngineConfig, PollPolicy, provenance};
use reel_api::{ApiKey, Client, ClientOptions};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use reel_store::disk::{Site, inject};
use reel_store::{LocalState, Store, TaskRecord, tasks};

#[derive(Debug, Clone, Copy)]
enum At {
    Journal,
    Writes(Site),
}

const TASKS: u32 = 4;

fn journal(db: &Path) -> Vec<TaskRecord> {
    let reader = reel_store::open_reader(db).expect("reader");
    tasks::list(&reader, None, None, 1000).expect("tasks")
}

async fn until<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_full_disk_pauses_and_resumes(at: At) {
    let lifecycle = LifecycleConfig {
        queue_time: Duration::from_millis(50),
        render_min: Duration::from_millis(200),
        render_max: Duration::from_millis(400),
        failure_rate: 0.0,
    };
    let sim = SimHandle::start(SimConfig { lifecycle, seed: Some(5), ..SimConfig::default() }, 0)
        .await
        .expect("the simulator starts");
    let client = Client::new(&sim.base_url(), ApiKey::new(sim.api_key()).expect("key"), ClientOptions::default())
        .expect("client");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("reel.db");
    let store = Store::open(&db).expect("store");
    let mut config = EngineConfig::new(dir.path().join("videos"));
    let fast = Duration::from_millis(50);
    config.policy = PollPolicy { first_poll: fast, base: fast, max: fast, slow: fast, ..PollPolicy::default() };
    if matches!(at, At::Writes(Site::Provenance)) {
        config.provenance = Some(provenance::Tagger { ffmpeg: "ffmpeg".into() });
    }
    let (engine, _events) = Engine::start(config, client, store.clone()).await.expect("engine");
    let draft = Draft { model: "acme/aurora-3.0/text-to-video".into(), prompt: "a fox".into(), ..Draft::default() };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
    let ids: Vec<i64> = engine.submit(valid, TASKS, None).await.expect("submitted").iter().map(|r| r.id).collect();
    match at {
        At::Journal => store.inject_full(true),
        At::Writes(site) => inject::arm(site, dir.path()),
    }

    // Paused, and settled: nothing runs while the disk is full.
    let paused: DiskFull = until("the pause", async || {
        let a = engine.activity().await.expect("activity");
        a.service.disk.filter(|_| a.requests_in_flight == 0 && a.downloads == 0)
    })
    .await;
    assert!(paused.summary().starts_with("paused: the disk holding "), "{}", paused.summary());
    let activity: Activity = engine.activity().await.expect("activity");
    let held = journal(&db);
    let unfinished = held.iter().filter(|r| !r.state.is_settled()).count();
    assert_eq!(activity.unfinished, unfinished, "{at:?}: the engine's count is the journal's: {held:?}");
    assert!(unfinished > 0, "{at:?}: the pause came before the end");
    for r in &held {
        assert!(
            !r.state.is_settled() || r.state == LocalState::Downloaded,
            "{at:?}: nothing failed for want of room: task {} is {}",
            r.id,
            r.state
        );
    }
    let refused = engine.recheck(ids[0]).await.expect_err("a change is refused while paused");
    assert!(refused.to_string().contains("paused: the disk holding"), "{refused}");
    assert_no_half_files(dir.path());

    match at {
        At::Journal => store.inject_full(false),
        At::Writes(_) => inject::disarm(dir.path()),
    }
    until("every task saved by the same engine", async || {
        let all = journal(&db);
        all.iter().all(|r| r.state == LocalState::Downloaded).then_some(())
    })
    .await;
    let activity = until("the pause to end", async || {
        let a = engine.activity().await.expect("activity");
        a.service.disk.is_none().then_some(a)
    })
    .await;
    assert_eq!(activity.unfinished, 0);
    for r in journal(&db) {
        let path = r.file_path.clone().expect("a saved file");
        let sidecar = Path::new(&path).with_extension("json");
        let body = std::fs::read(&sidecar).expect("a sidecar");
        serde_json::from_slice::<serde_json::Value>(&body).expect("a whole sidecar");
        if matches!(at, At::Writes(Site::Provenance)) {
            assert!(r.file_sha256.is_some(), "task {} is tagged after the pause", r.id);
        }
    }
    assert_no_half_files(dir.path());
    engine.shutdown().await;
    sim.stop().await;
}

/// No sidecar, tagged copy or journal row half written: no temporary file left but a
/// download's `.part` (kept on purpose, for a resume).
fn assert_no_half_files(dir: &Path) {
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if path.is_dir() {
                todo.push(path);
            } else {
                let temporary =
                    name.ends_with(".json.part") || name.ends_with(".tagging") || name.ends_with(".meta.part");
                assert!(!temporary, "a half-written file is left: {}", path.display());
                if name.ends_with(".json") {
                    let body = std::fs::read(&path).expect("read");
                    assert!(!body.is_empty(), "an empty sidecar: {}", path.display());
                }
            }
        }
    }
}

#[tokio::test]
async fn the_journal_full() {
    a_full_disk_pauses_and_resumes(At::Journal).await;
}

#[tokio::test]
async fn a_file_full() {
    a_full_disk_pauses_and_resumes(At::Writes(Site::File)).await;
}

#[tokio::test]
async fn a_sidecar_full() {
    a_full_disk_pauses_and_resumes(At::Writes(Site::Sidecar)).await;
}

#[tokio::test]
async fn provenance_full() {
    if !reel_sim::video::testing::have_ffmpeg() {
        return;
    }
    a_full_disk_pauses_and_resumes(At::Writes(Site::Provenance)).await;
}
