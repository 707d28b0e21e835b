//! The whole program as a user runs it: the real binary in tmux against the simulator on
//! 127.0.0.1, driven with send-keys and read with capture-pane.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::tmux::{PATIENCE, Tmux};
use crate::common::*;
use reel_sim::SimHandle;

/// The requests about tasks: all but the model list the dashboard reads once when it opens
/// (a GET that costs nothing).
fn about_tasks(sim: &SimHandle) -> Vec<reel_sim::RequestRecord> {
    sim.requests().into_iter().filter(|r| r.path != "/v1/models").collect()
}

/// The config the dashboard starts with here: quick polls, an engine that stops soon after.
const FAST: &str =
    "[engine]\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\nmax_poll_interval_secs = 0.5\nidle_exit_secs = 1\n";

/// reel in tmux against `sim`, on a data folder and the `FAST` config of its own, with `env`
/// (such as `NO_COLOR=1 `) before the command. The server is killed before the folder goes.
struct Session {
    tmux: Tmux,
    data: PathBuf,
    config: PathBuf,
    _dir: tempfile::TempDir,
}

fn open(sim: &SimHandle, env: &str) -> Session {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    std::fs::write(&config, FAST).expect("config");
    let tmux = start(sim, &data, &config, env);
    Session { tmux, data, config, _dir: dir }
}

fn start(sim: &SimHandle, data: &Path, config: &Path, env: &str) -> Tmux {
    // One server per test: tests of this file run at once.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmux = Tmux::named(format!("reel-test-{}-{n}", std::process::id()));
    let command = format!(
        // The pane stays after reel exits so its last words can be read; the server is killed on drop.
        "{env}REEL_BASE_URL={} REEL_API_KEY={} REEL_DATA_DIR={} REEL_CONFIG={} {}; echo reel-exited-$?; sleep 600",
        sim.base_url(),
        sim.api_key(),
        data.display(),
        config.display(),
        env!("CARGO_BIN_EXE_reel")
    );
    tmux.run(&["new-session", "-d", "-s", "reel", "-x", "120", "-y", "32", &command]);
    tmux
}

#[tokio::test(flavor = "multi_thread")]
async fn type_submit_watch_it_finish_and_find_the_file() {
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "");
    let (tmux, data) = (&session.tmux, &session.data);
    tmux.wait_for("Compose");

    // An empty prompt is refused with its message, and nothing reaches the server.
    tmux.keys(&["C-s"]);
    tmux.wait_for("Not sent: prompt is required");
    assert!(about_tasks(&sim).is_empty(), "a request left for an empty prompt: {:?}", sim.requests());

    // The prompt has the focus: type at once, then send.
    tmux.keys(&["-l", "a red fox running through fresh snow"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for_all(&["downloaded", "saved"]);
    tmux.wait_for_all(&["File", "a red fox running through fresh snow"]);

    let videos: Vec<_> =
        walk(&data.join("videos")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "mp4")).collect();
    assert_eq!(videos.len(), 1, "{videos:?}");
    let remote = sim.requests().iter().find_map(|r| r.task_id.clone()).expect("a task");
    assert_saved_file(data, &videos[0], &sim.video_bytes(&remote).expect("served"));

    // Vary the task, delete it in the history, then send a new prompt: the deleted parent
    // never breaks a later submission.
    // After each Escape, wait for the table's footer: an Escape and a letter read together
    // would be Alt and the letter.
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["e"]);
    tmux.wait_for("varying task 1");
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["H"]);
    // The history's own title, once its page is read (the form's summary says "1 task" too).
    tmux.wait_for("┌ 1 task ");
    tmux.keys(&["x"]);
    tmux.wait_for("record and file");
    tmux.keys(&["y"]);
    tmux.wait_for("no longer records it as parent");
    tmux.keys(&["Escape"]);
    // The table's title: the history, emptied, says "No tasks yet" too, and an Escape read
    // together with the next key would be Alt and that key.
    tmux.wait_for("Tasks · all");
    // `n` starts a fresh form: a new prompt goes out, recording no parent.
    tmux.keys(&["n"]);
    tmux.wait_for("New prompt");
    tmux.keys(&["-l", "an owl at dusk"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("Sent 1 task");
    let screen = tmux.wait_for("downloaded");
    assert!(!screen.contains("FOREIGN KEY"), "{screen}");

    // Esc leaves the form, q quits (nothing is unfinished, so it does not ask), the terminal
    // is given back and one line says what the run did.
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("reel-exited-0");
    assert!(!screen.contains("Compose"), "the alternate screen was left: {screen}");
    assert!(screen.contains("reel: sent 2 tasks this run (1 saved)."), "{screen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_task_shows_its_poster_and_plays_inline() {
    if !have_tools(&["ffmpeg"]) {
        return;
    }
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "");
    let (tmux, data) = (&session.tmux, &session.data);
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "a lighthouse at dusk"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("downloaded");
    tmux.keys(&["Escape"]);
    tmux.wait_for("p play");

    // The poster is drawn in colour half blocks beside the text (tmux has no image protocol).
    let coloured = tmux.wait_for_pictures(20);
    assert!(coloured.contains('▀') || coloured.contains('▄') || coloured.matches("48;2;").count() > 40, "{coloured}");
    let cached = walk(&data.join("previews"));
    assert!(cached.iter().any(|p| p.ends_with("poster.jpg")), "the frames are cached: {cached:?}");

    // p plays in the poster's place, Space pauses, Esc stops.
    tmux.keys(&["p"]);
    tmux.wait_for("▶ playing");
    tmux.keys(&["Space"]);
    tmux.wait_for("❚❚ paused");
    tmux.keys(&["Escape"]);
    tmux.wait_gone("paused");
    tmux.keys(&["q"]);
    tmux.wait_for("reel-exited-0");
}

/// The colours of an SGR sequence's parameters (30-38, 40-48, 90-97, 100-107): none should
/// reach a terminal under NO_COLOR.
fn colours(escaped: &str) -> Vec<String> {
    let mut found = Vec::new();
    for seq in escaped.split("\u{1b}[").skip(1) {
        let Some(end) = seq.find(|c: char| c.is_ascii_alphabetic()) else { continue };
        if !seq[end..].starts_with('m') {
            continue;
        }
        let colour = |p: &str| p.parse::<u16>().is_ok_and(|n| matches!(n, 30..=38 | 40..=48 | 90..=97 | 100..=107));
        if seq[..end].split(';').any(colour) {
            found.push(seq[..end].to_string());
        }
    }
    found
}

/// NO_COLOR set as a user sets it, and the terminal made small and large again: the selected
/// task stands out without colour (bold while the form has the keys), below 40x10 a notice
/// takes the screen's place, and at 40x10 the pane with the keys has the whole width.
#[tokio::test(flavor = "multi_thread")]
async fn without_colour_and_on_a_small_terminal() {
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "NO_COLOR=1 ");
    let tmux = &session.tmux;
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "a heron in the reeds"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("downloaded");
    let escaped = tmux.run(&["capture-pane", "-p", "-e", "-t", "reel"]);
    assert_eq!(colours(&escaped), Vec::<String>::new(), "colours under NO_COLOR:\n{escaped}");
    let row = escaped
        .lines()
        .find(|l| l.contains("downloaded") && l.contains("a heron"))
        .unwrap_or_else(|| panic!("no row for the task:\n{escaped:?}"));
    // One bold run from before the state to past the prompt: nothing turned it off between.
    let bold = row.split_once("\u{1b}[1m").map(|(_, rest)| rest.split("\u{1b}[0m").next().unwrap_or(rest));
    assert!(
        bold.is_some_and(|b| b.contains("downloaded") && b.contains("a heron in the reeds")),
        "the selected row is bold throughout: {row:?}"
    );

    tmux.run(&["resize-window", "-t", "reel", "-x", "30", "-y", "8"]);
    tmux.wait_for("this terminal is 30x8");
    tmux.run(&["resize-window", "-t", "reel", "-x", "40", "-y", "10"]);
    let form = tmux.wait_for("┌ Compose ──");
    assert!(!form.contains("Tasks"), "the form has the keys and the whole width:\n{form}");
    tmux.keys(&["Escape"]);
    let tasks = tmux.wait_for("o open");
    assert!(tasks.contains("a heron") && !tasks.contains("Compose"), "{tasks}");
    tmux.keys(&["q"]);
    tmux.wait_for("reel-exited-0");
}

/// `reel` run as another terminal would, on the same data folder and config.
fn reel(sim: &SimHandle, data: &Path, config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(args)
        .env("REEL_BASE_URL", sim.base_url())
        .env("REEL_API_KEY", sim.api_key())
        .env("REEL_DATA_DIR", data)
        .env("REEL_CONFIG", config)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("reel runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// The tasks in the store, as `reel list --json` reads them (no engine involved).
fn listed(sim: &SimHandle, data: &Path, config: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = reel(sim, data, config, &["list", "--json", "--limit", "100"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

/// Waits until the store holds `count` tasks, every one saved.
fn until_saved(sim: &SimHandle, data: &Path, config: &Path, count: usize) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let tasks = listed(sim, data, config);
        if tasks.len() == count && tasks.iter().all(|t| t["state"] == "downloaded") {
            return tasks;
        }
        assert!(Instant::now() < deadline, "not {count} saved: {tasks:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// kill -9 of the engine process under an open dashboard: the header says the engine is lost,
/// a submission made meanwhile is held; once an engine runs again (started here by a task sent
/// from another terminal) the dashboard attaches to it, shows that task, sends what it held,
/// and goes on sending. (A broken config keeps a new engine from starting until it is fixed,
/// so that the lost state can be seen.)
#[tokio::test(flavor = "multi_thread")]
async fn the_engine_killed_under_the_dashboard_is_replaced_and_nothing_is_lost() {
    let sim = crate::common::start(reel_sim::SimConfig {
        lifecycle: reel_sim::LifecycleConfig {
            queue_time: Duration::from_millis(300),
            render_min: Duration::from_secs(2),
            render_max: Duration::from_secs(3),
            failure_rate: 0.0,
        },
        seed: Some(5),
        ..reel_sim::SimConfig::default()
    })
    .await;
    let session = open(&sim, "");
    let (tmux, data, config) = (&session.tmux, session.data.clone(), session.config.clone());
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "a heron before the crash"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("Sent 1 task");
    tmux.wait_for_all(&["service ok", "a heron before the crash"]);

    let (code, out, err) = reel(&sim, &data, &config, &["engine", "status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let pid = serde_json::from_str::<serde_json::Value>(&out).expect("json")["pid"].as_i64().expect("running") as i32;
    std::fs::write(&config, "[engine\nthis is not toml").expect("config broken");
    // SAFETY: kill with a pid we were given and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let screen = tmux.wait_for("engine lost");
    assert!(!screen.contains("service ok"), "no health is claimed for an engine that is gone:\n{screen}");

    tmux.keys(&["C-u"]);
    tmux.keys(&["-l", "a heron held meanwhile"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for_all(&["Held: the engine is not attached", "engine lost"]);

    // Fixed config, and a task from another terminal: its command starts the engine.
    std::fs::write(&config, FAST).expect("config fixed");
    let (code, _, err) = reel(
        &sim,
        &data,
        &config,
        &["submit", "--model", "acme/aurora-3.0/text-to-video", "--prompt", "a heron from elsewhere"],
    );
    assert_eq!(code, 0, "{err}");
    let deadline = Instant::now() + PATIENCE;
    loop {
        let s = tmux.screen();
        if s.contains("a heron from elsewhere") && !s.contains("engine lost") && !s.contains("engine back") {
            break;
        }
        assert!(Instant::now() < deadline, "the dashboard never attached again:\n{s}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let tasks = until_saved(&sim, &data, &config, 3);
    assert!(tasks.iter().any(|t| t["prompt"] == "a heron held meanwhile"), "the held one was sent: {tasks:?}");
    tmux.wait_for("3 tasks, 0 active");

    // And the dashboard sends to the new engine as before.
    tmux.keys(&["C-u"]);
    tmux.keys(&["-l", "a heron after the crash"]);
    tmux.keys(&["C-s"]);
    let tasks = until_saved(&sim, &data, &config, 4);
    let remote: std::collections::HashSet<&str> = tasks.iter().filter_map(|t| t["remote_id"].as_str()).collect();
    assert_eq!(remote.len(), 4, "no task sent twice: {tasks:?}");
    tmux.wait_for_all(&["4 tasks, 0 active", "a heron after the crash"]);
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("reel-exited-0");
    assert!(screen.contains("reel: sent 3 tasks this run (3 saved)."), "{screen}");
}

/// `[keys]` as the user wrote it in the issue: an entry for one part wins there over the entry
/// for everywhere, whatever their order ("history.quit" sorts before "quit").
#[tokio::test(flavor = "multi_thread")]
async fn a_key_given_for_the_history_quits_there() {
    let sim = crate::common::start(fast_config()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[engine]\nidle_exit_secs = 1\n[keys]\nquit = \"Q\"\n\"history.quit\" = \"x\"\n")
        .expect("config");
    let tmux = start(&sim, &data, &config, "");
    tmux.wait_for("Compose");
    tmux.keys(&["Escape"]);
    tmux.wait_for("Q quit");
    tmux.keys(&["H"]);
    let screen = tmux.wait_for("x quit");
    assert!(!screen.contains("x delete"), "{screen}");
    tmux.keys(&["x"]);
    tmux.wait_for("reel-exited-0");
}

/// `reel submit --wait`'s config here: quick polls.
const SUBMIT_CONFIG: &str =
    "[engine]\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.3\nmax_poll_interval_secs = 0.5\nidle_exit_secs = 1\n";

/// The live progress of `reel submit --wait` through a 429 storm: the block of task lines
/// stays one block, nothing is drawn over, and the results are printed once.
#[tokio::test(flavor = "multi_thread")]
async fn submit_wait_through_a_429_storm_keeps_one_block_and_prints_results_once() {
    let mut config = reel_sim::SimConfig {
        lifecycle: reel_sim::LifecycleConfig {
            queue_time: Duration::from_millis(300),
            render_min: Duration::from_secs(3),
            render_max: Duration::from_secs(4),
            failure_rate: 0.0,
        },
        seed: Some(23),
        ..reel_sim::SimConfig::default()
    };
    // The storm starts once the tasks are sent and rendering, and outlasts a few redraws.
    config.hostile.storm =
        Some(reel_sim::Storm { after: Duration::from_millis(1500), lasting: Duration::from_secs(4) });
    let sim = crate::common::start(config).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config_path = dir.path().join("config.toml");
    std::fs::write(&config_path, SUBMIT_CONFIG).expect("config");
    let tmux = Tmux::named(format!("reel-test-progress-{}", std::process::id()));
    let command = format!(
        "REEL_BASE_URL={} REEL_API_KEY={} REEL_DATA_DIR={} REEL_CONFIG={} {} submit --no-service \
         --model acme/aurora-3.0/text-to-video --prompt 'a red fox' --count 2 --wait; echo reel-exited-$?; sleep 600",
        sim.base_url(),
        sim.api_key(),
        dir.path().join("data").display(),
        config_path.display(),
        env!("CARGO_BIN_EXE_reel")
    );
    tmux.run(&["new-session", "-d", "-s", "reel", "-x", "110", "-y", "24", &command]);

    let deadline = Instant::now() + PATIENCE;
    let mut saw_storm = false;
    let last = loop {
        let screen = tmux.screen();
        if screen.contains("reel-exited-") {
            break screen;
        }
        saw_storm |= screen.contains("rate limited");
        // Live: each task has one line, however often the block is redrawn.
        for id in task_ids(&screen) {
            let lines = screen.lines().filter(|l| l.contains(&id)).count();
            assert!(lines <= 1, "task {id} on {lines} lines while waiting:\n{screen}");
        }
        assert!(Instant::now() < deadline, "reel never ended; the screen:\n{screen}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(saw_storm, "the storm was shown while it lasted");
    assert!(last.contains("reel-exited-0"), "{last}");
    let ids = task_ids(&last);
    assert_eq!(ids.len(), 2, "{last}");
    for id in &ids {
        let lines: Vec<&str> = last.lines().filter(|l| l.contains(id.as_str())).collect();
        assert_eq!(lines.len(), 1, "task {id}'s result printed once:\n{last}");
        assert!(lines[0].contains("downloaded"), "{last}");
    }
    // Nothing drawn over: every line is a result, a message of reel's own, or the shell's.
    for line in last.lines().filter(|l| !l.trim().is_empty()) {
        let result = line.split_whitespace().next().is_some_and(|w| w.parse::<i64>().is_ok())
            && line.split_whitespace().nth(1).is_some_and(|w| w.starts_with("task_"));
        let own = ["service: ", "reel: ", "problem: ", "reel-exited-"].iter().any(|p| line.starts_with(p));
        assert!(result || own, "a line drawn over: {line:?} in\n{last}");
    }
}

/// The service's task ids on a screen.
fn task_ids(screen: &str) -> Vec<String> {
    let mut ids: Vec<String> = screen
        .split_whitespace()
        .filter(|w| w.starts_with("task_") && w.len() > 10)
        .map(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric()).to_string())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

use crate::common::moto;

/// A large local file's upload is one bar on a terminal, left at its end, not a line per part;
/// the task's live view is then cleared and its result printed once.
#[tokio::test(flavor = "multi_thread")]
async fn a_large_upload_is_one_bar_on_a_terminal() {
    let (moto, sim) = (moto::Moto::start(false).await, crate::common::start(fast_config()).await);
    moto.create_bucket("reel-bars").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    let storage = format!("[storage]\nendpoint = \"{}\"\nbucket = \"reel-bars\"\n", moto.endpoint());
    std::fs::write(&config, format!("{SUBMIT_CONFIG}{storage}")).expect("config");
    // Past uploads::LARGE_FILE, so its progress is shown.
    let big = dir.path().join("big.png");
    let mut bytes = reel_sim::MEDIA_PNG.to_vec();
    bytes.resize(12 * 1024 * 1024, 0);
    std::fs::write(&big, bytes).expect("file");
    let tmux = Tmux::named(format!("reel-test-upload-{}", std::process::id()));
    let command = format!(
        "AWS_ACCESS_KEY_ID=AKIAREELBARS0001 AWS_SECRET_ACCESS_KEY=secret REEL_BASE_URL={} REEL_API_KEY={} \
         REEL_DATA_DIR={} REEL_CONFIG={} {} --no-service submit --model acme/aurora-3.0/image-to-video \
         --prompt 'a fox' --media first_frame={} --no-preflight --wait; echo reel-exited-$?; sleep 600",
        sim.base_url(),
        sim.api_key(),
        dir.path().join("data").display(),
        config.display(),
        env!("CARGO_BIN_EXE_reel"),
        big.display()
    );
    tmux.run(&["new-session", "-d", "-s", "reel", "-x", "140", "-y", "24", &command]);
    let screen = tmux.wait_for("reel-exited-");
    assert!(screen.contains("reel-exited-0"), "{screen}");
    let uploads: Vec<&str> = screen.lines().filter(|l| l.contains("uploading media item 1")).collect();
    assert_eq!(uploads.len(), 1, "one bar, not a line per part:\n{screen}");
    assert!(uploads[0].contains('█') && uploads[0].contains("12.58 MB/12.58 MB"), "{screen}");
    let results: Vec<&str> = screen.lines().filter(|l| l.contains("task_")).collect();
    assert_eq!(results.len(), 1, "{screen}");
    assert!(results[0].contains("downloaded"), "{screen}");
}

/// Two saved takes marked and compared: both side by side with their posters in half blocks
/// (tmux has no image protocol) and the words only one has, played together, paused, stopped,
/// rated and closed.
#[tokio::test(flavor = "multi_thread")]
async fn two_marked_takes_are_compared_side_by_side() {
    if !have_tools(&["ffmpeg"]) {
        return;
    }
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "");
    let (tmux, data, config) = (&session.tmux, &session.data, &session.config);
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "a lighthouse at dusk"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("Sent 1 task");
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["n"]);
    tmux.wait_for("New prompt");
    tmux.keys(&["-l", "a lighthouse at dawn with gulls"]);
    tmux.keys(&["C-s"]);
    until_saved(&sim, data, config, 2);
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");

    // Mark both, then C.
    tmux.keys(&["Space"]);
    tmux.keys(&["Down"]);
    tmux.keys(&["Space"]);
    tmux.keys(&["C"]);
    // The whole comparison on one screen: its title, both takes' frames and their words.
    let screen = tmux.wait_for_all(&["Comparing 2 takes", "┌ #1 ", "┌ #2 ", "with gulls", "Esc close"]);
    let (first, second) = (screen.find("┌ #1 "), screen.find("┌ #2 "));
    assert!(first.is_some() && first < second, "both takes, oldest first: {screen}");
    assert!(screen.contains("with gulls") && screen.contains("at dusk"), "{screen}");
    tmux.wait_for_pictures(40);

    // p plays both on one clock, Space pauses, Esc stops (the comparison stays).
    tmux.keys(&["p"]);
    tmux.wait_for("▶ playing together");
    tmux.keys(&["Space"]);
    tmux.wait_for("❚❚ paused");
    tmux.keys(&["Escape"]);
    tmux.wait_gone("paused");
    assert!(tmux.screen().contains("Comparing 2 takes"));
    tmux.keys(&["4"]);
    tmux.wait_for("Rated #1 4 of 5");
    tmux.wait_for("★★★★☆");
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["q"]);
    tmux.wait_for("reel-exited-0");
}

/// Issue 23: a batch file with a template loaded into the form shows its count and cost
/// before Ctrl-S, asks past `[batch] confirm_over`, goes out as one batch (the table's
/// bracket), and loaded again (its name completed with Tab) says its tasks were already sent.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_file_loaded_in_the_form_goes_out_as_one_batch() {
    let sim = crate::common::start(fast_config()).await;
    // Past 4 tasks, sending a batch asks first.
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    std::fs::write(&config, format!("{FAST}[batch]\nconfirm_over = 4\n")).expect("config");
    let session = Session { tmux: start(&sim, &data, &config, ""), data, config, _dir: dir };
    let tmux = &session.tmux;
    let file = session.data.with_file_name("prompts.csv");
    // Row 2: 2 prompts × 2 durations; row 3: the typed prompt (the form's text is the default).
    std::fs::write(&file, "prompt,seconds\na {red|blue} fox,\"5,8\"\n,6\n").expect("the batch file");
    let path = file.display().to_string();
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "an owl at dusk"]);
    tmux.keys(&["C-o"]);
    tmux.wait_for("Load a batch file");
    tmux.keys(&["-l", &path]);
    tmux.keys(&["Enter"]);
    // 5 + 8 + 5 + 8 + 6 s; the typed prompt stays.
    tmux.wait_for_all(&["2 rows → 5 tasks", "5 tasks · billed 32 s", "an owl at dusk"]);
    assert!(about_tasks(&sim).is_empty(), "loading sends nothing: {:?}", sim.requests());

    tmux.keys(&["C-s"]);
    tmux.wait_for("Send 5 tasks (32 s billed");
    tmux.keys(&["y"]);
    tmux.wait_for("Sent 5 tasks of");
    tmux.wait_for("Compose ─");
    tmux.wait_gone("2 rows → 5 tasks");
    // One batch: the table brackets its five rows.
    let bracketed = |l: &&str| ["││┌ ", "│││ ", "││└ "].iter().any(|g| l.contains(g)) && l.contains(" 720P");
    tmux.wait_until("the batch's five rows bracketed", |s| {
        ["a red fox", "a blue fox", "an owl at dusk"].iter().all(|p| s.contains(p))
            && s.lines().filter(bracketed).count() == 5
    });
    let saved = until_saved(&sim, &session.data, &session.config, 5);
    let batches: std::collections::BTreeSet<String> = saved.iter().map(|t| t["batch_id"].to_string()).collect();
    assert_eq!(batches.len(), 1, "one batch: {saved:?}");
    assert!(!batches.contains("null"), "{saved:?}");

    // Loaded again (its name completed with Tab), the file's tasks were all sent.
    tmux.keys(&["C-o"]);
    tmux.wait_for("Load a batch file");
    tmux.keys(&["-l", path.trim_end_matches("pts.csv")]);
    tmux.keys(&["Tab"]);
    tmux.wait_for(&format!("{path}▏"));
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&["were already sent", "(5 sent before, left out)"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("Not sent: every task of");
}

/// Reviewing takes in the running dashboard: `+` rates the selected task, `*` picks it, `t`
/// tags it; the table shows the mark, the detail the review, and the journal has all of it
/// (read by `reel list --json` from another terminal).
#[tokio::test(flavor = "multi_thread")]
async fn rate_pick_and_tag_a_take_in_the_dashboard() {
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "");
    let (tmux, data, config) = (&session.tmux, session.data.clone(), session.config.clone());
    tmux.wait_for("Compose");
    tmux.keys(&["-l", "a red fox at dusk"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("downloaded");
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["+"]);
    tmux.wait_for("★1");
    tmux.keys(&["+"]);
    tmux.keys(&["+"]);
    tmux.keys(&["*"]);
    tmux.wait_for("★3✓");
    tmux.keys(&["t"]);
    tmux.wait_for("Tags for task 1");
    tmux.keys(&["-l", "Keeper dusk"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("rated 3, picked, tagged dusk keeper");
    tmux.wait_gone("Tags for task 1");
    let tasks = listed(&sim, &data, &config);
    assert_eq!(
        (&tasks[0]["rating"], &tasks[0]["picked"], &tasks[0]["tags"]),
        (&serde_json::json!(3), &serde_json::json!(true), &serde_json::json!(["dusk", "keeper"]))
    );
    tmux.keys(&["q"]);
    tmux.wait_for("reel-exited-0");
}

/// Reads the draft file until it holds `text` (it is written as the form changes, about a
/// second after the typing stops, and at once when the terminal closes).
fn until_draft_holds(data: &Path, text: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let held = std::fs::read_to_string(data.join("draft.json")).unwrap_or_default();
        if held.contains(text) {
            return held;
        }
        assert!(Instant::now() < deadline, "draft.json never held {text:?}: {held:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unsent_draft_survives_a_kill_and_a_closed_terminal() {
    let sim = crate::common::start(fast_config()).await;
    let session = open(&sim, "");
    let (tmux, data) = (&session.tmux, &session.data);
    tmux.wait_for("Compose");
    // Written while reel runs: a kill -9 from here on loses nothing of it.
    tmux.keys(&["-l", "a heron at dawn"]);
    until_draft_holds(data, "a heron at dawn");
    // More typed, and the terminal closed at once (SIGHUP): the rest is kept too.
    tmux.keys(&["-l", " in fog"]);
    tmux.wait_for("a heron at dawn in fog");
    tmux.run(&["kill-pane", "-t", "reel"]);
    until_draft_holds(data, "a heron at dawn in fog");
    // And the next start puts it back.
    let again = start(&sim, data, &session.config, "");
    again.wait_for("Your unsent draft from the last run is back");
    again.wait_for("a heron at dawn in fog");
    assert!(about_tasks(&sim).is_empty(), "nothing was sent: {:?}", sim.requests());
}
