//! The dashboard with its engine on another machine (`reel --engine ssh://…`, issue 26), as a
//! user runs it: the real binary in tmux, a real OpenSSH server on 127.0.0.1 standing for the
//! host, and the host's reel (this very binary, in a data folder of its own) talking to the
//! simulator. Every wait has one generous bound that only limits a failure.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::folder::{Folder, folder};
use crate::common::sshd::{Sshd, children, remote_reel};
use crate::common::tmux::{PATIENCE, Tmux};
use crate::common::{fast_config, start, walk};
use reel_sim::SimHandle;
use serde_json::Value;

/// The dashboard's reel: the process named `reel` under the pane's shell.
fn dashboard_pid(tmux: &Tmux) -> u32 {
    let shell = tmux.pane_pid();
    let mut next = vec![shell];
    while let Some(p) = next.pop() {
        for (child, name) in children(p) {
            if name == "reel" {
                return child;
            }
            next.push(child);
        }
    }
    panic!("no reel process under the pane's shell {shell}; the screen:\n{}", tmux.screen());
}

/// Cuts the link as a network does: kill -KILL every `ssh` child of the dashboard's reel (and
/// nothing else). Their pids.
fn cut_the_link(tmux: &Tmux) -> Vec<u32> {
    let reel = dashboard_pid(tmux);
    let ssh: Vec<u32> = children(reel).into_iter().filter(|(_, name)| name == "ssh").map(|(p, _)| p).collect();
    assert!(!ssh.is_empty(), "the dashboard (pid {reel}) runs no ssh: {:?}", children(reel));
    for p in &ssh {
        let killed = Command::new("kill").args(["-KILL", &p.to_string()]).status().expect("kill runs");
        assert!(killed.success(), "kill -KILL {p}");
    }
    ssh
}

/// The host's tasks, read on the host with `reel --data-dir H list --json` (no --engine).
async fn host_tasks(host: &Folder, sim: &SimHandle) -> Vec<Value> {
    let data = host.data.to_str().expect("a UTF-8 path");
    let (code, out, err) = host.run(sim, &["--data-dir", data, "list", "--json", "--limit", "1000"]).await;
    assert_eq!(code, 0, "reel list on the host: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// The `ssh` processes on this machine whose command line names `port`, with their command lines.
fn ssh_to(port: u16) -> Vec<(u32, String)> {
    let port = port.to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        // A process may end while it is read: skip it.
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let argv: Vec<String> = cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        let program = argv.first().map(|a| Path::new(a).file_name().unwrap_or_default().to_string_lossy());
        if program.as_deref() == Some("ssh") && argv.contains(&port) {
            found.push((pid, argv.join(" ")));
        }
    }
    found
}

/// The screen's first line: the header.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

/// The dashboard over SSH, end to end: the header names the host; a prompt typed and sent is
/// saved on the host (the detail pane shows the host's path) while the poster is fetched from
/// there into this machine's own preview cache; a link cut under the dashboard is said in the
/// header and mended at once while the host answers, with the table kept; with the host gone,
/// a task sent is refused with a message and nothing reaches the host; and q quits cleanly.
#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_over_ssh_submits_survives_a_cut_and_refuses_while_down() {
    let Some(mut sshd) = Sshd::start() else { return };
    let sim = start(fast_config()).await;
    let host = folder(5.0, 50);
    let client = tempfile::Builder::new().prefix("reel-client").tempdir().expect("a folder for the client");
    let (client_data, client_config) = (client.path().join("data"), client.path().join("config.toml"));
    std::fs::write(&client_config, "").expect("the client's config");

    let far = format!("{}@127.0.0.1:{}", sshd.user(), sshd.port());
    let quote = |s: &str| shell_words::quote(s).into_owned();
    let command = format!(
        // The pane stays after reel exits so its last words can be read; the server is killed on drop.
        "env -u REEL_BASE_URL -u REEL_API_KEY -u REEL_ENGINE -u REEL_PROFILE REEL_SSH={} REEL_REMOTE_REEL={} \
         REEL_DATA_DIR={} REEL_CONFIG={} {} --engine {}; echo reel-exited-$?; sleep 60",
        quote(&sshd.ssh_line()),
        quote(&remote_reel(&host.env(&sim))),
        quote(client_data.to_str().expect("UTF-8")),
        quote(client_config.to_str().expect("UTF-8")),
        quote(env!("CARGO_BIN_EXE_reel")),
        quote(&sshd.url(&host.data)),
    );
    let tmux = Tmux::start(format!("reel-remote-dashboard-{}", std::process::id()), 160, 45, &command);

    // The header names the host.
    let screen = tmux.wait_for(&format!(" on {far} "));
    eprintln!("attached:\n{}", header(&screen));
    tmux.wait_for("Compose");

    // Typed, sent, saved on the host.
    tmux.keys(&["-l", "a red fox at dusk"]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("downloaded");
    let tasks = host_tasks(&host, &sim).await;
    assert_eq!(tasks.len(), 1, "one task on the host: {tasks:?}");
    let file = tasks[0]["file_path"].as_str().expect("a saved file").to_string();
    let host_data = std::path::absolute(&host.data).expect("an absolute path");
    assert!(Path::new(&file).starts_with(&host_data), "{file} is in the host's data folder {}", host_data.display());
    assert!(!client_data.join("videos").exists(), "no video saved in the client's data folder");
    // The detail pane shows where the host saved it.
    let host_path = host_data.display().to_string();
    let screen = tmux.wait_until("the host's path on the File line", |s| {
        s.lines().any(|l| l.contains("File ") && l.contains(&host_path)) && s.contains(&file)
    });
    let shown = screen.lines().find(|l| l.contains("File ")).expect("the File line");
    assert!(shown.contains(&host_data.display().to_string()), "the host's path in the detail pane:\n{screen}");
    assert!(screen.contains(&file), "the whole path {file} in the detail pane:\n{screen}");
    eprintln!("detail: {}", shown.trim());

    // On the table, the poster is drawn beside the detail: fetched from the host, cached here.
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    let previews = client_data.join("previews");
    let deadline = Instant::now() + PATIENCE;
    // A poster written whole (not a file of a temporary folder still being filled).
    let whole = |p: &std::path::PathBuf| {
        let hidden = p.strip_prefix(&previews).is_ok_and(|r| r.iter().any(|c| c.to_string_lossy().starts_with('.')));
        p.ends_with("poster.jpg") && !hidden
    };
    while !walk(&previews).iter().any(whole) {
        let cached = walk(&previews);
        assert!(Instant::now() < deadline, "no poster cached in {}: {cached:?}\n{}", previews.display(), tmux.screen());
        std::thread::sleep(Duration::from_millis(100));
    }
    let cached: Vec<_> =
        walk(&client_data).into_iter().filter_map(|p| Some(p.strip_prefix(&client_data).ok()?.to_owned())).collect();
    eprintln!("the client's data folder: {cached:?}");

    // Cut the link while the host answers: said in the header, mended at once, table kept.
    let killed = cut_the_link(&tmux);
    eprintln!("killed ssh {killed:?}");
    let lost = format!("link to {far} lost");
    let deadline = Instant::now() + PATIENCE;
    let mut seen_lost = None;
    let screen = loop {
        let s = tmux.screen();
        if seen_lost.is_none() && header(&s).contains(&lost) {
            seen_lost = Some(header(&s).to_string());
        }
        // The whole screen redrawn after the reconnection (a capture can catch half a frame).
        let row = s.lines().any(|l| l.contains("a red fox at dusk") && l.contains("downloaded"));
        if s.contains("Reconnected to") && !header(&s).contains("lost") && row {
            break s;
        }
        assert!(Instant::now() < deadline, "never reconnected; the screen:\n{s}");
        std::thread::sleep(Duration::from_millis(20));
    };
    match &seen_lost {
        Some(h) => eprintln!("link lost:\n{h}"),
        None => eprintln!("the lost header came and went between two captures"),
    }
    assert!(screen.contains(&format!("Reconnected to {far}")), "{screen}");
    eprintln!(
        "reconnected:\n{}\n{}",
        header(&screen),
        screen.lines().rfind(|l| l.contains("Reconnected")).unwrap_or("")
    );
    assert!(!header(&screen).contains("lost"), "{screen}");
    let row = screen.lines().find(|l| l.contains("a red fox at dusk") && l.contains("downloaded"));
    assert!(row.is_some(), "the task is still shown, downloaded:\n{screen}");
    // The host goes away (new logins refused) and the link is cut: it stays down, and a task
    // sent meanwhile is refused, not queued.
    sshd.stop_listening();
    let again = cut_the_link(&tmux);
    assert!(again.iter().all(|p| !killed.contains(p)), "a new ssh since the reconnection: {again:?} {killed:?}");
    let screen = tmux.wait_for(&lost);
    eprintln!("host gone:\n{}", header(&screen));
    tmux.keys(&["n"]);
    tmux.wait_for("New prompt");
    tmux.keys(&["-l", "a grey wolf in the snow"]);
    tmux.keys(&["C-s"]);
    let screen = tmux.wait_for_all(&[&format!("Not sent: the link to {far}"), "a grey wolf in the snow"]);
    eprintln!("refused:\n{}\n{}", header(&screen), screen.lines().rfind(|l| l.contains("Not sent")).unwrap_or(""));
    assert!(screen.contains("a grey wolf in the snow"), "the form keeps the prompt:\n{screen}");
    let tasks = host_tasks(&host, &sim).await;
    assert_eq!(tasks.len(), 1, "nothing new reached the host: {tasks:?}");
    // Attempts go on, spaced out, while the host does not answer.
    let screen = tmux.wait_for("attempt 2");
    eprintln!("retrying:\n{}", header(&screen));

    // q quits (answering a question if one is asked), and reel exits 0.
    tmux.keys(&["Escape"]);
    tmux.wait_for("o open");
    tmux.keys(&["q"]);
    let deadline = Instant::now() + PATIENCE;
    let mut answered = false;
    let screen = loop {
        let s = tmux.screen();
        if s.contains("reel-exited-") {
            break s;
        }
        if !answered && s.contains("Quit?") {
            eprintln!("asked: {}", s.lines().find(|l| l.contains("Quit?")).unwrap_or(""));
            tmux.keys(&["y"]);
            answered = true;
        }
        assert!(Instant::now() < deadline, "reel did not quit; the screen:\n{s}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(screen.contains("reel-exited-0"), "{screen}");
    eprintln!("exit:\n{}", screen.trim_end());
    // Nothing of the link is left behind: no ssh to this server runs any more.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = ssh_to(sshd.port());
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "ssh left running after reel exited: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
