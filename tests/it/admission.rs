//! Limits held where all work meets: many client processes at the same instant against one
//! data folder's engine (the real binary, the simulator on 127.0.0.1), each round in a folder
//! of its own. No daily budget, agents' limit or batch row is passed or sent twice, whatever
//! the timing, because the engine admits each submission in the step that journals it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::collections::HashSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::folder::{Folder, MODEL, PATIENCE, folder};
use crate::common::start;
use reel_sim::SimHandle;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::{Value, json};

/// Client processes started at once in every round.
const CLIENTS: usize = 8;
/// Rounds, each a new data folder and engine.
const ROUNDS: usize = 3;

fn with_config(extra: &str) -> Folder {
    let f = folder(30.0, 200);
    let mut text = std::fs::read_to_string(&f.config).unwrap();
    text.push_str(extra);
    std::fs::write(&f.config, text).unwrap();
    f
}

const PRICED: &str = "[pricing]\ncurrency = \"$\"\n[pricing.per_second]\n\"acme/aurora-3.0/text-to-video\" = 0.1\n";

/// Runs `CLIENTS` reel processes at once, each with its own arguments.
async fn at_once(f: &Folder, sim: &SimHandle, args: impl Fn(usize) -> Vec<String>) -> Vec<(i32, String)> {
    let runs = (0..CLIENTS).map(|i| {
        let args = args(i);
        let mut command = f.reel(sim, &args.iter().map(String::as_str).collect::<Vec<_>>());
        async move {
            let out = tokio::time::timeout(PATIENCE, command.output()).await.expect("in time").expect("runs");
            (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
        }
    });
    futures_util::future::join_all(runs).await
}

/// The POSTs the simulator has answered.
fn posts(sim: &SimHandle) -> usize {
    sim.requests().iter().filter(|r| r.method == "POST" && r.path.ends_with("/videos")).count()
}

/// Waits until the simulator has seen `want` POSTs, then a moment more for any extra one.
async fn posts_settle(sim: &SimHandle, want: usize) -> usize {
    let deadline = Instant::now() + PATIENCE;
    while posts(sim) < want && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    posts(sim)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn commands_at_once_never_pass_the_daily_budget() {
    for round in 0..ROUNDS {
        let sim = start(crate::common::fast_config()).await;
        // $0.50 a task (5 s at $0.10), $1.00 a day: two fit, whoever asks first.
        let f = with_config(&format!("[budget]\ndaily = 1.0\n{PRICED}"));
        let runs =
            at_once(&f, &sim, |i| ["submit", "-m", MODEL, "-s", "5", &format!("race {i}")].map(String::from).to_vec())
                .await;
        let sent: Vec<&(i32, String)> = runs.iter().filter(|(code, _)| *code == 0).collect();
        assert_eq!(sent.len(), 2, "round {round}: {runs:#?}");
        for (code, err) in runs.iter().filter(|(code, _)| *code != 0) {
            assert_eq!(*code, 2, "nothing sent is exit 2: {err}");
            assert!(err.contains("past the daily budget of $1.00") && err.contains("add --yes"), "{err}");
            assert!(err.contains("nothing was sent"), "{err}");
        }
        assert_eq!(f.tasks(&sim).await.len(), 2, "round {round}: only what was admitted is journaled");
        assert_eq!(posts_settle(&sim, 2).await, 2, "round {round}: and sent");
        // The user's yes passes it, as one command: the engine honours it.
        let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--yes", "one more"]).await;
        assert_eq!(code, 0, "{err}");
        let _ = f.run(&sim, &["engine", "stop", "--force"]).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_identical_batch_runs_at_once_send_each_row_once() {
    for round in 0..ROUNDS {
        let sim = start(crate::common::fast_config()).await;
        let f = with_config("");
        let rows = 30;
        let file = f.config.with_file_name("prompts.txt");
        let lines: Vec<String> = (0..rows).map(|i| format!("row {i}: a heron in the reeds")).collect();
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let path = file.display().to_string();
        let runs =
            at_once(&f, &sim, |_| ["submit", "-m", MODEL, "--from", &path, "--yes"].map(String::from).to_vec()).await;
        for (code, err) in &runs {
            assert_eq!(*code, 0, "round {round}: every run ends well (some find the rows sent): {err}");
        }
        let tasks = f.tasks(&sim).await;
        let prompts: HashSet<&str> = tasks.iter().map(|t| t["prompt"].as_str().unwrap()).collect();
        assert_eq!((tasks.len(), prompts.len()), (rows, rows), "round {round}: each row journaled once");
        assert_eq!(posts_settle(&sim, rows).await, rows, "round {round}: and sent once");
        let _ = f.run(&sim, &["engine", "stop", "--force"]).await;
    }
}

type Agent = RunningService<RoleClient, ()>;

async fn agent(f: &Folder, sim: &SimHandle) -> Agent {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_reel"));
    command.arg("mcp").envs(f.env(sim));
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("reel mcp starts");
    ().serve(transport).await.expect("initialized")
}

fn text(result: &CallToolResult) -> String {
    crate::common::tool_text(result)
}

/// Every agent calls `submit` with `args` at the same moment; the results.
async fn agents_submit(agents: &[Agent], args: Value) -> Vec<CallToolResult> {
    let Value::Object(args) = args else { panic!("an object") };
    let calls = agents.iter().map(|a| {
        let params = CallToolRequestParams::new("submit").with_arguments(args.clone());
        async move { tokio::time::timeout(PATIENCE, a.call_tool(params)).await.expect("in time").expect("answered") }
    });
    futures_util::future::join_all(calls).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn agents_at_once_never_pass_their_daily_limits() {
    type Limit = (&'static str, &'static str, Value, usize);
    let limits: [Limit; 2] = [
        ("[agents]\nsubmit = true\ndaily_tasks = 4\n", "daily_tasks = 4", json!({"model": MODEL, "prompt": "race"}), 4),
        // $0.40 a call (4 s at $0.10), $1.00 a day for agents: two fit.
        (
            "[agents]\nsubmit = true\ndaily = 1.0\n",
            "[agents] daily = $1.00",
            json!({"model": MODEL, "prompt": "race", "seconds": 4}),
            2,
        ),
    ];
    for (config, words, args, fit) in limits {
        for round in 0..ROUNDS {
            let sim = start(crate::common::fast_config()).await;
            let f = with_config(&format!("{config}{PRICED}"));
            let mut agents = Vec::new();
            for _ in 0..CLIENTS {
                agents.push(agent(&f, &sim).await);
            }
            let results = agents_submit(&agents, args.clone()).await;
            let sent = results.iter().filter(|r| r.is_error != Some(true)).count();
            assert_eq!(sent, fit, "{words}, round {round}: {:?}", results.iter().map(text).collect::<Vec<_>>());
            for r in results.iter().filter(|r| r.is_error == Some(true)) {
                assert!(text(r).contains(words) && text(r).contains("nothing was sent"), "{}", text(r));
            }
            let tasks = f.tasks(&sim).await;
            assert_eq!(tasks.len(), fit, "{words}, round {round}: only what was admitted is journaled");
            assert!(tasks.iter().all(|t| t["tags"].to_string().contains("agent-")), "tagged as they were journaled");
            assert_eq!(posts_settle(&sim, fit).await, fit, "{words}, round {round}: and sent");
            for a in agents {
                a.cancel().await.expect("closed");
            }
            let _ = f.run(&sim, &["engine", "stop", "--force"]).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_engine_decides_by_its_own_config_and_a_command_with_another_is_told() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config(&format!("[budget]\ndaily = 1.0\n{PRICED}"));
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "first"]).await;
    assert_eq!(code, 0, "{err}");
    // The config now allows far more; the engine started with $1.00 and keeps it.
    let text = std::fs::read_to_string(&f.config).unwrap().replace("daily = 1.0", "daily = 100.0");
    std::fs::write(&f.config, text).unwrap();
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "10", "second"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("[budget] daily: the engine's 1, this config's 100"), "told: {err}");
    assert!(err.contains("past the daily budget of $1.00"), "the engine's limit holds: {err}");
    assert_eq!(f.tasks(&sim).await.len(), 1);
    let _ = f.run(&sim, &["engine", "stop", "--force"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_submission_past_the_engines_max_tasks_is_refused_whole() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config("[batch]\nmax_tasks = 5\n");
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-n", "6", "six foxes"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("makes 6 tasks, past the engine's [batch] max_tasks = 5"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(f.tasks(&sim).await.is_empty(), "nothing journaled");
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-n", "5", "five foxes"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(f.tasks(&sim).await.len(), 5);
    let _ = f.run(&sim, &["engine", "stop", "--force"]).await;
}
