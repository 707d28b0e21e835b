//! The engine against the embedded simulator over real HTTP on 127.0.0.1.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::*;
use reel_engine::{Engine, EngineConfig, EngineError, Event, Health, PollPolicy, ServiceState};
use reel_rules::{Catalog, Draft, UnknownModels, ValidSubmission, validate};
use reel_sim::{Answers, Faults, Gateway, SimConfig, SimHandle, UrlPlacement};
use reel_store::{LocalState, Store, TaskRecord};
use tokio::sync::mpsc::UnboundedReceiver;

/// Fast polling for tests: the same shape as the defaults, in tenths of a second.
fn fast_policy(budget: u32) -> PollPolicy {
    PollPolicy {
        first_poll: Duration::from_millis(100),
        base: Duration::from_millis(100),
        max: Duration::from_millis(400),
        slow: Duration::from_millis(400),
        client_timeout: Duration::from_secs(60),
        budget_per_sec: budget,
        backoff_base: Duration::from_millis(50),
        vendor_retention: Duration::from_secs(24 * 3600),
        backoff_max: Duration::from_millis(400),
    }
}

struct Rig {
    _dir: tempfile::TempDir,
    data: std::path::PathBuf,
    engine: Option<Engine>,
    events: UnboundedReceiver<Event>,
    tasks: HashMap<i64, TaskRecord>,
    service: ServiceState,
}

fn submission(prompt: &str) -> ValidSubmission {
    let draft = Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: prompt.into(),
        seconds: Some("4".into()),
        resolution: Some("480P".into()),
        ..Draft::default()
    };
    validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
}

async fn rig(sim: &SimHandle, budget: u32) -> Rig {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().to_path_buf();
    let (engine, events) = start_engine(sim, &data, budget).await;
    Rig { _dir: dir, data, engine: Some(engine), events, tasks: HashMap::new(), service: ServiceState::default() }
}

async fn start_engine(sim: &SimHandle, data: &Path, budget: u32) -> (Engine, UnboundedReceiver<Event>) {
    start_engine_with(client_for(sim), data, fast_policy(budget)).await
}

async fn start_engine_with(
    client: reel_api::Client,
    data: &Path,
    policy: PollPolicy,
) -> (Engine, UnboundedReceiver<Event>) {
    let store = Store::open(&data.join("reel.db")).expect("store");
    let mut config = EngineConfig::new(data.join("videos"));
    config.policy = policy;
    config.download_attempts = 20;
    Engine::start(config, client, store).await.expect("engine")
}

impl Rig {
    /// Submits `count` copies and returns their local ids.
    async fn submit(&self, prompt: &str, count: u32) -> Vec<i64> {
        self.engine().submit(submission(prompt), count, None).await.expect("submitted").iter().map(|r| r.id).collect()
    }

    fn engine(&self) -> &Engine {
        self.engine.as_ref().expect("running")
    }

    /// Follows events until every given task is settled.
    async fn settle(&mut self, ids: &[i64], limit: Duration) {
        self.until(limit, |r| ids.iter().all(|id| r.tasks.get(id).is_some_and(|t| t.state.is_settled()))).await;
    }

    /// Follows events until `done` says so; what the service is like is kept in `service`.
    async fn until(&mut self, limit: Duration, done: impl Fn(&Rig) -> bool) {
        let deadline = Instant::now() + limit;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.events.recv()).await {
                Ok(Some(Event::Task(u))) => {
                    self.tasks.insert(u.record.id, u.record);
                }
                Ok(Some(Event::Service(s))) => self.service = s,
                Ok(Some(_)) => {}
                Ok(None) => panic!("the engine stopped"),
                Err(_) => {
                    let states: Vec<_> = self.tasks.values().map(|t| (t.id, t.state)).collect();
                    panic!("not there in {limit:?}: {states:?}, service {:?}", self.service);
                }
            }
        }
    }
}

fn assert_saved(sim: &SimHandle, t: &TaskRecord, data: &Path) {
    assert_eq!(t.state, LocalState::Downloaded, "task {} {:?}", t.id, t.error);
    let path = Path::new(t.file_path.as_deref().expect("a file path"));
    assert!(path.starts_with(data.join("videos")), "{}", path.display());
    let bytes = std::fs::read(path).expect("the file exists");
    let served = sim.video_bytes(t.remote_id.as_deref().expect("remote id")).expect("served");
    assert_eq!(bytes, served.to_vec(), "task {} bytes", t.id);
    assert_eq!(t.sha256.as_deref(), Some(sha256_hex(&bytes).as_str()));
    assert_eq!(t.file_size, Some(bytes.len() as i64));
    assert!(path.with_extension("json").exists(), "sidecar");
    assert!(!path.with_extension("mp4.part").exists());
}

#[tokio::test]
async fn submitted_tasks_end_downloaded_with_matching_bytes() {
    let sim = start(fast_config()).await;
    let mut rig = rig(&sim, 50).await;
    let records = rig.engine().submit(submission("a red fox"), 3, None).await.expect("submitted");
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r.state == LocalState::Waiting), "journaled, waiting to be sent");
    let ids: Vec<i64> = records.iter().map(|r| r.id).collect();
    rig.settle(&ids, Duration::from_secs(20)).await;
    for id in &ids {
        assert_saved(&sim, &rig.tasks[id], &rig.data);
    }
    assert_eq!(sim.task_count(), 3);
    rig.engine.take().expect("engine").shutdown().await;
}

#[tokio::test]
async fn a_local_file_not_uploaded_is_never_journaled_or_sent() {
    let sim = start(fast_config()).await;
    let mut rig = rig(&sim, 50).await;
    let draft = Draft {
        model: "acme/aurora-3.0/image-to-video".into(),
        prompt: "the still, moving".into(),
        media: vec![reel_rules::MediaDraft::typed("first_frame", "./still.png", None)],
        ..Draft::default()
    };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
    assert!(valid.awaits_uploads());
    let refused = rig.engine().submit(valid, 1, None).await;
    assert!(
        matches!(refused, Err(reel_engine::EngineError::Refused(reel_engine::Refused::NotUploaded { item: 1 }))),
        "{refused:?}"
    );
    assert_eq!(sim.task_count(), 0);
    assert!(reel_engine::query::unfinished(&rig.data.join("reel.db")).expect("read").is_empty());
    rig.engine.take().expect("engine").shutdown().await;
}

/// Polls and downloads under every fault the simulator has. Submissions run under 429 and slow
/// answers only: a POST whose answer is lost (reset, malformed, most 5xx) is `submit_unknown`
/// by design and is never resent on its own.
#[tokio::test]
async fn fifty_tasks_under_injected_faults_all_end_downloaded() {
    let mut config = fast_config();
    // Long enough that every task is polled a few times under the faults, even when a loaded
    // machine takes seconds to get all fifty accepted.
    config.lifecycle.render_min = Duration::from_secs(8);
    config.lifecycle.render_max = Duration::from_secs(9);
    let sim = start(SimConfig {
        faults: Faults { rate_limit: 0.1, slow: 0.1, slow_delay: Duration::from_millis(100), ..Faults::default() },
        ..config
    })
    .await;
    let mut rig = rig(&sim, 100).await;
    let records = rig.engine().submit(submission("a storm over the sea"), 50, None).await.expect("submitted");
    let ids: Vec<i64> = records.iter().map(|r| r.id).collect();
    // Wait until every task is accepted, then turn every fault on.
    let deadline = Instant::now() + Duration::from_secs(30);
    while sim.task_count() < 50 {
        assert!(Instant::now() < deadline, "only {} accepted", sim.task_count());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sim.set_faults(Faults {
        server_error: 0.1,
        rate_limit: 0.03,
        retry_after: Duration::from_secs(1),
        drop: 0.05,
        slow: 0.05,
        slow_delay: Duration::from_millis(100),
        malformed: 0.1,
        truncate: 0.3,
    });
    rig.settle(&ids, Duration::from_secs(90)).await;
    for id in &ids {
        assert_saved(&sim, &rig.tasks[id], &rig.data);
    }
    let faults: Vec<&str> = sim.requests().iter().filter_map(|r| r.fault).collect();
    for kind in ["server_error", "rate_limit", "drop", "malformed", "truncate"] {
        assert!(faults.contains(&kind), "the run met no {kind} fault");
    }
    assert_eq!(sim.task_count(), 50, "no task was submitted twice");
}

#[tokio::test]
async fn no_task_is_polled_more_often_than_its_interval() {
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_secs(2);
    config.lifecycle.render_max = Duration::from_secs(2);
    let sim = start(config).await;
    let mut rig = rig(&sim, 100).await;
    let ids = rig.submit("p", 5).await;
    rig.settle(&ids, Duration::from_secs(20)).await;
    let mut by_task: HashMap<String, Vec<Instant>> = HashMap::new();
    for r in sim.requests() {
        if r.method == "GET" && r.path.starts_with("/v1/videos/") {
            by_task.entry(r.path.clone()).or_default().push(r.arrived);
        }
    }
    assert_eq!(by_task.len(), 5);
    let policy = fast_policy(100);
    for (path, times) in by_task {
        assert!(times.len() >= 3, "{path} polled {} times", times.len());
        for pair in times.windows(2) {
            let gap = pair[1].duration_since(pair[0]);
            // The engine never decides less than 0.95 × base (schedule tests); arrivals at the
            // server may be squeezed by scheduling jitter, hence the room below that.
            let floor = policy.base.mul_f64(0.95).saturating_sub(Duration::from_millis(20));
            assert!(gap >= floor, "{path}: {gap:?} between polls");
        }
    }
}

#[tokio::test]
async fn no_request_leaves_before_retry_after() {
    let sim = start(SimConfig {
        faults: Faults { rate_limit: 0.3, retry_after: Duration::from_secs(1), ..Faults::default() },
        ..fast_config()
    })
    .await;
    let mut rig = rig(&sim, 100).await;
    let ids = rig.submit("p", 4).await;
    rig.settle(&ids, Duration::from_secs(60)).await;
    let log = sim.requests();
    let limited: Vec<Instant> = log.iter().filter(|r| r.status == 429).map(|r| r.at).collect();
    assert!(!limited.is_empty());
    // Requests already on their way when the 429 was answered arrive within a few ms.
    let in_flight = Duration::from_millis(50);
    for at in &limited {
        for r in log.iter().filter(|r| r.arrived > *at + in_flight && !r.path.starts_with("/files/")) {
            assert!(
                r.arrived >= *at + Duration::from_secs(1),
                "{} {} arrived {:?} after a 429",
                r.method,
                r.path,
                r.arrived - *at
            );
        }
    }
}

#[tokio::test]
async fn the_request_budget_holds_with_a_thousand_tasks_in_flight() {
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_secs(600);
    config.lifecycle.render_max = Duration::from_secs(600);
    let sim = start(config).await;
    let mut rig = rig(&sim, 100).await;
    rig.engine().submit(submission("p"), 1000, None).await.expect("submitted");
    let deadline = Instant::now() + Duration::from_secs(40);
    while sim.task_count() < 1000 {
        assert!(Instant::now() < deadline, "only {} accepted", sim.task_count());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    rig.engine.take().expect("engine").shutdown().await;
    while rig.events.try_recv().is_ok() {}
    let times: Vec<Instant> = sim.requests().iter().map(|r| r.arrived).collect();
    let polls = sim.requests().iter().filter(|r| r.method == "GET").count();
    assert!(polls > 0, "polling went on while submitting");
    // The exact budget is a decision of the pure core, tested in virtual time
    // (engine::queue tests); at the server, arrival times carry the machine's scheduling
    // jitter, so this checks the rate over two-second windows with room for that jitter only.
    for (i, t) in times.iter().enumerate() {
        let in_window = times[i..].iter().take_while(|u| u.duration_since(*t) < Duration::from_secs(2)).count();
        assert!(in_window <= 220, "{in_window} requests in the two seconds after request {i}");
    }
}

#[tokio::test]
async fn the_key_is_in_neither_the_database_nor_the_sidecars() {
    let sim = start(SimConfig { api_key: "sk-very-secret-key-4242".into(), ..fast_config() }).await;
    let mut rig = rig(&sim, 50).await;
    let ids = rig.submit("p", 2).await;
    rig.settle(&ids, Duration::from_secs(20)).await;
    // Once while running (the WAL file is there), once after (all checkpointed into the db).
    let running = scan_for_key(&rig.data);
    assert!(running.iter().any(|p| p.to_string_lossy().ends_with("-wal")), "{running:?}");
    rig.engine.take().expect("engine").shutdown().await;
    let stopped = scan_for_key(&rig.data);
    assert!(stopped.len() >= 5, "checked {stopped:?}");
}

/// Reads every file under `dir` and fails if the key is in one; returns the files read.
fn scan_for_key(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut read = Vec::new();
    for entry in walk(dir) {
        // SQLite removes its -wal and -shm files as it closes.
        let Ok(bytes) = std::fs::read(&entry) else { continue };
        let hit = bytes.windows(b"very-secret".len()).any(|w| w == b"very-secret");
        assert!(!hit, "the key is in {}", entry.display());
        read.push(entry);
    }
    read
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

#[tokio::test]
async fn hostile_task_ids_cannot_place_files_outside_the_videos_folder() {
    let sim = start(SimConfig { id_prefix: "../../../../evil/".into(), ..fast_config() }).await;
    let mut rig = rig(&sim, 50).await;
    let ids: Vec<i64> = rig
        .engine()
        .submit(submission("../../escape"), 2, None)
        .await
        .expect("submitted")
        .iter()
        .map(|r| r.id)
        .collect();
    rig.settle(&ids, Duration::from_secs(20)).await;
    for id in &ids {
        let t = &rig.tasks[id];
        assert!(t.remote_id.as_deref().is_some_and(|r| r.starts_with("../")), "{:?}", t.remote_id);
        assert_saved(&sim, t, &rig.data);
    }
    let everything = walk(&rig.data);
    assert!(everything.iter().all(|p| !p.to_string_lossy().contains("evil")), "{everything:?}");
}

#[tokio::test]
async fn a_restarted_engine_resumes_polls_and_downloads() {
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_millis(600);
    config.lifecycle.render_max = Duration::from_millis(600);
    let sim = start(config).await;
    let mut rig = rig(&sim, 50).await;
    let ids = rig.submit("p", 3).await;
    // Stop once all are accepted, before they finish.
    let deadline = Instant::now() + Duration::from_secs(10);
    while sim.task_count() < 3 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    rig.engine.take().expect("engine").shutdown().await;
    let (engine, events) = start_engine(&sim, &rig.data, 50).await;
    rig.engine = Some(engine);
    rig.events = events;
    rig.tasks.clear();
    rig.settle(&ids, Duration::from_secs(20)).await;
    for id in &ids {
        assert_saved(&sim, &rig.tasks[id], &rig.data);
    }
    assert_eq!(sim.task_count(), 3);
}

#[tokio::test]
async fn a_second_engine_on_the_same_data_folder_is_refused() {
    let sim = start(fast_config()).await;
    let rig = rig(&sim, 50).await;
    let store = Store::open(&rig.data.join("reel.db")).expect("store");
    let second = Engine::start(EngineConfig::new(rig.data.join("videos")), client_for(&sim), store).await;
    assert!(matches!(second, Err(reel_engine::EngineError::Busy(_))));
}

#[tokio::test]
async fn an_expired_url_is_refreshed_once_then_the_task_is_expired() {
    let mut config = fast_config();
    config.url_ttl = Duration::from_millis(1);
    let sim = start(config).await;
    let mut rig = rig(&sim, 50).await;
    let ids = rig.submit("p", 1).await;
    rig.settle(&ids, Duration::from_secs(20)).await;
    let t = &rig.tasks[&ids[0]];
    assert_eq!(t.state, LocalState::Expired);
    assert!(t.error.as_ref().and_then(|e| e["message"].as_str()).is_some_and(|m| m.contains("fresh")));
    let remote = t.remote_id.clone().expect("remote");
    let polls_after_done = sim.requests().iter().filter(|r| r.method == "GET" && r.path.ends_with(&remote)).count();
    let file_tries = sim.requests().iter().filter(|r| r.path.starts_with("/files/")).count();
    assert_eq!(file_tries, 2, "one download, one after the fresh poll");
    let routed = sim.requests().iter().filter(|r| r.path == format!("/v1/videos/{remote}/content")).count();
    assert_eq!(routed, 1, "then the service's own file route, once");
    assert!(polls_after_done >= 2);
}

#[tokio::test]
async fn failed_and_lost_tasks_are_recorded_as_such() {
    let mut config = fast_config();
    config.lifecycle.failure_rate = 1.0;
    let sim = start(config).await;
    let mut rig = rig(&sim, 50).await;
    let ids = rig.submit("p", 1).await;
    rig.settle(&ids, Duration::from_secs(20)).await;
    let t = &rig.tasks[&ids[0]];
    assert_eq!(t.state, LocalState::Failed);
    assert!(t.error.as_ref().is_some_and(|e| e["message"].is_string()));
}

/// A simulator that answers as new-api does, its URL where `url` says.
fn gateway_config(url: UrlPlacement) -> SimConfig {
    let gateway = Gateway { url, not_started: Duration::from_millis(150), ..Gateway::default() };
    SimConfig { answers: Answers::Gateway(gateway), ..fast_config() }
}

#[tokio::test]
async fn tasks_of_a_gateway_end_saved_wherever_it_puts_the_url() {
    for (name, placement) in UrlPlacement::NAMES {
        let sim = start(gateway_config(placement)).await;
        let mut rig = rig(&sim, 50).await;
        let ids = rig.submit("a gateway fox", 2).await;
        rig.settle(&ids, Duration::from_secs(20)).await;
        for id in &ids {
            assert_saved(&sim, &rig.tasks[id], &rig.data);
        }
        let unknown = sim.requests().iter().filter(|r| r.method == "GET").count();
        assert!(unknown >= 2, "{name}: polled through `unknown` and the rest");
    }
}

#[tokio::test]
async fn a_gateway_failure_says_its_text_and_a_forgotten_task_is_lost() {
    let mut config = gateway_config(UrlPlacement::MetadataUrl);
    config.lifecycle.failure_rate = 1.0;
    let sim = start(config).await;
    let mut failing = rig(&sim, 50).await;
    let ids = failing.submit("p", 1).await;
    failing.settle(&ids, Duration::from_secs(20)).await;
    let t = &failing.tasks[&ids[0]];
    assert_eq!(t.state, LocalState::Failed);
    let message = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default();
    assert!(message.ends_with('.') && !message.starts_with("http"), "the failure text, not a URL: {message}");

    // The vendor forgets the task while it renders: `unknown` past the client timeout is lost.
    let mut config = gateway_config(UrlPlacement::MetadataUrl);
    config.lifecycle.render_min = Duration::from_secs(60);
    config.lifecycle.render_max = Duration::from_secs(60);
    if let Answers::Gateway(g) = &mut config.answers {
        g.forget_after = Duration::from_millis(400);
    }
    let sim = start(config).await;
    let mut forgotten = rig(&sim, 50).await;
    let policy = PollPolicy {
        client_timeout: Duration::from_millis(1200),
        vendor_retention: Duration::from_millis(1500),
        ..fast_policy(50)
    };
    forgotten.engine.take().expect("engine").shutdown().await;
    let (engine, events) = start_engine_with(client_for(&sim), &forgotten.data, policy).await;
    (forgotten.engine, forgotten.events) = (Some(engine), events);
    let ids = forgotten.submit("p", 1).await;
    forgotten.settle(&ids, Duration::from_secs(20)).await;
    let t = &forgotten.tasks[&ids[0]];
    assert_eq!((t.state, t.remote_status.as_deref()), (LocalState::Lost, Some("unknown")));
    let message = t.error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default();
    assert!(message.contains("lost track"), "{message}");
}

/// A port on 127.0.0.1 that nothing listens on (yet).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

#[tokio::test]
async fn an_outage_leaves_submissions_waiting_until_the_service_answers() {
    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().to_path_buf();
    let key = reel_api::ApiKey::new(reel_sim::DEFAULT_API_KEY).expect("key");
    let client = reel_api::Client::new(&format!("http://127.0.0.1:{port}/"), key, Default::default()).expect("client");
    let (engine, events) = start_engine_with(client, &data, fast_policy(50)).await;
    let mut rig =
        Rig { _dir: dir, data, engine: Some(engine), events, tasks: HashMap::new(), service: ServiceState::default() };
    let ids = rig.submit("sent after the outage", 2).await;
    rig.until(Duration::from_secs(10), |r| r.service.health == Health::Unreachable).await;
    rig.until(Duration::from_secs(10), |r| {
        ids.iter().all(|id| r.tasks.get(id).is_some_and(|t| t.state == LocalState::Waiting && t.error.is_some()))
    })
    .await;
    let summary = rig.service.summary(reel_engine::now_ms());
    assert!(summary.starts_with("unreachable since") && summary.contains("next try in"), "{summary}");
    assert!(!summary.contains("rate limited") && !summary.contains("Retry-After"), "{summary}");
    // Longer than the three attempts that used to reject them.
    tokio::time::sleep(Duration::from_secs(2)).await;
    rig.until(Duration::from_secs(1), |_| true).await;
    assert!(ids.iter().all(|id| rig.tasks[id].state == LocalState::Waiting), "an outage is not a rejection");

    let sim = start(fast_config()).await;
    drop(sim);
    let sim = loop {
        match SimHandle::start(fast_config(), port).await {
            Ok(sim) => break sim,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    rig.settle(&ids, Duration::from_secs(40)).await;
    for id in &ids {
        assert_saved(&sim, &rig.tasks[id], &rig.data);
        assert!(rig.tasks[id].error.is_none(), "the outage's reason is gone once sent");
    }
    rig.until(Duration::from_secs(5), |r| r.service.health == Health::Ok).await;
    assert_eq!(sim.task_count(), 2, "each sent once");
}

#[tokio::test]
async fn a_refused_key_keeps_tasks_waiting_until_a_working_key_is_in_use() {
    let sim = start(gateway_config(UrlPlacement::MetadataUrl)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().to_path_buf();
    let wrong = client_with(&sim, "sk-wrong", Default::default());
    let (engine, events) = start_engine_with(wrong, &data, fast_policy(50)).await;
    let mut rig =
        Rig { _dir: dir, data, engine: Some(engine), events, tasks: HashMap::new(), service: ServiceState::default() };
    let ids = rig.submit("p", 3).await;
    rig.until(Duration::from_secs(10), |r| r.service.health == Health::KeyRefused).await;
    rig.until(Duration::from_secs(10), |r| {
        ids.iter().all(|id| r.tasks.get(id).is_some_and(|t| t.state == LocalState::Waiting))
    })
    .await;
    let posts = || sim.requests().iter().filter(|r| r.method == "POST").count();
    let refused_sends = posts();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(posts(), refused_sends, "a refusal stops every send (those already in flight aside)");
    let message = rig.tasks[&ids[0]].error.as_ref().and_then(|e| e["message"].as_str()).unwrap_or_default().to_string();
    assert!(message.contains("check REEL_API_KEY or api_key_cmd") && message.contains("request id"), "{message}");
    let refused = rig.engine().submit(submission("p"), 1, None).await;
    assert!(
        matches!(refused, Err(EngineError::Refused(reel_engine::Refused::KeyRefused { .. }))),
        "nothing more is journaled: {refused:?}"
    );
    let store = Store::open(&rig.data.join("reel.db")).expect("store");
    let waiting = store.read(reel_store::tasks::unfinished).await.expect("read");
    assert_eq!(waiting.len(), 3, "three tasks wait, none rejected");

    // A working key in use: the waiting tasks go.
    rig.engine.take().expect("engine").shutdown().await;
    let (engine, events) = start_engine_with(client_for(&sim), &rig.data, fast_policy(50)).await;
    (rig.engine, rig.events) = (Some(engine), events);
    rig.settle(&ids, Duration::from_secs(20)).await;
    for id in &ids {
        assert_saved(&sim, &rig.tasks[id], &rig.data);
    }
}

/// A review of a task the engine is still working on: the engine journals it, and every later
/// news of the task (sent, rendering, saved) carries it, so no dashboard shows it taken back.
#[tokio::test]
async fn a_task_reviewed_while_it_renders_keeps_its_review_to_the_end() {
    use reel_store::review::Change;
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_millis(800);
    config.lifecycle.render_max = Duration::from_millis(900);
    let sim = start(config).await;
    let mut rig = rig(&sim, 50).await;
    let id = rig.submit("a red fox", 1).await[0];
    let rated = rig.engine().review(id, Change::Rate(Some(4))).await.expect("reviewed");
    assert_eq!(rated.review.rating, Some(4));
    assert!(!rated.state.is_settled(), "reviewed while the engine works on it: {}", rated.state);
    rig.engine().review(id, Change::Tag(vec!["Keeper".into()])).await.expect("tagged");
    rig.settle(&[id], Duration::from_secs(20)).await;
    let last = &rig.tasks[&id];
    assert_eq!(last.state, LocalState::Downloaded);
    assert_eq!((last.review.rating, last.review.tags.clone()), (Some(4), vec!["keeper".to_string()]));
    let stored = reel_engine::query::show(&rig.data.join("reel.db"), id).expect("read");
    assert_eq!(stored.0.review, last.review, "the journal agrees");
    let timeline: Vec<&str> = stored.1.iter().map(|e| e.state.as_str()).collect();
    assert!(timeline.contains(&"rated 4") && timeline.contains(&"tagged keeper"), "{timeline:?}");
    let missing = rig.engine().review(id + 100, Change::Pick(true)).await;
    assert!(
        matches!(missing, Err(EngineError::Refused(reel_engine::Refused::NoTask { id: n })) if n == id + 100),
        "{missing:?}"
    );
    rig.engine.take().expect("engine").shutdown().await;
}
