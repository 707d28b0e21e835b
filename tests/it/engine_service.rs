//! One engine per data folder, in a process of its own: the real binary and its engine process
//! against the simulator on 127.0.0.1. Every wait has one generous bound that only limits a
//! failure; nothing is asserted about how fast things happen.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::folder::*;
use crate::common::*;
use reel_engine::service::protocol::{self, FromEngine, PROTOCOL, ToEngine};
use reel_engine::service::{self, Launch};
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

#[tokio::test(flavor = "multi_thread")]
async fn the_first_client_starts_the_engine_later_ones_attach_and_it_exits_when_idle() {
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    assert_eq!(f.status(&sim).await["running"], false, "nothing runs before first use");
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "one"]).await;
    assert_eq!(code, 0, "{err}");
    let first = f.status(&sim).await;
    let pid = first["pid"].as_u64().expect("a pid");
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "two", "--count", "2"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(f.status(&sim).await["pid"].as_u64(), Some(pid), "the second client attached to the same engine");
    let (code, out, err) = f.run(&sim, &["wait", "--all", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let waited: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert!(waited.iter().all(|t| t["state"] == "downloaded"), "{out}");
    saved(&f.until_all_downloaded(&sim, 3).await);
    let socket = service::socket_path(&f.data);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if let Ok(meta) = std::fs::metadata(&socket) {
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "the socket is for this user only");
        }
    }
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn work_goes_on_with_no_client_attached() {
    let sim = start(slow_sim()).await;
    let f = folder(1.0, 50);
    let (code, out, err) =
        f.run(&sim, &["submit", "--model", MODEL, "--prompt", "later", "--count", "4", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let sent: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert!(sent.iter().all(|t| t["state"] != "downloaded"), "the client left before the tasks ended");
    saved(&f.until_all_downloaded(&sim, 4).await);
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_submission_from_another_terminal_reaches_an_attached_client_at_once() {
    let sim = start(slow_sim()).await;
    let f = folder(30.0, 50);
    let settings = settings_for(&f, &sim);
    let reach = reel_engine::session::Reach::Service(f.launch(&sim));
    let mut watcher = reel_engine::session::attach(&settings, &reach).await.expect("attached");
    let (code, out, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "from elsewhere", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let id = serde_json::from_str::<Vec<Value>>(&out).expect("json")[0]["id"].as_i64().expect("id");
    let mut states = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while states.last().map(String::as_str) != Some("downloaded") {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, watcher.events.recv()).await.expect("events in time") {
            Some(reel_engine::Event::Task(u)) if u.record.id == id => states.push(u.record.state.to_string()),
            Some(_) => {}
            None => panic!("the engine went away"),
        }
    }
    assert!(states.contains(&"queued".to_string()), "the watcher saw the task live: {states:?}");
    let (code, _, err) = f.run(&sim, &["engine", "stop"]).await;
    assert_eq!(code, 0, "{err}");
    watcher.engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_clients_at_once_share_one_engine_and_one_request_budget() {
    let sim = start(slow_sim()).await;
    let f = folder(1.0, 5);
    let submit = |prompt: &'static str| {
        let mut c = f.reel(&sim, &["submit", "--model", MODEL, "--prompt", prompt, "--count", "10", "--wait"]);
        async move { c.output().await.expect("runs") }
    };
    let (a, b) = tokio::join!(submit("left"), submit("right"));
    assert_eq!((a.status.code(), b.status.code()), (Some(0), Some(0)), "{a:?} {b:?}");
    saved(&f.until_all_downloaded(&sim, 20).await);
    let starts = f.data.join("logs");
    let engines = std::fs::read_to_string(starts.join("engine.out")).unwrap_or_default();
    assert!(!engines.contains("panicked"), "{engines}");
    // The budget is the folder's: 5 API requests a second for both clients together (two
    // engines would allow 10). Two-second windows at the server, with room for jitter only.
    let api: Vec<Instant> = sim.requests().iter().filter(|r| r.path.starts_with("/v1/")).map(|r| r.arrived).collect();
    let mut sorted = api.clone();
    sorted.sort();
    for (i, t) in sorted.iter().enumerate() {
        let within = sorted[i..].iter().take_while(|u| u.duration_since(*t) < Duration::from_secs(2)).count();
        assert!(within <= 12, "{within} API requests within two seconds at the server");
    }
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn racing_starts_end_with_exactly_one_engine() {
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    let mut runs = Vec::new();
    for i in 0..4 {
        let mut c = f.reel(&sim, &["submit", "--model", MODEL, "--prompt", "race", "--count", "1"]);
        runs.push(async move { (i, c.output().await.expect("runs")) });
    }
    for (i, out) in futures_util::future::join_all(runs).await {
        assert_eq!(out.status.code(), Some(0), "client {i}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let pid = f.status(&sim).await["pid"].as_u64().expect("running");
    saved(&f.until_all_downloaded(&sim, 4).await);
    assert_eq!(f.status(&sim).await["pid"].as_u64().unwrap_or(pid), pid, "still the one engine");
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_the_engine_loses_nothing_and_a_stale_socket_is_replaced() {
    let sim = start(slow_sim()).await;
    let f = folder(1.0, 50);
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "kill", "--count", "5"]).await;
    assert_eq!(code, 0, "{err}");
    let pid = f.status(&sim).await["pid"].as_u64().expect("running") as i32;
    // SAFETY: kill with a pid we were given and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let gone = Instant::now() + PATIENCE;
    while unsafe { libc::kill(pid, 0) } == 0 {
        assert!(Instant::now() < gone, "still alive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(service::socket_path(&f.data).exists(), "a dead engine leaves its socket behind");
    // The next client finds the stale socket, starts a new engine, which recovers the journal.
    let (code, out, err) = f.run(&sim, &["wait", "--all", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(serde_json::from_str::<Vec<Value>>(&out).expect("json").iter().all(|t| t["state"] == "downloaded"));
    let tasks = f.until_all_downloaded(&sim, 5).await;
    saved(&tasks);
    let remote: HashSet<&str> = tasks.iter().filter_map(|t| t["remote_id"].as_str()).collect();
    assert_eq!(remote.len(), 5, "no task sent twice");
    assert!(f.status(&sim).await["pid"].as_u64() != Some(pid as u64), "a new engine");
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_of_another_version_is_told_and_an_idle_engine_steps_aside() {
    let sim = start(fast_config()).await;
    let f = folder(30.0, 50);
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "v", "--wait"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(f.status(&sim).await["running"], true);
    let stream = tokio::net::UnixStream::connect(service::socket_path(&f.data)).await.expect("connects");
    let (read, mut write) = stream.into_split();
    let hello = ToEngine::Hello { protocol: PROTOCOL, version: "0.0.1".into() };
    let line = protocol::encode(&hello).expect("encodes") + "\n";
    write.write_all(line.as_bytes()).await.expect("sent");
    let mut answer = String::new();
    BufReader::new(read).read_line(&mut answer).await.expect("answered");
    match protocol::decode::<FromEngine>(answer.trim()).expect("decodes") {
        FromEngine::Refused { reason, replaceable } => {
            assert!(reason.contains("0.0.1") && reason.contains(env!("CARGO_PKG_VERSION")), "{reason}");
            assert!(replaceable, "an idle engine steps aside");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    f.until_stopped(&sim).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_for_another_service_is_refused_while_the_engine_has_work() {
    let sim = start(slow_sim()).await;
    let other = start(slow_sim()).await;
    let f = folder(1.0, 50);
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "busy", "--count", "3"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = f.run(&other, &["submit", "--model", MODEL, "--prompt", "elsewhere"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("does not serve") && err.contains(&other.base_url()), "{err}");
    assert!(other.requests().is_empty(), "nothing went to the other service");
    saved(&f.until_all_downloaded(&sim, 3).await);
    f.until_stopped(&sim).await;
}

/// The dashboard quits with tasks in flight: they go on in the engine process, the files are
/// saved with no client attached, and the engine then exits by itself.
#[tokio::test(flavor = "multi_thread")]
async fn quitting_the_dashboard_leaves_the_work_to_the_engine() {
    use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};

    let sim = start(slow_sim()).await;
    let f = folder(1.0, 50);
    let settings = settings_for(&f, &sim);
    let reach = reel_engine::session::Reach::Service(f.launch(&sim));
    let (mut frames, tx, running) = open_dashboard(&settings, &reach).await;
    // (A dashboard that has quit no longer listens: a key sent after that is dropped.)
    let key = |code, mods| drop(tx.send(Ok(Input::Key(KeyEvent::new(code, mods)))));
    let screen = |b: &ratatui::buffer::Buffer| {
        (0..b.area.height)
            .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    };
    tokio::time::timeout(PATIENCE, frames.wait_for(|b| screen(b).contains("Compose"))).await.expect("drawn").ok();
    "a harbour at dusk".chars().for_each(|c| key(KeyCode::Char(c), KeyModifiers::NONE));
    key(KeyCode::Char('s'), KeyModifiers::CONTROL);
    tokio::time::timeout(
        PATIENCE,
        frames.wait_for(|b| screen(b).contains("a harbour at dusk") && screen(b).contains("queued")),
    )
    .await
    .expect("the task is shown")
    .ok();
    key(KeyCode::Esc, KeyModifiers::NONE);
    key(KeyCode::Char('q'), KeyModifiers::NONE);
    // A question before quitting with work in flight is answered yes.
    key(KeyCode::Char('y'), KeyModifiers::NONE);
    let finished = tokio::time::timeout(PATIENCE, running).await.expect("quits").expect("no panic");
    assert_eq!(finished.after, reel_tui::app::AfterQuit::Continue, "the engine is a process of its own");
    let tasks = f.until_all_downloaded(&sim, 1).await;
    saved(&tasks);
    f.until_stopped(&sim).await;
}

/// A request made after the engine's socket closed fails at once (it used to wait forever for a
/// reply nobody would send, so a submission said nothing).
#[tokio::test(flavor = "multi_thread")]
async fn a_request_after_the_socket_closed_fails_at_once() {
    use reel_engine::EngineError;
    use reel_engine::service::{Served, Status};

    let dir = tempfile::tempdir().expect("tempdir");
    let socket = dir.path().join("engine.sock");
    let listener = tokio::net::UnixListener::bind(&socket).expect("binds");
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.expect("accepts");
        let (read, mut write) = stream.into_split();
        let mut hello = String::new();
        BufReader::new(read).read_line(&mut hello).await.expect("hello");
        let status = Status {
            pid: 1,
            version: env!("CARGO_PKG_VERSION").into(),
            started_at_ms: 0,
            socket: "engine.sock".into(),
            clients: 1,
            unfinished: 0,
            requests_in_flight: 0,
            downloads: 0,
            service: reel_engine::ServiceState::default(),
            serves: Served { profile: None, base_url: None, key_id: None },
            decides: Default::default(),
        };
        let welcome = FromEngine::Welcome { protocol: PROTOCOL, status: Box::new(status) };
        let line = protocol::encode(&welcome).expect("encodes") + "\n";
        write.write_all(line.as_bytes()).await.expect("welcomed");
        // Then the engine is gone: the connection closes.
    });
    let (engine, mut events) = service::attach_if_running(&socket).await.expect("attaches").expect("an engine");
    server.await.expect("served");
    // The events end (after a note that the engine went away): the client knows it is gone.
    tokio::time::timeout(PATIENCE, async { while events.recv().await.is_some() {} }).await.expect("the stream ends");
    let asked = tokio::time::timeout(PATIENCE, engine.status()).await.expect("an answer, not a wait for ever");
    assert!(matches!(asked, Err(EngineError::Stopped)), "{asked:?}");
}

/// Text of a drawn frame, one line a row.
fn screen_text(b: &ratatui::buffer::Buffer) -> String {
    (0..b.area.height)
        .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until a drawn frame satisfies `wanted` (described by `what`), and returns its text.
async fn frame_where(
    frames: &mut tokio::sync::watch::Receiver<ratatui::buffer::Buffer>,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) -> String {
    let found = tokio::time::timeout(PATIENCE, frames.wait_for(|b| wanted(&screen_text(b))))
        .await
        .map(|frame| frame.map(|f| screen_text(&f)));
    match found {
        Ok(Ok(screen)) => screen,
        _ => panic!("never {what}; the last frame:\n{}", screen_text(&frames.borrow())),
    }
}

/// An engine launcher that starts the engine only while `gate` exists: with it removed, the
/// dashboard cannot replace a lost engine, and what it shows meanwhile can be looked at.
fn gated(f: &Folder, sim: &SimHandle, gate: &Path) -> Launch {
    let script = f.data.parent().expect("a parent").join("gated-reel");
    let text = format!(
        "#!/bin/sh\n[ -e '{}' ] || {{ echo 'the gate is closed' >&2; exit 1; }}\nexec '{}' \"$@\"\n",
        gate.display(),
        env!("CARGO_BIN_EXE_reel")
    );
    std::fs::write(&script, text).expect("script");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700)).expect("executable");
    Launch { exe: script, ..f.launch(sim) }
}

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The engine process is killed under an open dashboard: the header says so at once and
/// stops claiming liveness, a submission made meanwhile is held, a task sent from another
/// terminal starts a new engine, the dashboard attaches to it, reads its rows again (the
/// other terminal's task appears, none twice, nothing still spinning) and sends what it held.
#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_outlives_its_engine_and_attaches_to_the_next() {
    use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};

    let sim = start(SimConfig {
        lifecycle: LifecycleConfig {
            queue_time: Duration::from_millis(300),
            render_min: Duration::from_secs(3),
            render_max: Duration::from_secs(4),
            failure_rate: 0.0,
        },
        seed: Some(11),
        ..SimConfig::default()
    })
    .await;
    let f = folder(1.0, 50);
    std::fs::create_dir_all(&f.data).expect("data folder");
    let gate = f.data.parent().expect("a parent").join("gate");
    std::fs::write(&gate, "").expect("gate");
    let settings = settings_for(&f, &sim);
    let reach = reel_engine::session::Reach::Service(gated(&f, &sim, &gate));
    let (mut frames, tx, running) = open_dashboard(&settings, &reach).await;
    let key = |code, mods| drop(tx.send(Ok(Input::Key(KeyEvent::new(code, mods)))));
    let type_text = |text: &str| text.chars().for_each(|c| key(KeyCode::Char(c), KeyModifiers::NONE));
    frame_where(&mut frames, "the form", |s| s.contains("Compose")).await;
    type_text("a fox before the crash");
    key(KeyCode::Char('s'), KeyModifiers::CONTROL);
    // Sent and accepted, not just typed (the form shows the prompt at once): the kill must
    // not land while the POST is in flight.
    let sent = |s: &str| s.contains("queued") || s.contains("in_progress");
    frame_where(&mut frames, "the task sent", |s| sent(s) && s.contains("service ok")).await;

    // kill -9 while the task renders; no engine can start until the gate opens again.
    let pid = f.status(&sim).await["pid"].as_u64().expect("running") as i32;
    std::fs::remove_file(&gate).expect("gate closed");
    // SAFETY: kill with a pid we were given and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let lost = frame_where(&mut frames, "said the engine is lost", |s| s.contains("engine lost")).await;
    assert!(!lost.contains("service ok"), "no health is claimed for an engine that is gone:\n{lost}");
    assert!(!lost.contains(SPINNER), "nothing spins while no engine works:\n{lost}");
    assert!(lost.contains("The engine process stopped"), "{lost}");

    // A submission made now is held, and says so.
    key(KeyCode::Char('u'), KeyModifiers::CONTROL);
    type_text("a fox held meanwhile");
    key(KeyCode::Char('s'), KeyModifiers::CONTROL);
    let held =
        frame_where(&mut frames, "held the submission", |s| s.contains("Held: the engine is not attached")).await;
    assert!(held.contains("engine lost"), "{held}");
    assert_eq!(f.tasks(&sim).await.len(), 1, "nothing was journaled while no engine was attached");

    // Another terminal sends a task: its command starts an engine, and the dashboard attaches.
    let (code, _, err) = f.run(&sim, &["submit", "--model", MODEL, "--prompt", "a fox from elsewhere"]).await;
    assert_eq!(code, 0, "{err}");
    frame_where(&mut frames, "re-attached with the other terminal's task", |s| {
        s.contains("a fox from elsewhere") && !s.contains("engine lost") && !s.contains("engine back")
    })
    .await;
    let tasks = f.until_all_downloaded(&sim, 3).await;
    saved(&tasks);
    let prompts: Vec<&str> = tasks.iter().filter_map(|t| t["prompt"].as_str()).collect();
    assert!(prompts.contains(&"a fox held meanwhile"), "the held submission went to the new engine: {prompts:?}");
    let remote: HashSet<&str> = tasks.iter().filter_map(|t| t["remote_id"].as_str()).collect();
    assert_eq!(remote.len(), 3, "no task sent twice");
    // The screen shows the truth: three rows, none twice, nothing running.
    let done = frame_where(&mut frames, "all three saved", |s| s.contains("3 tasks, 0 active")).await;
    assert!(!done.contains(SPINNER), "{done}");
    assert!(pid as u64 != f.status(&sim).await["pid"].as_u64().expect("running"), "a new engine");

    // The dashboard sends to the new engine as to the first.
    key(KeyCode::Char('u'), KeyModifiers::CONTROL);
    type_text("a fox after the crash");
    key(KeyCode::Char('s'), KeyModifiers::CONTROL);
    frame_where(&mut frames, "the fourth task", |s| s.contains("a fox after the crash") && s.contains("4 tasks")).await;
    saved(&f.until_all_downloaded(&sim, 4).await);
    frame_where(&mut frames, "all four saved", |s| s.contains("4 tasks, 0 active")).await;
    key(KeyCode::Esc, KeyModifiers::NONE);
    key(KeyCode::Char('q'), KeyModifiers::NONE);
    let finished = tokio::time::timeout(PATIENCE, running).await.expect("quits").expect("no panic");
    assert_eq!(finished.summary.sent, 3, "the dashboard's own three");
    f.until_stopped(&sim).await;
}

type Keyboard = tokio::sync::mpsc::UnboundedSender<std::io::Result<crossterm::event::Event>>;

/// The dashboard attached as `reach` says, on a 160x48 TestBackend: its frames, its keyboard
/// and its end.
async fn open_dashboard(
    settings: &reel_engine::config::Settings,
    reach: &reel_engine::session::Reach,
) -> (
    tokio::sync::watch::Receiver<ratatui::buffer::Buffer>,
    Keyboard,
    tokio::task::JoinHandle<reel_tui::event_loop::Finished>,
) {
    let dashboard = reel_tui::event_loop::Dashboard::start(settings, reach).await.expect("attached");
    let backend = ratatui::backend::TestBackend::new(160, 48);
    let (mut console, frames) = reel_tui::terminal::Headless::new(backend).expect("console");
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let input = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|ev| (ev, rx)) }));
    let running = tokio::spawn(async move { dashboard.run(&mut console, input).await.expect("ends cleanly") });
    (frames, tx, running)
}

/// What one submission sends is one batch, named by its first task's id, whichever part of the
/// dashboard or command line made it; separate submissions are separate, even of one prompt.
/// Asked through the engine process, so the batch travels over its socket too.
#[tokio::test(flavor = "multi_thread")]
async fn one_submission_is_one_batch_and_two_are_two() {
    use reel_engine::journal::Part;
    use reel_rules::{Catalog, Draft, UnknownModels, validate};
    let sim = start(slow_sim()).await;
    let f = folder(30.0, 50);
    let settings = settings_for(&f, &sim);
    let reach = reel_engine::session::Reach::Service(f.launch(&sim));
    let mut attached = reel_engine::session::attach(&settings, &reach).await.expect("attached");
    let engine = &attached.engine;
    let valid = |ratio: &str, seconds: &str| {
        let draft = Draft {
            model: MODEL.into(),
            prompt: "a fox".into(),
            ratio: Some(ratio.into()),
            seconds: Some(seconds.into()),
            ..Draft::default()
        };
        validate(&draft, &Catalog::builtin(), UnknownModels::Reject).expect("valid")
    };
    let batches = |records: &[reel_store::TaskRecord]| records.iter().map(|r| r.batch_id).collect::<Vec<_>>();

    // The dashboard's 16:9/9:16 × 5/10 grid: four parts, one copy each.
    let grid: Vec<Part> = [("16:9", "5"), ("16:9", "10"), ("9:16", "5"), ("9:16", "10")]
        .into_iter()
        .map(|(ratio, seconds)| Part { submission: valid(ratio, seconds), count: 1, parent: None })
        .collect();
    let grid = engine.submit_parts(grid).await.expect("grid");
    assert_eq!(batches(&grid), vec![Some(grid[0].id); 4]);
    // Two separate sends of the same prompt, a second apart at most: no batch at all.
    let one = engine.submit(valid("16:9", "5"), 1, None).await.expect("one");
    let two = engine.submit(valid("16:9", "5"), 1, None).await.expect("two");
    assert_eq!((batches(&one), batches(&two)), (vec![None], vec![None]));
    // Copies, as `reel submit --count 3` sends them.
    let copies = engine.submit(valid("1:1", "5"), 3, None).await.expect("copies");
    assert_eq!(batches(&copies), vec![Some(copies[0].id); 3]);
    // Two tasks sent again at once: each keeps its parent, both share a batch.
    let again = vec![
        Part { submission: valid("16:9", "5"), count: 1, parent: Some(one[0].id) },
        Part { submission: valid("16:9", "5"), count: 1, parent: Some(two[0].id) },
    ];
    let again = engine.submit_parts(again).await.expect("again");
    assert_eq!(batches(&again), vec![Some(again[0].id); 2]);
    assert_eq!(again.iter().map(|r| r.parent_id).collect::<Vec<_>>(), [Some(one[0].id), Some(two[0].id)]);

    // The events a client follows carry it too.
    let deadline = Instant::now() + PATIENCE;
    let mut seen = HashSet::new();
    while seen.len() < grid.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, attached.events.recv()).await.expect("events in time") {
            Some(reel_engine::Event::Task(u)) if grid.iter().any(|g| g.id == u.record.id) => {
                assert_eq!(u.record.batch_id, Some(grid[0].id), "{:?}", u.record);
                seen.insert(u.record.id);
            }
            Some(_) => {}
            None => panic!("the engine went away"),
        }
    }
    // And the journal: `reel list --batch`.
    let id = grid[0].id.to_string();
    let (code, out, err) = f.run(&sim, &["list", "--batch", &id, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let listed: Vec<Value> = serde_json::from_str(&out).expect("json");
    let mut ids: Vec<i64> = listed.iter().filter_map(|t| t["id"].as_i64()).collect();
    ids.sort_unstable();
    assert_eq!(ids, grid.iter().map(|r| r.id).collect::<Vec<_>>());
    let (code, _, err) = f.run(&sim, &["engine", "stop", "--force"]).await;
    assert_eq!(code, 0, "{err}");
    attached.engine.shutdown().await;
}
