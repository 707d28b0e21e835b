//! The engine against a simulator that answers in the right shapes with adversarial content,
//! over real HTTP on 127.0.0.1: nothing it sends may corrupt a file, stall the engine or be
//! taken for success.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::*;
use reel_api::ClientOptions;
use reel_engine::download::StallRule;
use reel_engine::{Engine, EngineConfig, Event, PollPolicy};
use reel_rules::{Catalog, Draft, UnknownModels, ValidSubmission, validate};
use reel_sim::{Faults, Hostile, HostileId, HostileStatus, HostileUrl, Origin, SimConfig, SimHandle, Trigger};
use reel_store::{LocalState, Store, TaskRecord};
use tokio::sync::mpsc::UnboundedReceiver;

fn policy() -> PollPolicy {
    PollPolicy {
        first_poll: Duration::from_millis(100),
        base: Duration::from_millis(100),
        max: Duration::from_millis(300),
        slow: Duration::from_millis(300),
        client_timeout: Duration::from_secs(60),
        budget_per_sec: 50,
        backoff_base: Duration::from_millis(50),
        vendor_retention: Duration::from_secs(24 * 3600),
        backoff_max: Duration::from_millis(300),
    }
}

fn submission(seconds: &str, resolution: &str) -> ValidSubmission {
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a lighthouse in a storm".into(),
        seconds: Some(seconds.into()),
        resolution: Some(resolution.into()),
        ..Draft::default()
    };
    validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
}

struct Rig {
    _dir: tempfile::TempDir,
    engine: Engine,
    events: UnboundedReceiver<Event>,
    tasks: HashMap<i64, TaskRecord>,
}

async fn rig_with(sim: &SimHandle, tune: impl FnOnce(&mut EngineConfig), options: ClientOptions) -> Rig {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().to_path_buf();
    let store = Store::open(&data.join("reel.db")).expect("store");
    let mut config = EngineConfig::new(data.join("videos"));
    config.policy = policy();
    config.download_attempts = 30;
    tune(&mut config);
    let client = client_with(sim, sim.api_key(), options);
    let (engine, events) = Engine::start(config, client, store).await.expect("engine");
    Rig { _dir: dir, engine, events, tasks: HashMap::new() }
}

async fn rig(sim: &SimHandle) -> Rig {
    rig_with(sim, |_| {}, ClientOptions::default()).await
}

impl Rig {
    async fn submit(&self, count: u32) -> Vec<i64> {
        self.submit_sized(count, "4", "480P").await
    }

    /// Larger files, so that a transfer cut halfway leaves more than the resume overlap.
    async fn submit_sized(&self, count: u32, seconds: &str, resolution: &str) -> Vec<i64> {
        let s = submission(seconds, resolution);
        self.engine.submit(s, count, None).await.expect("journaled").iter().map(|r| r.id).collect()
    }

    /// Follows events until `done` holds for every task, or fails after a generous bound.
    async fn until(&mut self, ids: &[i64], done: impl Fn(&TaskRecord) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ids.iter().all(|id| self.tasks.get(id).is_some_and(&done)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.events.recv()).await {
                Ok(Some(Event::Task(u))) => {
                    self.tasks.insert(u.record.id, u.record);
                }
                Ok(Some(_)) => {}
                Ok(None) => panic!("the engine stopped"),
                Err(_) => {
                    let states: Vec<_> = ids.iter().map(|id| self.tasks.get(id).map(|t| t.state)).collect();
                    panic!("not there within the bound: {states:?}");
                }
            }
        }
    }

    async fn settle(&mut self, ids: &[i64]) {
        self.until(ids, |t| t.state.is_settled()).await;
    }
}

/// The file on disk is exactly what the server serves now, and its recorded hash is its own.
fn assert_saved(sim: &SimHandle, t: &TaskRecord) {
    assert_eq!(t.state, LocalState::Downloaded, "task {} {:?}", t.id, t.error);
    let bytes = std::fs::read(Path::new(t.file_path.as_deref().expect("path"))).expect("file");
    let served = sim.current_file_bytes(t.remote_id.as_deref().expect("remote id")).expect("served");
    assert_eq!(bytes.len(), served.len(), "task {} length", t.id);
    assert!(bytes == served.to_vec(), "task {} bytes differ from the server's", t.id);
    assert_eq!(t.sha256.as_deref(), Some(sha256_hex(&bytes).as_str()), "the recorded hash is the file's");
}

fn hostile(h: Hostile) -> SimConfig {
    SimConfig { hostile: h, ..fast_config() }
}

#[tokio::test]
async fn statuses_the_spec_does_not_name_are_never_taken_for_success() {
    for status in [
        HostileStatus::Padded,
        HostileStatus::Succeeded,
        HostileStatus::Done,
        HostileStatus::Upper,
        HostileStatus::Number,
        HostileStatus::Null,
        HostileStatus::Missing,
        HostileStatus::Escape,
    ] {
        let sim = start(hostile(Hostile { task_status: Some(status), ..Hostile::default() })).await;
        let mut r = rig(&sim).await;
        let ids = r.submit(1).await;
        r.until(&ids, |t| t.state == LocalState::Unrecognized).await;
        // Give it time to do the wrong thing: it must keep polling, slowly, and fetch nothing.
        tokio::time::sleep(Duration::from_millis(600)).await;
        while let Ok(Event::Task(u)) = r.events.try_recv() {
            r.tasks.insert(u.record.id, u.record);
        }
        let t = &r.tasks[&ids[0]];
        assert_eq!(t.state, LocalState::Unrecognized, "{status:?}");
        assert!(t.file_path.is_none(), "{status:?}: nothing saved");
        let files = sim.requests().iter().filter(|q| q.path.contains("/files/")).count();
        assert_eq!(files, 0, "{status:?}: no download attempted");
        assert!(t.remote_status.is_some(), "{status:?}: the status is kept as it came");
        sim.stop().await;
    }
}

#[tokio::test]
async fn unusable_ids_are_reported_and_never_polled_and_duplicates_are_flagged() {
    for id in [HostileId::Dot, HostileId::DotDot, HostileId::Huge, HostileId::Control] {
        let sim = start(hostile(Hostile { task_id: Some(id), ..Hostile::default() })).await;
        let mut r = rig(&sim).await;
        let ids = r.submit(1).await;
        r.settle(&ids).await;
        let t = &r.tasks[&ids[0]];
        assert_eq!(t.state, LocalState::Lost, "{id:?}");
        let message = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default().to_string();
        assert!(message.contains("cannot use safely"), "{id:?}: {message}");
        let gets = sim.requests().iter().filter(|q| q.method == "GET").count();
        assert_eq!(gets, 0, "{id:?}: never polled at a wrong path");
        sim.stop().await;
    }
    // Slash and encoded dots are ordinary ids once encoded as one segment: they work.
    for id in [HostileId::Slash, HostileId::EncodedDotDot] {
        let sim = start(hostile(Hostile { task_id: Some(id), ..Hostile::default() })).await;
        let mut r = rig(&sim).await;
        let ids = r.submit(1).await;
        r.settle(&ids).await;
        assert_saved(&sim, &r.tasks[&ids[0]]);
        sim.stop().await;
    }
    let sim = start(hostile(Hostile { task_id: Some(HostileId::Duplicate), ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let first = r.submit(1).await;
    r.settle(&first).await;
    let second = r.submit(1).await;
    r.settle(&second).await;
    let t = &r.tasks[&second[0]];
    assert_eq!(t.state, LocalState::Lost);
    assert_eq!(t.duplicate_of(), Some(first[0]));
    let saved: Vec<_> = r.tasks.values().filter(|t| t.state == LocalState::Downloaded).collect();
    assert_eq!(saved.len(), 1, "one id, one download");
}

#[tokio::test]
async fn urls_that_cannot_work_fail_at_once() {
    for url in [HostileUrl::Ftp, HostileUrl::File, HostileUrl::Javascript] {
        let sim = start(hostile(Hostile { task_url: Some(url), ..Hostile::default() })).await;
        let mut r = rig(&sim).await;
        let ids = r.submit(1).await;
        r.settle(&ids).await;
        let t = &r.tasks[&ids[0]];
        // Refused from the poll answer: no request is made for it.
        assert_eq!((t.state, t.download_attempts), (LocalState::DownloadFailed, 0), "{url:?}");
        let said = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default();
        assert!(
            said.contains("reel fetches only http and https") && said.ends_with("nothing was downloaded"),
            "{said}"
        );
        assert!(sim.requests().iter().all(|q| !q.path.contains("/files/")), "{url:?}");
        sim.stop().await;
    }
    let sim = start(hostile(Hostile { file_redirect_scheme: Trigger::Always, ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let ids = r.submit(1).await;
    r.settle(&ids).await;
    let t = &r.tasks[&ids[0]];
    assert_eq!((t.state, t.download_attempts), (LocalState::DownloadFailed, 1), "a redirect to file://");
    let said = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default();
    assert!(said.contains("an HTTP 302 to a file: URL"), "{said}");
    sim.stop().await;
    let sim = start(hostile(Hostile { file_redirect_loop: Trigger::Always, ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let ids = r.submit(1).await;
    r.settle(&ids).await;
    let t = &r.tasks[&ids[0]];
    assert_eq!((t.state, t.download_attempts), (LocalState::DownloadFailed, 1), "a redirect loop");
}

#[tokio::test]
async fn a_lying_or_ignored_resume_never_yields_a_wrong_file() {
    for (name, h) in [
        ("lying", Hostile { range_lying: Trigger::Always, ..Hostile::default() }),
        ("ignored", Hostile { range_ignored: Trigger::Always, ..Hostile::default() }),
        ("mismatch", Hostile { range_mismatch: Trigger::Always, ..Hostile::default() }),
        ("file changes", Hostile { file_changes: Trigger::Every(2), ..Hostile::default() }),
    ] {
        // Long files, half of whose transfers break, so that resumes happen. Which ones break
        // depends on the seeded faults and on how many requests came first, so a round
        // without a resume is run again with another seed.
        let mut resumed = false;
        for seed in 0..6 {
            let mut config = hostile(h);
            config.faults = Faults { truncate: 0.5, ..Faults::default() };
            config.seed = config.seed.map(|s| s + seed);
            let sim = start(config).await;
            let mut r = rig(&sim).await;
            let ids = r.submit_sized(4, "10", "720P").await;
            r.settle(&ids).await;
            for id in &ids {
                assert_saved(&sim, &r.tasks[id]);
            }
            // The label a request carries is its first fault: a resume that was also cut
            // counts as "truncate", so resumes are counted as file requests beyond the first.
            let files = sim.requests().iter().filter(|q| q.path.contains("/files/")).count();
            sim.stop().await;
            if files > ids.len() {
                resumed = true;
                break;
            }
        }
        assert!(resumed, "{name}: no transfer broke in six rounds, so no resume was tried");
    }
}

#[tokio::test]
async fn stalled_transfers_are_cut_so_a_healthy_one_gets_a_slot() {
    // The first four file requests trickle one byte a second; the engine has four slots.
    let h = Hostile {
        trickle: Trigger::First(4),
        trickle_head: 10,
        trickle_every: Some(Duration::from_secs(1)),
        ..Hostile::default()
    };
    let sim = start(hostile(h)).await;
    let stall = StallRule { window: Duration::from_secs(2), min_bytes: 1024 };
    let mut r = rig_with(&sim, |c| c.stall = stall, ClientOptions::default()).await;
    let ids = r.submit(5).await;
    r.settle(&ids).await;
    for id in &ids {
        assert_saved(&sim, &r.tasks[id]);
    }
    let trickled = sim.requests().iter().filter(|q| q.fault == Some("trickle")).count();
    assert_eq!(trickled, 4, "four slots were held by trickling transfers, and every task still finished");
}

#[tokio::test]
async fn endless_huge_and_byte_at_a_time_answers_are_cut() {
    for (name, h) in [
        ("endless", Hostile { endless: Trigger::First(3), ..Hostile::default() }),
        ("endless spaces", Hostile { endless_spaces: Trigger::First(3), ..Hostile::default() }),
        ("huge", Hostile { huge: Trigger::First(2), huge_bytes: 8 << 20, ..Hostile::default() }),
        (
            "slow bytes",
            Hostile {
                slow_bytes: Trigger::First(2),
                slow_bytes_every: Duration::from_millis(200),
                ..Hostile::default()
            },
        ),
    ] {
        let sim = start(hostile(h)).await;
        let options = ClientOptions { request_timeout: Duration::from_secs(2), ..ClientOptions::default() };
        let mut r = rig_with(&sim, |_| {}, options).await;
        let ids = r.submit(1).await;
        r.settle(&ids).await;
        assert_saved(&sim, &r.tasks[&ids[0]]);
        sim.stop().await;
        let _ = name;
    }
}

#[tokio::test]
async fn api_redirects_to_another_origin_are_refused_and_file_redirects_followed_without_the_key() {
    let sim = start(hostile(Hostile { api_redirect_origin: Trigger::Always, ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let ids = r.submit(1).await;
    r.settle(&ids).await;
    let t = &r.tasks[&ids[0]];
    assert_eq!(t.state, LocalState::Rejected, "{:?}", t.error);
    let message = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default();
    assert!(message.contains("another origin"), "{message}");
    assert!(sim.requests().iter().all(|q| q.origin == Origin::Main), "never followed");
    sim.stop().await;

    let sim = start(hostile(Hostile { file_redirect_origin: Trigger::Always, ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let ids = r.submit(1).await;
    r.settle(&ids).await;
    assert_saved(&sim, &r.tasks[&ids[0]]);
    assert!(sim.requests().iter().any(|q| q.origin == Origin::Other), "the file came from the other origin");
}

#[tokio::test]
async fn bytes_past_the_content_length_never_reach_the_file() {
    let sim = start(hostile(Hostile { overlong: Trigger::Always, ..Hostile::default() })).await;
    let mut r = rig(&sim).await;
    let ids = r.submit(2).await;
    r.settle(&ids).await;
    for id in &ids {
        // Exactly the announced bytes, hashed as saved: the junk after them is never read.
        assert_saved(&sim, &r.tasks[id]);
    }
    assert!(sim.requests().iter().any(|q| q.fault == Some("overlong")), "the overlong answer was sent");
}
