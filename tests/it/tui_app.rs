//! The whole dashboard in process: the real event loop and engine on ratatui's TestBackend,
//! fed key events through a channel, against the simulator over HTTP on 127.0.0.1.

use std::path::Path;
use std::time::Duration;

use crate::common::*;
use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use reel_engine::config::{self, ConfigFile, EngineSettings, Env, Settings};
use reel_sim::SimHandle;
use reel_tui::app::{AfterQuit, Summary};
use reel_tui::event_loop::{Dashboard, Finished};
use reel_tui::terminal::Headless;
use tokio::sync::{mpsc, watch};

/// How long to wait for a screen before calling the test failed. It only bounds a failure:
/// nothing is asserted about how fast the screen comes, so a loaded machine cannot fail it.
const PATIENCE: Duration = Duration::from_secs(120);

fn settings(sim: &SimHandle, data: &Path) -> Settings {
    settings_for(&sim.base_url(), data)
}

/// Settings for the service at `base_url` (a simulator there now, or later) with the sim's key.
fn settings_for(base_url: &str, data: &Path) -> Settings {
    let file = ConfigFile {
        engine: EngineSettings {
            first_poll_secs: 0.2,
            poll_interval_secs: 0.2,
            max_poll_interval_secs: 0.5,
            ..EngineSettings::default()
        },
        ..ConfigFile::default()
    };
    let env = Env {
        base_url: Some(base_url.to_string()),
        api_key: Some(reel_sim::DEFAULT_API_KEY.to_string()),
        data_dir: Some(data.to_path_buf()),
        ..Env::default()
    };
    config::resolve(&file, &env, None, None).expect("settings")
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// Waits until a drawn frame shows `wanted`, and returns that frame's text.
async fn shown(frames: &mut watch::Receiver<Buffer>, wanted: &str) -> String {
    let found = tokio::time::timeout(PATIENCE, frames.wait_for(|b| text(b).contains(wanted)))
        .await
        .map(|frame| frame.map(|f| text(&f)));
    match found {
        Ok(Ok(screen)) => screen,
        _ => panic!("\"{wanted}\" never appeared; the last frame:\n{}", text(&frames.borrow())),
    }
}

struct Keys(mpsc::UnboundedSender<std::io::Result<Input>>);

impl Keys {
    fn press(&self, code: KeyCode, mods: KeyModifiers) {
        self.0.send(Ok(Input::Key(KeyEvent::new(code, mods)))).expect("the dashboard listens");
    }

    fn ch(&self, c: char) {
        let mods = if c.is_uppercase() { KeyModifiers::SHIFT } else { KeyModifiers::NONE };
        self.press(KeyCode::Char(c), mods);
    }

    fn ctrl(&self, c: char) {
        self.press(KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    fn type_text(&self, text: &str) {
        text.chars().for_each(|c| self.ch(c));
    }
}

type Running = tokio::task::JoinHandle<(Finished, Headless<TestBackend>)>;

/// The dashboard with its engine in this process, on a 160x48 TestBackend: its frames, its
/// keyboard and its end.
async fn open(settings: &Settings) -> (watch::Receiver<Buffer>, Keys, Running) {
    let dashboard =
        Dashboard::start(settings, &reel_engine::session::Reach::InProcess).await.expect("the engine starts");
    let (mut console, mut frames) = Headless::new(TestBackend::new(160, 48)).expect("console");
    let (tx, rx) = mpsc::unbounded_channel();
    let input = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|ev| (ev, rx)) }));
    let running = tokio::spawn(async move {
        let finished = dashboard.run(&mut console, input).await;
        (finished.expect("the dashboard ends cleanly"), console)
    });
    shown(&mut frames, "Compose").await;
    (frames, Keys(tx), running)
}

#[tokio::test(flavor = "multi_thread")]
async fn type_a_prompt_send_it_see_it_downloaded_and_find_it_in_the_history() {
    let sim = crate::common::start(fast_config()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let (mut frames, keys, running) = open(&settings(&sim, &data)).await;

    // An empty prompt is refused with its message, and nothing reaches the server.
    keys.ctrl('s');
    shown(&mut frames, "Not sent: prompt is required").await;
    // Only the model list, read once when the dashboard opens (a GET that costs nothing).
    let about_tasks: Vec<_> = sim.requests().into_iter().filter(|r| r.path != "/v1/models").collect();
    assert!(about_tasks.is_empty(), "a request left for an empty prompt: {:?}", sim.requests());

    // The prompt has the focus: type, send, and watch the task to the end.
    keys.type_text("a red fox running through fresh snow");
    keys.ctrl('s');
    let screen = shown(&mut frames, "downloaded").await;
    assert!(screen.contains("a red fox running through fresh snow"), "{screen}");
    assert!(screen.contains("saved"), "{screen}");

    // Esc leaves the form; H opens the history, where the task is listed with its file.
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    keys.ch('H');
    let screen = shown(&mut frames, " 1 task ").await;
    assert!(screen.contains("a red fox running through fresh snow"), "{screen}");

    // Vary the task, then delete it in the history: the next submission still goes out.
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    keys.ch('e');
    shown(&mut frames, "varying task 1").await;
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    keys.ch('H');
    shown(&mut frames, " 1 task ").await;
    keys.ch('x');
    shown(&mut frames, "record and file").await;
    keys.ch('y');
    shown(&mut frames, "no longer records it as parent").await;
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    let screen = shown(&mut frames, "No tasks yet").await;
    assert!(!screen.contains("varying task"), "the form forgot the deleted parent: {screen}");
    // `n` starts a fresh form: a new prompt goes out, recording no parent.
    keys.ch('n');
    shown(&mut frames, "New prompt").await;
    keys.type_text("an owl at dusk");
    keys.ctrl('s');
    shown(&mut frames, "Sent 1 task").await;
    let screen = shown(&mut frames, "downloaded").await;
    assert!(!screen.contains("FOREIGN KEY"), "{screen}");
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    keys.ch('q');

    let (finished, console) = tokio::time::timeout(PATIENCE, running).await.expect("it quits").expect("no panic");
    assert_eq!(finished.summary, Summary { sent: 2, saved: 1, problems: 0, unfinished: 0 }, "the deleted one is gone");
    assert_eq!(finished.farewell().as_deref(), Some("reel: sent 2 tasks this run (1 saved)."));
    assert!(console.emitted.iter().any(|s| s == "\x07"), "the bell rang when the task ended: {:?}", console.emitted);

    let videos: Vec<_> =
        walk(&data.join("videos")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "mp4")).collect();
    assert_eq!(videos.len(), 2, "the deleted record's file stays (y deletes the record only): {videos:?}");
    // The task still journaled saved its file whole.
    let saved = reel_engine::query::list(&data.join("reel.db"), None, None, 10).expect("journal");
    let [t] = &saved[..] else { panic!("one task is journaled: {saved:?}") };
    let served = sim.video_bytes(t.remote_id.as_deref().expect("sent")).expect("served");
    let path = std::path::Path::new(t.file_path.as_deref().expect("saved"));
    assert!(videos.iter().any(|v| v == path), "{videos:?}");
    crate::common::assert_whole(t.sha256.as_deref(), t.file_sha256.as_deref(), path, &served);
}

/// A gateway's answers (each place it puts the URL), then an outage under the open dashboard:
/// every video saved, the outage said in the header and the send made meanwhile not lost.
#[tokio::test(flavor = "multi_thread")]
async fn a_gateway_and_an_outage_under_the_open_dashboard() {
    let gateway = |url| {
        let g = reel_sim::Gateway { url, not_started: Duration::from_millis(150), ..Default::default() };
        reel_sim::SimConfig { answers: reel_sim::Answers::Gateway(g), ..fast_config() }
    };
    let sim = crate::common::start(gateway(reel_sim::UrlPlacement::MetadataUrl)).await;
    let port = sim.addr().port();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let (mut frames, keys, running) = open(&settings(&sim, &data)).await;
    keys.type_text("a gateway fox");
    keys.ctrl('s');
    shown(&mut frames, "1 task, 0 active").await;
    let screen = shown(&mut frames, "downloaded").await;
    assert!(screen.contains("saved") && !screen.contains("unrecognized"), "{screen}");

    // The service goes away: the next send waits, and the header says why and until when.
    sim.stop().await;
    keys.ctrl('s');
    let screen = shown(&mut frames, "service unreachable since").await;
    assert!(screen.contains("next try in") && !screen.contains("rate limited"), "{screen}");
    let screen = shown(&mut frames, "waiting").await;
    assert!(!screen.contains("rejected"), "{screen}");
    // It comes back (answering with the URL elsewhere): the waiting task is sent and saved.
    let back = loop {
        // Another seed: the same one would hand out the first task's id again.
        let config = reel_sim::SimConfig { seed: Some(7), ..gateway(reel_sim::UrlPlacement::MetadataVideoUrl) };
        match reel_sim::SimHandle::start(config.clone(), port).await {
            Ok(sim) => break sim,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let screen = shown(&mut frames, "2 tasks, 0 active").await;
    assert!(screen.contains("service ok") && screen.matches("saved").count() == 2, "{screen}");
    keys.press(KeyCode::Esc, KeyModifiers::NONE);
    keys.ch('q');
    let (finished, _) = tokio::time::timeout(PATIENCE, running).await.expect("it quits").expect("no panic");
    assert_eq!(finished.summary, Summary { sent: 2, saved: 2, problems: 0, unfinished: 0 });
    assert_eq!(back.task_count(), 1, "the waiting task was sent once");
}

#[test]
fn the_farewell_says_what_is_still_running() {
    let f = |unfinished, after| {
        Finished { summary: Summary { sent: 1, saved: 0, problems: 0, unfinished }, after }.farewell()
    };
    assert_eq!(
        f(1, AfterQuit::Pause).as_deref(),
        Some("reel: sent 1 task this run (0 saved); 1 task pauses until reel starts again.")
    );
    assert_eq!(
        f(3, AfterQuit::Lost).as_deref(),
        Some("reel: sent 1 task this run (0 saved); 3 tasks are lost: the demo simulator stops with reel.")
    );
    assert_eq!(
        f(2, AfterQuit::Continue).as_deref(),
        Some(
            "reel: sent 1 task this run (0 saved); 2 tasks go on in the background; `reel` or `reel wait --all` \
             shows them again."
        )
    );
}
