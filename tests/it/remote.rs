//! An engine on another machine reached over SSH (`reel --engine ssh://…`): a real OpenSSH
//! server on 127.0.0.1 logs the test's user in with a key of its own, and the "host's" reel is
//! this very binary in a data folder of its own, talking to the simulator. Every wait has one
//! generous bound that only limits a failure.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::folder::{Folder, MODEL, PATIENCE, folder, slow_sim};
use crate::common::sshd::{Client, Sshd, children, remote_reel};
use crate::common::{assert_whole_json, fast_config, sha256_hex, start};
use reel_sim::{SimConfig, SimHandle};
use serde_json::Value;

/// The "host": a simulator, the engine's data folder on it, and an SSH server to reach it.
struct Host {
    sim: SimHandle,
    folder: Folder,
    sshd: Sshd,
    /// REEL_REMOTE_REEL: this reel, told where the simulator is and which config to use.
    reel: String,
}

impl Host {
    /// `None` when OpenSSH is not installed here (the test is skipped, except in CI).
    async fn start(config: SimConfig) -> Option<Host> {
        let sshd = Sshd::start()?;
        let sim = start(config).await;
        let folder = folder(5.0, 50);
        let reel = remote_reel(&folder.env(&sim));
        Some(Host { sim, folder, sshd, reel })
    }

    /// A client on "another machine" (a data folder of its own) using this host's engine.
    fn client(&self) -> Client {
        self.sshd.client(&self.folder.data, &self.reel)
    }

    /// `reel --data-dir H ARGS` run on the host itself, without --engine.
    async fn here(&self, args: &[&str]) -> Output {
        let data = self.folder.data.to_str().expect("a UTF-8 path");
        let mut command = self.folder.reel(&self.sim, &[&["--data-dir", data], args].concat());
        tokio::time::timeout(PATIENCE, command.output()).await.expect("in time").expect("runs")
    }

    /// The host's tasks, read on the host.
    async fn tasks(&self) -> Vec<Value> {
        self.try_tasks().await.unwrap_or_else(|e| panic!("reel list on the host: {e}"))
    }

    async fn try_tasks(&self) -> Result<Vec<Value>, String> {
        let out = self.here(&["list", "--json", "--limit", "1000"]).await;
        if !out.status.success() {
            return Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr).trim()));
        }
        serde_json::from_slice(&out.stdout).map_err(|e| format!("not JSON ({e}): {out:?}"))
    }

    /// Waits until a task of the host is `what` (`test`), reading its journal there. A read
    /// that fails is said and tried again: it can meet the engine creating the database.
    async fn until(&self, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let tasks = match self.try_tasks().await {
                Ok(tasks) => tasks,
                Err(e) => {
                    eprintln!("reading the host's tasks failed, trying again: {e}");
                    Vec::new()
                }
            };
            if let Some(t) = tasks.iter().find(|t| test(t)) {
                return t.clone();
            }
            assert!(Instant::now() < deadline, "no task {what} on the host: {tasks:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A saved task's file is on the host, in its data folder, and is the video the service sent.
    fn assert_saved(&self, task: &Value) {
        let path = Path::new(task["file_path"].as_str().expect("a file path"));
        let (path, data) = (path.canonicalize().expect("the file exists"), self.folder.data.canonicalize().expect("H"));
        assert!(path.starts_with(&data), "{} is not under the host's data folder {}", path.display(), data.display());
        let remote = task["remote_id"].as_str().expect("a remote id");
        assert_whole_json(task, &self.sim.video_bytes(remote).expect("the simulator served it"));
    }
}

/// The standard output of a command that must succeed, as JSON.
fn json(out: Output) -> Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {err}", out.status.code());
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"))
}

/// Sends `prompt` through `client` and waits for its file: the task as `--json` prints it.
async fn sent_and_saved(client: &Client, prompt: &str) -> Value {
    let sent = json(client.run(&["submit", "--model", MODEL, "--prompt", prompt, "--wait", "--json"]).await);
    let task = sent[0].clone();
    assert_eq!(task["state"], "downloaded", "{sent}");
    task
}

/// The test server logs the test's key in and runs a command with a clean standard output (a
/// word from the login shell's startup files would corrupt the protocol).
#[tokio::test(flavor = "multi_thread")]
async fn the_test_server_logs_in_with_the_test_key() {
    let Some(sshd) = Sshd::start() else { return };
    let ssh = sshd.ssh();
    let out = tokio::process::Command::new(&ssh[0])
        .args(&ssh[1..])
        .args(["-T", "-o", "BatchMode=yes", "-p", &sshd.port().to_string()])
        .arg(format!("{}@127.0.0.1", sshd.user()))
        .arg("echo ready; command -v env")
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(PATIENCE, out).await.expect("in time").expect("ssh runs");
    let said = String::from_utf8_lossy(&out.stdout);
    let log = sshd.log();
    assert!(out.status.success(), "ssh: {}\nsshd's log:\n{log}", String::from_utf8_lossy(&out.stderr));
    assert!(said.starts_with("ready\n"), "the login shell printed something first: {said:?}");
    assert!(said.lines().nth(1).is_some_and(|p| p.starts_with('/')), "a PATH with env(1) on the host: {said:?}");
    assert!(log.contains("Accepted publickey"), "the server logs to its file:\n{log}");
}

/// A host whose key is not the one known for it: ssh's warning is passed through, and nothing
/// advises accepting the new key (it may be a man-in-the-middle).
#[tokio::test(flavor = "multi_thread")]
async fn a_changed_host_key_is_refused_with_sshs_own_warning() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let dir = tempfile::tempdir().expect("a folder");
    let other = dir.path().join("other_ed25519");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&other)
        .output()
        .expect("ssh-keygen runs");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let public = std::fs::read_to_string(other.with_extension("pub")).expect("a public key");
    let key: Vec<&str> = public.split_whitespace().take(2).collect();
    let known = dir.path().join("known_hosts");
    std::fs::write(&known, format!("[127.0.0.1]:{} {}\n", host.sshd.port(), key.join(" "))).expect("known_hosts");
    let ssh: Vec<String> = host
        .sshd
        .ssh()
        .into_iter()
        .map(|a| match a {
            a if a.starts_with("UserKnownHostsFile=") => format!("UserKnownHostsFile={}", known.display()),
            a if a == "StrictHostKeyChecking=no" => "StrictHostKeyChecking=yes".into(),
            a => a,
        })
        .collect();
    let client = host.client();
    let mut command = client.command(&["list", "--json"]);
    command.env("REEL_SSH", shell_words::join(&ssh));
    let out = tokio::time::timeout(PATIENCE, command.output()).await.expect("in time").expect("runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("REMOTE HOST IDENTIFICATION HAS CHANGED"), "ssh's warning, passed through: {said}");
    assert!(said.contains("man-in-the-middle") && said.contains("did not connect"), "{said}");
    assert!(!said.contains("accept the host's key"), "never advice to accept a changed key: {said}");
}

/// A data folder on the host that cannot be made is said to be the trouble, in the host's reel's
/// own words, never blamed on reel not being installed there.
#[tokio::test(flavor = "multi_thread")]
async fn a_bad_data_folder_on_the_host_is_named_as_such() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let mut client = host.client();
    client.url = format!("ssh://{}@127.0.0.1:{}/proc/nope", host.sshd.user(), host.sshd.port());
    let out = client.run(&["list", "--json"]).await;
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("the data folder /proc/nope cannot be used"), "{said}");
    assert!(said.contains("said by reel on the host"), "{said}");
    assert!(!said.contains("is reel installed"), "{said}");
}

/// A task sent through one client is seen, downloaded, by a second client; the file is the host's.
#[tokio::test(flavor = "multi_thread")]
async fn submit_from_one_client_and_see_it_in_another() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let (one, two) = (host.client(), host.client());
    let task = sent_and_saved(&one, "a fox").await;
    host.assert_saved(&task);

    let listed = json(two.run(&["list", "--json"]).await);
    let seen = listed.as_array().expect("a list").iter().find(|t| t["id"] == task["id"]);
    let seen = seen.unwrap_or_else(|| panic!("the second client does not see task {}: {listed}", task["id"]));
    assert_eq!(seen["state"], "downloaded", "{seen}");
    assert_eq!(seen["file_path"], task["file_path"], "the file is where the host saved it");
    host.assert_saved(seen);
}

/// A client that leaves once its task is journaled leaves the work to the host, which saves the file.
#[tokio::test(flavor = "multi_thread")]
async fn quit_and_the_host_saves_the_file() {
    let Some(host) = Host::start(slow_sim()).await else { return };
    let sent = json(host.client().run(&["submit", "--model", MODEL, "--prompt", "a fox", "--json"]).await);
    let task = &sent[0];
    assert_ne!(task["state"], "downloaded", "the client left before the task ended: {sent}");
    let saved = host.until("downloaded", |t| t["id"] == task["id"] && t["state"] == "downloaded").await;
    host.assert_saved(&saved);
}

/// History search and show over SSH print what the same commands print on the host.
#[tokio::test(flavor = "multi_thread")]
async fn history_search_and_show_over_ssh() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let client = host.client();
    let fox = sent_and_saved(&client, "a red fox in snow").await;
    sent_and_saved(&client, "a grey wolf at dusk").await;
    sent_and_saved(&client, "a fox cub asleep").await;

    let search = ["history", "search", "fox", "--json"];
    let (there, here) = (json(client.run(&search).await), json(host.here(&search).await));
    assert_eq!(there, here, "history search over SSH and on the host");
    let prompts: Vec<&str> = there.as_array().expect("a list").iter().filter_map(|t| t["prompt"].as_str()).collect();
    assert_eq!(prompts.len(), 2, "both foxes and no wolf: {there}");
    assert!(prompts.iter().all(|p| p.contains("fox")), "{there}");

    let id = fox["id"].to_string();
    let show = ["show", id.as_str(), "--json"];
    let (there, here) = (json(client.run(&show).await), json(host.here(&show).await));
    assert_eq!(there, here, "show over SSH and on the host");
    assert_eq!(there["task"]["file_path"], fox["file_path"], "{there}");

    // Everything else that read the local file: the same bytes either way.
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["show", id.as_str()],
        &["history", "search", "fox"],
        &["history", "stats", "--json"],
        &["history", "export", "--format", "csv"],
        &["history", "export", "--format", "jsonl"],
    ] {
        let (there, here) = (client.run(args).await, host.here(args).await);
        assert!(there.status.success() && here.status.success(), "{args:?}: {there:?} {here:?}");
        assert_eq!(String::from_utf8_lossy(&there.stdout), String::from_utf8_lossy(&here.stdout), "{args:?}");
    }
}

/// `pull` copies a task's file from the host into a folder here, verified against its sha256.
#[tokio::test(flavor = "multi_thread")]
async fn pull_fetches_and_verifies() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let client = host.client();
    let task = sent_and_saved(&client, "a fox").await;
    let id = task["id"].to_string();
    let shown = json(client.run(&["show", id.as_str(), "--json"]).await);
    let shown = &shown["task"];
    let want = shown["file_sha256"].as_str().or(shown["sha256"].as_str()).expect("a sha256").to_string();

    let to = tempfile::tempdir().expect("a folder to pull into");
    let out = client.run(&["pull", id.as_str(), "--to", to.path().to_str().expect("UTF-8")]).await;
    assert!(out.status.success(), "exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    let name = Path::new(shown["file_path"].as_str().expect("a file path")).file_name().expect("a file name");
    let pulled = to.path().join(name);
    let bytes = std::fs::read(&pulled).unwrap_or_else(|e| panic!("{}: {e}", pulled.display()));
    assert_eq!(sha256_hex(&bytes), want, "{}", pulled.display());
    let files = std::fs::read_dir(to.path()).expect("the folder").count();
    assert_eq!(files, 1, "one file per task and nothing else left behind");
    let again = client.run(&["pull", id.as_str(), "--to", to.path().to_str().expect("UTF-8")]).await;
    assert!(String::from_utf8_lossy(&again.stdout).contains("already at"), "{again:?}");
    // A folder of this machine cannot become the host's history: said, nothing journaled.
    let import = client.run(&["import", to.path().to_str().expect("UTF-8")]).await;
    assert_eq!(import.status.code(), Some(2), "{import:?}");
    assert!(String::from_utf8_lossy(&import.stderr).contains("run `reel import DIR` there"), "{import:?}");
    assert_eq!(host.tasks().await.len(), 1, "nothing was imported");

    // The preview's stills come from the host into this machine's cache.
    if crate::common::have_tools(&["ffmpeg"]) {
        let previewed = json(client.run(&["show", id.as_str(), "--preview", "--json"]).await);
        let poster = previewed["preview"]["poster"].as_str().unwrap_or_else(|| panic!("a poster: {previewed}"));
        assert!(Path::new(poster).starts_with(&client.data), "in the client's cache: {poster}");
        let jpeg = std::fs::read(poster).expect("the poster");
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8], "a JPEG");
    }
}

/// A host whose reel is too old for `engine attach`, or speaks another protocol, is named as
/// such, with what to do.
#[tokio::test(flavor = "multi_thread")]
async fn a_version_mismatch_is_named() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let scripts = tempfile::tempdir().expect("a folder for the host's scripts");
    let send = ["submit", "--model", MODEL, "--prompt", "a fox", "--json"];

    // A reel that attaches but speaks another protocol.
    let other = script(
        scripts.path(),
        "other-reel",
        "read -r hello\n\
         echo '{\"type\":\"refused\",\"reason\":\"the host'\"'\"'s reel is 0.0.1 (protocol 2) and yours is newer; \
         install the same version of reel on both machines\",\"replaceable\":false}'\n",
    );
    let out = host.sshd.client(&host.folder.data, &other).run(&send).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(err.contains("0.0.1"), "the host's version is named: {err}");
    assert!(host.tasks().await.is_empty(), "nothing was journaled on the host");

    // A reel from before `engine attach`: clap's own refusal.
    let old = script(
        scripts.path(),
        "old-reel",
        "echo \"error: unrecognized subcommand 'attach'\" >&2\n\
         echo >&2\n\
         echo 'Usage: reel engine <COMMAND>' >&2\n\
         echo >&2\n\
         echo \"For more information, try '--help'.\" >&2\n\
         exit 2\n",
    );
    let out = host.sshd.client(&host.folder.data, &old).run(&send).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(err.contains("version") && err.contains("same version"), "the host's reel is named too old: {err}");
    assert!(host.tasks().await.is_empty(), "nothing was journaled on the host");
}

/// Cutting the link while the host downloads a file leaves the host's engine to finish it, whole,
/// and the waiting command attaches again, as the dashboard does, and sees it saved.
#[tokio::test(flavor = "multi_thread")]
async fn link_cut_during_download_host_finishes() {
    // A slow CDN: the file takes several seconds to arrive.
    let Some(host) = Host::start(SimConfig { file_rate: Some(FILE_RATE), ..fast_config() }).await else { return };
    let client = host.client();
    let mut waiting = client
        .command(&["submit", "--model", MODEL, "--prompt", "a fox", "--wait", "--json"])
        .spawn()
        .expect("reel starts");
    let pid = waiting.id().expect("a running client");

    // The only task on the host is ours; wait until its file is on its way.
    let task = host.until("downloading", |t| t["state"] == "downloading").await;
    assert!(waiting.try_wait().expect("the client's status").is_none(), "the client ended before the download");
    let ssh = children(pid).into_iter().filter(|(_, name)| name == "ssh").map(|(p, _)| p).collect::<Vec<_>>();
    assert!(!ssh.is_empty(), "the client runs ssh");
    for p in &ssh {
        let killed = std::process::Command::new("kill").args(["-KILL", &p.to_string()]).status().expect("kill");
        assert!(killed.success(), "kill -KILL {p}");
    }
    assert_ne!(host.tasks().await[0]["state"], "downloaded", "the link was cut before the file was saved");

    // The client says the link dropped, attaches again and follows the task to its end.
    let ended = tokio::time::timeout(PATIENCE, waiting.wait_with_output()).await.expect("the client ends");
    let ended = ended.expect("its status");
    let said = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(0), "the link came back, the task was saved: {said}");
    assert!(said.contains("dropped") && said.contains("attached again"), "said so: {said}");
    let printed: Value = serde_json::from_slice(&ended.stdout).expect("json");
    assert_eq!(printed[0]["state"], "downloaded", "{printed}");

    let saved = host.until("downloaded", |t| t["id"] == task["id"] && t["state"] == "downloaded").await;
    host.assert_saved(&saved);
}

/// Bytes a second the simulator serves files at in the link-cut test: its 720p videos of five
/// seconds (about 200 kB) take about ten.
const FILE_RATE: u64 = 20_000;

/// An executable shell script `name` in `dir`: a stand-in for the host's reel.
fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).expect("the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("executable");
    path.to_str().expect("a UTF-8 path").to_string()
}

/// An agent on this machine (`reel --engine ssh://… mcp`, through rmcp's own client) sends,
/// waits, searches and shows through the host's engine: the task and its file are the host's,
/// the limits the host's config, and the poster comes from the host as MCP image content.
#[tokio::test(flavor = "multi_thread")]
async fn an_agent_over_ssh_works_on_the_hosts_engine() {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    let Some(host) = Host::start(fast_config()).await else { return };
    let client = host.client();
    // The host's config decides what agents may do there; this machine's has no say.
    let mut host_config = std::fs::read_to_string(&host.folder.config).expect("the host's config");
    host_config.push_str("[agents]\nsubmit = true\n");
    std::fs::write(&host.folder.config, host_config).expect("the host's config");
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(client.command(&["mcp"]))
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("reel mcp starts");
    let agent = ().serve(transport).await.expect("initialized");
    let call = |tool: &'static str, args: Value| {
        let Value::Object(args) = args else { panic!("arguments are an object") };
        let agent = &agent;
        async move {
            let params = CallToolRequestParams::new(tool).with_arguments(args);
            let result =
                tokio::time::timeout(PATIENCE, agent.call_tool(params)).await.expect("in time").expect("answer");
            assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
            result
        }
    };
    let text = |r: &rmcp::model::CallToolResult| -> Value {
        let t = r.content.iter().find_map(|c| c.raw.as_text()).map(|t| t.text.clone()).expect("text content");
        serde_json::from_str(&t).expect("JSON")
    };
    let sent = text(&call("submit", serde_json::json!({"model": MODEL, "prompt": "a fox seen over ssh"})).await);
    let id = sent["tasks"][0]["id"].as_i64().expect("a local id");
    let waited = text(&call("wait", serde_json::json!({"ids": [id], "timeout_secs": 60})).await);
    assert_eq!(waited["all_ended"], true, "{waited}");
    let task = &waited["tasks"][0];
    assert_eq!(task["state"], "downloaded", "{task}");
    host.assert_saved(task);
    let found = text(&call("search", serde_json::json!({"query": "fox ssh"})).await);
    assert_eq!(found["tasks"][0]["id"], id, "{found}");
    let on_host = host.until("sent by the agent", |t| t["id"] == id).await;
    assert!(on_host["tags"].as_array().is_some_and(|t| !t.is_empty()), "tagged as an agent's: {on_host}");
    let shown = call("show", serde_json::json!({"id": id})).await;
    let images = shown.content.iter().filter_map(|c| c.raw.as_image()).count();
    if crate::common::have_tools(&["ffmpeg"]) {
        assert_eq!(images, 1, "the poster, fetched from the host: {:?}", text(&shown));
        let previews = client.data.join("previews");
        assert!(std::fs::read_dir(&previews).is_ok_and(|mut d| d.next().is_some()), "cached here");
    }
    agent.cancel().await.expect("closed");
    // The engine asked about is the host's, not this machine's.
    let status = json(client.run(&["engine", "status", "--json"]).await);
    let socket = Path::new(status["socket"].as_str().expect("its socket")).to_path_buf();
    assert!(socket.starts_with(&host.folder.data), "the host's engine: {status}");
}

/// `reel open` over SSH fetches the host's file into this machine's cache, checked against
/// its sum, and hands that copy to the player.
#[tokio::test(flavor = "multi_thread")]
async fn open_plays_a_copy_fetched_from_the_host() {
    use std::os::unix::fs::PermissionsExt as _;
    let Some(host) = Host::start(fast_config()).await else { return };
    let client = host.client();
    let task = sent_and_saved(&client, "a fox to watch").await;
    let scripts = tempfile::tempdir().expect("a folder for the player");
    let (player, played) = (scripts.path().join("player.sh"), scripts.path().join("played.txt"));
    std::fs::write(&player, format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", played.display())).expect("script");
    std::fs::set_permissions(&player, std::fs::Permissions::from_mode(0o755)).expect("executable");
    let id = task["id"].to_string();
    let mut open = client.command(&["open", id.as_str()]);
    open.env("REEL_PLAYER", &player);
    let out = tokio::time::timeout(PATIENCE, open.output()).await.expect("in time").expect("runs");
    assert!(out.status.success(), "{out:?}");
    let deadline = Instant::now() + PATIENCE;
    let path = loop {
        if let Ok(p) = std::fs::read_to_string(&played).map(|p| p.trim().to_string())
            && !p.is_empty()
        {
            break p;
        }
        assert!(Instant::now() < deadline, "the player was never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let path = Path::new(&path);
    assert!(path.starts_with(client.data.join("fetched")), "a copy in this machine's cache: {}", path.display());
    let want = task["file_sha256"].as_str().or(task["sha256"].as_str()).expect("a sum");
    assert_eq!(sha256_hex(&std::fs::read(path).expect("the copy")), want);
}

/// A command that reads and then acts (`wait`, `rate`, `rm`) logs in over SSH once: the reads
/// go through the link it acts on (each login costs seconds on a slow link).
#[tokio::test(flavor = "multi_thread")]
async fn a_command_logs_in_once() {
    let Some(host) = Host::start(fast_config()).await else { return };
    let client = host.client();
    let task = sent_and_saved(&client, "a fox counted").await;
    let id = task["id"].to_string();
    let logins = || host.sshd.log().matches("Accepted publickey").count();
    for args in [
        &["wait", id.as_str()][..],
        &["wait", "--all"],
        &["rate", id.as_str(), "4"],
        &["download", id.as_str()],
        &["rm", id.as_str()],
    ] {
        let before = logins();
        let out = client.run(args).await;
        assert!(out.status.success(), "{args:?}: {out:?}");
        // sshd may write its log line a moment after the session began.
        let deadline = Instant::now() + Duration::from_secs(5);
        while logins() == before && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(logins() - before, 1, "{args:?} logged in once");
    }
    assert!(host.tasks().await.is_empty(), "rm went through: the host forgot the task");
}
