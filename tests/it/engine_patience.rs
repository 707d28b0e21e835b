//! What the engine believes and how long it waits: a Retry-After within reason, a task the
//! service forgot that stays saved, and an engine that gives up on a server gone for good.
//! The real binary (or the engine) against the simulator on 127.0.0.1.

use std::path::PathBuf;

use crate::common::folder::{MODEL, folder};
use crate::common::*;
use serde_json::Value;

fn message(t: &Value) -> String {
    t["error"]["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_task_the_service_forgot_stays_saved_and_a_missing_file_stays_missing() {
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    let (code, out, err) =
        f.run(&sim, &["submit", "--model", MODEL, "--prompt", "a red fox", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let task = serde_json::from_str::<Value>(&out).expect("json")[0].clone();
    assert_eq!(task["state"], "downloaded");
    let (id, remote) = (task["id"].to_string(), task["remote_id"].as_str().expect("remote id").to_string());
    let path = PathBuf::from(task["file_path"].as_str().expect("path"));
    assert_eq!(f.run(&sim, &["rate", &id, "4"]).await.0, 0);
    assert_eq!(f.run(&sim, &["pick", &id]).await.0, 0);

    // A day later the service no longer knows the id: its polls and its file answer 404.
    assert!(sim.forget(&remote));
    let (code, out, err) = f.run(&sim, &["download", &id, "--json"]).await;
    assert_eq!(code, 0, "the video is still saved: {out} {err}");
    let t = serde_json::from_str::<Value>(&out).expect("json")[0].clone();
    assert_eq!(t["state"], "downloaded", "{t}");
    assert!(message(&t).starts_with("the service no longer has this task"), "{t}");
    assert!(message(&t).ends_with("the saved file is kept"), "{t}");
    assert_eq!((t["rating"].as_u64(), t["picked"].as_bool()), (Some(4), Some(true)), "{t}");
    assert_eq!(t["file_path"].as_str(), path.to_str());
    assert!(path.exists());
    let served = std::fs::read(&path).expect("file");
    let on_disk = t["file_sha256"].as_str().or(t["sha256"].as_str());
    assert_eq!(on_disk, Some(sha256_hex(&served).as_str()), "the file is the one saved");
    assert_eq!(t["sha256"], task["sha256"]);

    // The file deleted, and the service still without it: the task stays missing and says so.
    std::fs::remove_file(&path).expect("the user deletes the file");
    let (code, out, err) = f.run(&sim, &["download", &id]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("downloaded") && out.contains("the saved file is still missing"), "{out}");
    assert!(!path.exists(), "no file appears from nowhere");
    let (_, out, _) = f.run(&sim, &["show", &id, "--json"]).await;
    let shown: Value = serde_json::from_str(&out).expect("json");
    let said: Vec<&str> =
        shown["events"].as_array().expect("events").iter().filter_map(|e| e["detail"].as_str()).collect();
    assert!(said.iter().any(|d| d.ends_with("still missing")), "{said:?}");
    assert!(!said.iter().any(|d| d.contains("is lost")), "never called lost: {said:?}");

    // The ledger counts the render as a success, not a loss.
    let (code, out, err) = f.run(&sim, &["history", "stats", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let total = serde_json::from_str::<Value>(&out).expect("json")["total"].clone();
    assert_eq!((total["succeeded"].as_u64(), total["lost"].as_u64()), (Some(1), Some(0)), "{total}");
}

/// A TCP relay on 127.0.0.1 in front of the simulator: stopped, the service is gone (every
/// connection refused, open ones cut) while the simulator keeps its tasks; started again on
/// the same port, it is back.
struct Relay {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn start(port: u16, to: std::net::SocketAddr) -> Relay {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("relay binds");
        let port = listener.local_addr().expect("addr").port();
        let task = tokio::spawn(async move {
            // Dropped with this task, so stopping the relay cuts the connections it carries.
            let mut carried = tokio::task::JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                carried.spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Relay { port, task }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

fn journal_states(data: &std::path::Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(data.join("reel.db")).expect("journal");
    let mut stmt = conn
        .prepare("SELECT t.remote_id, s.name FROM tasks t JOIN states s ON s.code = t.state_code ORDER BY t.id")
        .expect("query");
    stmt.query_map([], |r| Ok((r.get::<_, Option<String>>(0)?.unwrap_or_default(), r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_engine_whose_service_is_gone_exits_leaving_its_tasks_for_the_next() {
    use std::time::{Duration, Instant};
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_secs(4);
    config.lifecycle.render_max = Duration::from_secs(5);
    let sim = start(config).await;
    let relay = Relay::start(0, sim.addr()).await;
    let (port, base) = (relay.port, relay.url());
    let f = folder(0.5, 50);
    let mut text = std::fs::read_to_string(&f.config).expect("config");
    text.push_str("give_up_after_secs = 2\n");
    std::fs::write(&f.config, text).expect("config");
    let reel = |args: &[&str]| {
        let mut c = f.reel(&sim, args);
        c.env("REEL_BASE_URL", &base);
        c
    };
    let out =
        reel(&["submit", "--model", MODEL, "--prompt", "a lighthouse", "--count", "2"]).output().await.expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let socket = reel_engine::service::socket_path(&f.data);
    assert!(socket.exists(), "an engine process runs the tasks");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !journal_states(&f.data).iter().all(|(remote, _)| !remote.is_empty()) {
        assert!(Instant::now() < deadline, "not accepted: {:?}", journal_states(&f.data));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The service goes away for good, as far as this engine can tell.
    relay.stop().await;
    let gone_at = Instant::now();
    let before = journal_states(&f.data);
    assert!(before.iter().all(|(_, s)| s == "queued" || s == "in_progress"), "{before:?}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while socket.exists() {
        assert!(Instant::now() < deadline, "the engine did not give up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone_at.elapsed() >= Duration::from_secs(2), "not before [engine] give_up_after_secs");
    let logs: String = walk(&f.data.join("logs")).iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
    assert!(logs.contains("the service has been unreachable for"), "the log says why it exits:\n{logs}");
    assert!(logs.contains("they stay in the journal for the next engine"), "{logs}");
    assert_eq!(journal_states(&f.data), before, "its tasks are left as they were");

    // The service is back: the next engine takes them up and saves them.
    let relay = Relay::start(port, sim.addr()).await;
    let waited = tokio::time::timeout(crate::common::folder::PATIENCE, reel(&["wait", "--all", "--json"]).output());
    let out = waited.await.expect("in time").expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = journal_states(&f.data);
    assert!(after.iter().all(|(_, s)| s == "downloaded"), "{after:?}");
    relay.stop().await;
}

mod retry_after {
    use std::collections::HashMap;
    use std::time::{Duration, Instant};

    use crate::common::*;
    use reel_api::{ApiError, ClientOptions};
    use reel_engine::{Engine, EngineConfig, Event, Health, PollPolicy, ServiceState};
    use reel_rules::{Catalog, Draft, UnknownModels, validate};
    use reel_sim::{Faults, Hostile, SimConfig, SimHandle, Trigger};
    use reel_store::{LocalState, Store, TaskRecord};
    use tokio::sync::mpsc::UnboundedReceiver;

    struct Rig {
        _dir: tempfile::TempDir,
        engine: Engine,
        events: UnboundedReceiver<Event>,
        tasks: HashMap<i64, TaskRecord>,
        /// Every service state announced, with when it came.
        service: Vec<(i64, ServiceState)>,
    }

    async fn rig(sim: &SimHandle, max_downloads: usize) -> Rig {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("reel.db")).expect("store");
        let mut config = EngineConfig::new(dir.path().join("videos"));
        config.policy = PollPolicy {
            first_poll: Duration::from_millis(100),
            base: Duration::from_millis(100),
            max: Duration::from_millis(300),
            slow: Duration::from_millis(300),
            backoff_base: Duration::from_millis(50),
            backoff_max: Duration::from_millis(300),
            budget_per_sec: 50,
            ..PollPolicy::default()
        };
        config.max_downloads = max_downloads;
        // The SDKs' cap, as `[engine] max_retry_after_secs` has it by default.
        let client = client_with(sim, sim.api_key(), ClientOptions::default());
        let (engine, events) = Engine::start(config, client, store).await.expect("engine");
        Rig { _dir: dir, engine, events, tasks: HashMap::new(), service: Vec::new() }
    }

    impl Rig {
        async fn submit(&self, count: u32) -> Vec<i64> {
            let draft = Draft {
                model: "acme/aurora-3.0/text-to-video".into(),
                prompt: "a lighthouse in a storm".into(),
                seconds: Some("4".into()),
                resolution: Some("480P".into()),
                ..Draft::default()
            };
            let s = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
            self.engine.submit(s, count, None).await.expect("journaled").iter().map(|r| r.id).collect()
        }

        /// Follows events until `done` holds for every task, within a generous bound.
        async fn until(&mut self, ids: &[i64], done: impl Fn(&TaskRecord) -> bool) {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !ids.iter().all(|id| self.tasks.get(id).is_some_and(&done)) {
                let left = deadline.saturating_duration_since(Instant::now());
                match tokio::time::timeout(left, self.events.recv()).await {
                    Ok(Some(Event::Task(u))) => {
                        self.tasks.insert(u.record.id, u.record);
                    }
                    Ok(Some(Event::Service(s))) => self.service.push((reel_engine::now_ms(), s)),
                    Ok(Some(_)) => {}
                    Ok(None) => panic!("the engine stopped"),
                    Err(_) => panic!("not there within the bound: {:?}", self.tasks),
                }
            }
        }

        /// Follows events for `d`.
        async fn watch(&mut self, d: Duration) {
            let _ = tokio::time::timeout(d, self.until(&[i64::MAX], |_| false)).await;
        }
    }

    /// No announced pause reaches further than the cap, and none is called the service's own.
    fn within_reason(service: &[(i64, ServiceState)]) {
        for (at, s) in service {
            assert!(s.paused_until_ms.is_none_or(|u| u <= at + 60_000), "a pause past the cap: {s:?}");
            assert!(!s.retry_after, "a Retry-After past the cap is not believed: {s:?}");
            assert!(!s.summary(*at).contains("Retry-After"), "{}", s.summary(*at));
        }
    }

    #[tokio::test]
    async fn a_429_asking_for_a_day_is_not_believed_and_reel_backs_off_on_its_own() {
        let faults = Faults { rate_limit: 1.0, retry_after: Duration::from_secs(86_400), ..Faults::default() };
        let sim = start(SimConfig { faults, ..fast_config() }).await;
        let mut r = rig(&sim, 4).await;
        let ids = r.submit(1).await;
        r.watch(Duration::from_secs(1)).await;
        let limited: Vec<_> = r.service.iter().filter(|(_, s)| s.health == Health::RateLimited).collect();
        let (at, first) = limited.first().expect("the 429 is announced");
        assert!(first.summary(*at).starts_with("rate limited (HTTP 429) · next try in "), "{}", first.summary(*at));
        within_reason(&r.service);
        sim.set_faults(Faults::default());
        r.until(&ids, |t| t.state.is_settled()).await;
        assert_eq!(r.tasks[&ids[0]].state, LocalState::Downloaded);
        within_reason(&r.service);
        let asked = sim.requests().iter().filter(|q| q.fault == Some("rate_limit")).count();
        assert!(asked >= 1, "answered 429 first");
    }

    #[tokio::test]
    async fn a_503_until_the_year_9999_is_not_believed_and_polls_go_on() {
        let mut config = fast_config();
        config.lifecycle.render_min = Duration::from_secs(1);
        config.lifecycle.render_max = Duration::from_secs(1);
        let sim = start(config).await;
        // As far ahead as an HTTP date goes.
        let far = Faults { retry_after: Duration::from_secs(300_000_000_000), ..Faults::default() };
        sim.set_faults(far);
        sim.set_hostile(Hostile { unavailable: Trigger::Always, retry_after_date: true, ..Hostile::default() });
        let err = client_for(&sim).get("x").await.expect_err("503");
        assert!(matches!(err, ApiError::Server { status: 503, retry_after: None, .. }), "not believed: {err:?}");
        let raw = reqwest::get(format!("{}/v1/videos/x", sim.base_url())).await.expect("answers");
        assert_eq!(raw.status(), 503);
        let said = raw.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        assert_eq!(said.as_deref(), Some("Fri, 31 Dec 9999 23:59:59 GMT"));
        sim.set_hostile(Hostile::default());

        let mut r = rig(&sim, 4).await;
        let ids = r.submit(1).await;
        r.until(&ids, |t| t.remote_id.is_some()).await;
        sim.set_hostile(Hostile { unavailable: Trigger::Always, retry_after_date: true, ..Hostile::default() });
        r.watch(Duration::from_secs(2)).await;
        let refused = sim.requests().iter().filter(|q| q.fault == Some("unavailable")).count();
        assert!(refused >= 3, "polled again and again, not held until 9999: {refused}");
        assert!(r.service.iter().any(|(_, s)| s.health == Health::Failing), "{:?}", r.service);
        within_reason(&r.service);
        sim.set_hostile(Hostile::default());
        r.until(&ids, |t| t.state.is_settled()).await;
        assert_eq!(r.tasks[&ids[0]].state, LocalState::Downloaded);
    }

    #[tokio::test]
    async fn an_api_pause_holds_requests_never_the_downloads_of_files_already_finished() {
        // A file's size, to serve each in about two seconds.
        let measure = start(fast_config()).await;
        let done = completed_task(&client_for(&measure)).await;
        let size = measure.video_bytes(&done.id).expect("served").len() as u64;
        let sim = start(SimConfig { file_rate: Some((size / 2).max(1)), ..fast_config() }).await;
        let mut r = rig(&sim, 1).await;
        let ids = r.submit(3).await;
        // Every render finished and its URL known; the files wait for the one download slot.
        r.until(&ids, |t| t.url.is_some()).await;
        let waiting = ids.iter().filter(|id| r.tasks[id].state != LocalState::Downloaded).count();
        assert!(waiting >= 2, "files still to fetch when the pause begins: {waiting}");
        // The API asks for a pause of 55 s (believed: under the cap) while the files come.
        sim.set_faults(Faults { rate_limit: 1.0, retry_after: Duration::from_secs(55), ..Faults::default() });
        let more = r.submit(1).await;
        r.until(&more, |t| t.state == LocalState::Waiting && t.error.is_some()).await;
        let paused_at = sim.requests().len();
        r.until(&ids, |t| t.state == LocalState::Downloaded).await;
        let after: Vec<_> = sim.requests()[paused_at..].iter().map(|q| (q.method.clone(), q.path.clone())).collect();
        assert!(after.iter().all(|(_, path)| path.contains("/files/")), "only files during the pause: {after:?}");
        assert!(after.len() >= 2, "the other files came during the pause: {after:?}");
        let paused = r.service.iter().any(|(_, s)| s.health == Health::RateLimited && s.retry_after);
        assert!(paused, "the pause is the service's own, and said so: {:?}", r.service);
    }
}
