//! The headless commands as scripts use them: the real binary against the simulator on
//! 127.0.0.1, including `kill -9` at several points of a run.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::folder::{Folder, folder};
use crate::common::*;
use reel_sim::{SimConfig, SimHandle};
use serde_json::Value;
use tokio::process::Command;

async fn run(env: &Folder, sim: &SimHandle, args: &[&str]) -> (i32, String, String) {
    output(env.reel(sim, args)).await
}

/// (exit code, stdout, stderr) of a command that must finish within a minute.
async fn output(mut command: Command) -> (i32, String, String) {
    let out = tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("finishes within a minute")
        .expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// `reel` with one more environment variable.
fn reel_with(env: &Folder, sim: &SimHandle, var: (&str, &str), args: &[&str]) -> Command {
    let mut c = env.reel(sim, args);
    c.env(var.0, var.1);
    c
}

const MODEL: &str = "acme/aurora-3.0/text-to-video";

/// Two copies of "a red fox", sent and waited for: their records as `--json` prints them.
async fn two_foxes(env: &Folder, sim: &SimHandle) -> Value {
    let (code, out, err) =
        run(env, sim, &["submit", "--model", MODEL, "--prompt", "a red fox", "--count", "2", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_wait_list_show_and_download() {
    let sim = start(fast_config()).await;
    let env = folder(1.0, 50);
    let tasks = two_foxes(&env, &sim).await;
    assert_eq!(tasks.as_array().map(Vec::len), Some(2));
    for t in tasks.as_array().expect("array") {
        assert_eq!(t["state"], "downloaded");
        assert!(Path::new(t["file_path"].as_str().expect("path")).exists());
    }
    let remote = tasks[0]["remote_id"].as_str().expect("remote id").to_string();

    let (code, out, _) = run(&env, &sim, &["list", "--json"]).await;
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Value>(&out).expect("json").as_array().map(Vec::len), Some(2));
    let (code, out, _) = run(&env, &sim, &["list", "--status", "failed"]).await;
    assert_eq!(code, 0);
    assert!(out.starts_with("No tasks"), "{out}");

    let (code, out, _) = run(&env, &sim, &["show", &remote[..remote.len() - 3], "--json"]).await;
    assert_eq!(code, 0, "a unique prefix of the remote id");
    let shown: Value = serde_json::from_str(&out).expect("json");
    let states: Vec<&str> =
        shown["events"].as_array().expect("events").iter().filter_map(|e| e["state"].as_str()).collect();
    assert_eq!(states.get(..2), Some(&["waiting", "submitting"][..]), "journaled, then sent");
    assert_eq!(states.last(), Some(&"downloaded"));
    let (code, out, _) = run(&env, &sim, &["show", &remote]).await;
    assert_eq!(code, 0);
    assert!(out.contains("Timeline") && out.contains("sha256"), "{out}");

    let path = PathBuf::from(tasks[0]["file_path"].as_str().expect("path"));
    std::fs::remove_file(&path).expect("the user deletes the file");
    let (code, out, err) = run(&env, &sim, &["download", &remote, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let again: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(again[0]["file_path"].as_str(), path.to_str(), "fetched again to the same place");
    assert_whole_json(&again[0], &sim.video_bytes(&remote).expect("served"));
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_input_is_refused_before_any_request() {
    let sim = start(fast_config()).await;
    let env = folder(1.0, 50);
    let (code, _, err) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "  ", "--seconds", "31"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("prompt is required") && err.contains("seconds 31 is out of range"), "{err}");
    let (code, _, err) = run(
        &env,
        &sim,
        &[
            "submit",
            "--model",
            "acme/aurora-3.0/image-to-video",
            "--prompt",
            "p",
            "--media",
            "first_frame=ftp://x/a.png",
        ],
    )
    .await;
    assert_eq!(code, 2);
    assert!(err.contains("http:// or https://"), "{err}");
    assert!(sim.requests().is_empty(), "no request reached the server");
    let (code, _, err) = run(&env, &sim, &["show", "nothing-like-this"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("no task matches"), "{err}");
    let (code, _, _) = run(&env, &sim, &["wait"]).await;
    assert_eq!(code, 2, "wait needs ids or --all");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_task_exits_1_and_a_send_held_for_an_unreachable_service_exits_3() {
    let mut config = fast_config();
    config.lifecycle.failure_rate = 1.0;
    let sim = start(config).await;
    let env = folder(1.0, 50);
    let (code, out, _) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "p", "--wait"]).await;
    assert_eq!(code, 1);
    assert!(out.contains("failed"), "{out}");

    // The service down: the tasks wait for it (never rejected), the command says they are held
    // and exits 3 (not 2: that says nothing was made, and a script retrying on it pays twice).
    let closed = start(fast_config()).await;
    let (port, url) = (closed.addr().port(), closed.base_url());
    closed.stop().await;
    let env = folder(1.0, 50);
    let args = ["submit", "--model", MODEL, "--prompt", "p", "--count", "2"];
    let (code, out, err) = output(reel_with(&env, &sim, ("REEL_BASE_URL", &url), &args)).await;
    assert_eq!(code, 3, "{err}");
    assert!(out.contains("waiting") && !out.contains("rejected"), "{out}");
    assert!(err.contains("unreachable") && err.contains("2 tasks wait to be sent"), "{err}");
    assert!(!err.contains("Retry-After") && !err.contains("rate limited"), "{err}");
    // The service is back: the engine sends them; each once.
    let back = loop {
        match reel_sim::SimHandle::start(fast_config(), port).await {
            Ok(sim) => break sim,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let (code, out, err) = run(&env, &back, &["wait", "--all", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks: Value = serde_json::from_str(&out).expect("json");
    assert!(tasks.as_array().expect("array").iter().all(|t| t["state"] == "downloaded"), "{out}");
    assert_eq!(back.task_count(), 2);
    let (_, ledger, _) = run(&env, &back, &["history", "ledger"]).await;
    assert!(!ledger.contains("rejected"), "an outage is no rejection in the ledger: {ledger}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_holds_the_tasks_with_exit_3_and_journals_no_rejected_task() {
    let sim = start(SimConfig { answers: reel_sim::Answers::Gateway(Default::default()), ..fast_config() }).await;
    let env = folder(1.0, 50);
    let wrong = ("REEL_API_KEY", "sk-wrong");
    let args = ["submit", "--model", MODEL, "--prompt", "p", "--count", "3", "--json"];
    let (code, stdout, stderr) = output(reel_with(&env, &sim, wrong, &args)).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("the service refused the API key (HTTP 401): check REEL_API_KEY or api_key_cmd"),
        "{stderr}"
    );
    assert!(stderr.contains("request id") && stderr.contains("3 tasks wait to be sent"), "{stderr}");
    let tasks: Value = serde_json::from_str(&stdout).expect("json");
    assert!(tasks.as_array().expect("array").iter().all(|t| t["state"] == "waiting"), "{stdout}");
    // Sending more with the same key journals nothing.
    let (code, _, err) = output(reel_with(&env, &sim, wrong, &["submit", "--model", MODEL, "--prompt", "p"])).await;
    assert_eq!(code, 2);
    assert!(err.contains("nothing was sent"), "{err}");
    let (_, out, _) = output(reel_with(&env, &sim, wrong, &["list", "--json"])).await;
    let listed: Value = serde_json::from_str(&out).expect("json");
    let states: Vec<&str> = listed.as_array().expect("array").iter().filter_map(|t| t["state"].as_str()).collect();
    assert_eq!(states, vec!["waiting"; 3], "none rejected, none added");
    // The right key in use: the engine with the refused one steps aside, the tasks go, each once.
    let (code, out, err) = run(&env, &sim, &["wait", "--all", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks: Value = serde_json::from_str(&out).expect("json");
    assert!(tasks.as_array().expect("array").iter().all(|t| t["state"] == "downloaded"), "{out}");
    assert_eq!(sim.task_count(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_wait_against_a_gateway_saves_every_video() {
    for (name, url) in reel_sim::UrlPlacement::NAMES {
        let gateway = reel_sim::Gateway { url, ..Default::default() };
        let sim = start(SimConfig { answers: reel_sim::Answers::Gateway(gateway), ..fast_config() }).await;
        let env = folder(1.0, 50);
        let (code, out, err) =
            run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "p", "--count", "2", "--wait", "--json"]).await;
        assert_eq!(code, 0, "{name}: {err}");
        let tasks: Value = serde_json::from_str(&out).expect("json");
        for t in tasks.as_array().expect("array") {
            assert_eq!(t["state"], "downloaded", "{name}");
            let remote = t["remote_id"].as_str().expect("remote id");
            assert_whole_json(t, &sim.video_bytes(remote).expect("served"));
        }
    }
}

/// SIGKILL a reel running its engine in process (`--no-service`) at several points of a run
/// (submitting, polling, downloading) and restart it each time: every task ends accounted for
/// and every file whole. (The engine process itself is killed in tests/engine_service.rs.)
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_at_any_moment_loses_no_task_and_leaves_no_corrupt_file() {
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_millis(500);
    config.lifecycle.render_max = Duration::from_millis(1500);
    config.file_rate = Some(250_000);
    let sim = start(SimConfig { ..config }).await;
    let env = folder(1.0, 50);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut kills = 0;
    for round in 0..7 {
        let args: &[&str] = if round == 0 {
            &[
                "submit",
                "--no-service",
                "--model",
                MODEL,
                "--prompt",
                "crash test",
                "--resolution",
                "480P",
                "--count",
                "8",
                "--wait",
            ]
        } else {
            &["wait", "--all", "--no-service"]
        };
        let mut child = env.reel(&sim, args).spawn().expect("spawns");
        if round == 0 {
            // Once every POST has been answered, however slowly a loaded machine started the
            // process: a fixed delay could land while all eight POSTs are in flight, leaving
            // eight `submit_unknown` and nothing for the later rounds (kills during the sends
            // are tested by `a_batch_cut_by_kill_9…`).
            let db = env.data.join("reel.db");
            let answered = "SELECT count(*) FROM tasks \
                WHERE state_code NOT IN (SELECT code FROM states WHERE name IN ('waiting', 'submitting'))";
            let journaled = || {
                reel_store::open_reader(&db).ok().and_then(|c| c.query_row(answered, [], |r| r.get::<_, i64>(0)).ok())
                    == Some(8)
            };
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while !journaled() && std::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        } else {
            tokio::time::sleep(Duration::from_millis(rng.u64(150..900))).await;
        }
        if child.try_wait().expect("status").is_none() {
            child.start_kill().expect("SIGKILL");
            kills += 1;
        }
        let _ = child.wait().await;
    }
    assert!(kills >= 4, "only {kills} kills landed");
    let (code, _, err) = run(&env, &sim, &["wait", "--all", "--no-service"]).await;
    assert!(code == 0 || code == 1, "{err}");

    let (_, out, _) = run(&env, &sim, &["list", "--json", "--limit", "100"]).await;
    let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(tasks.len(), 8, "every journaled task is still there");
    let mut unknown = 0;
    let mut remote_ids = Vec::new();
    for t in &tasks {
        match t["state"].as_str() {
            Some("downloaded") => {
                let remote = t["remote_id"].as_str().expect("remote id");
                assert_whole_json(t, &sim.video_bytes(remote).expect("served"));
                remote_ids.push(remote.to_string());
            }
            Some("submit_unknown") => unknown += 1,
            other => panic!("task {} ended {other:?}", t["id"]),
        }
    }
    // Every task the service created is one of ours: downloaded, or a submission whose answer
    // the kill cut off (shown as submit_unknown, never resent).
    assert!(sim.task_count() >= remote_ids.len());
    assert!(
        sim.task_count() - remote_ids.len() <= unknown,
        "{} remote tasks for {} known",
        sim.task_count(),
        remote_ids.len()
    );
    assert!(!remote_ids.is_empty(), "some tasks made it through");
    let parts: Vec<PathBuf> = walk(&env.data).into_iter().filter(|p| p.to_string_lossy().ends_with(".part")).collect();
    assert!(parts.is_empty(), "leftover partial files: {parts:?}");
}

/// `kill -9` in the middle of `--count 50`: only the POSTs in flight can be ambiguous; the
/// tasks that were waiting to be sent are sent afterwards, and nothing is paid twice.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_cut_by_kill_9_has_submit_unknown_only_for_posts_in_flight() {
    let sim = start(fast_config()).await;
    let env = folder(1.0, 50);
    // Five requests a second at most, so the kill lands in the middle of the batch.
    std::fs::write(
        &env.config,
        "[engine]\nrequests_per_second = 5\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\n\
         max_poll_interval_secs = 0.5\nidle_exit_secs = 1\n",
    )
    .expect("config");
    let mut posts = sim.watch_requests();
    let args =
        ["submit", "--no-service", "--model", MODEL, "--prompt", "batch", "--resolution", "480P", "--count", "50"];
    let mut child = env.reel(&sim, &args).spawn().expect("spawns");
    let mut seen = 0;
    while seen < 10 {
        let r = tokio::time::timeout(Duration::from_secs(60), posts.recv()).await.expect("posts").expect("open");
        seen += usize::from(r.method == "POST");
    }
    child.start_kill().expect("SIGKILL");
    let _ = child.wait().await;
    let sent_before = sim.requests().iter().filter(|r| r.method == "POST").count();
    let (_, out, _) = run(&env, &sim, &["list", "--json", "--limit", "100"]).await;
    let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
    let count = |state: &str| tasks.iter().filter(|t| t["state"] == state).count();
    assert_eq!(tasks.len(), 50, "every task was journaled first");
    assert!(count("waiting") >= 30, "the unsent ones wait: {}", count("waiting"));
    assert_eq!(count("submit_unknown"), 0, "nothing is labelled before recovery looks at it");
    // Recovery: the ones whose POST had left become submit_unknown, the rest are sent now.
    let (code, _, err) = run(&env, &sim, &["wait", "--all", "--no-service"]).await;
    assert!(code == 0 || code == 1, "{err}");
    let (_, out, _) = run(&env, &sim, &["list", "--json", "--limit", "100"]).await;
    let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
    let count = |state: &str| tasks.iter().filter(|t| t["state"] == state).count();
    let unknown = count("submit_unknown");
    assert!(unknown <= 5, "{unknown} submit_unknown: more than the POSTs that can be in flight at 5 per second");
    assert_eq!(count("downloaded") + unknown, 50, "every other task was sent and saved: {out}");
    assert!(sim.task_count() <= 50, "nothing was paid twice: {} remote tasks", sim.task_count());
    assert!(sim.task_count() >= sent_before, "the tasks the service created are all known");
}

/// A stalled task is not finished: `reel wait` checks it again and waits for its end.
#[tokio::test(flavor = "multi_thread")]
async fn wait_checks_stalled_tasks_again_instead_of_returning() {
    let mut config = fast_config();
    config.lifecycle.render_min = Duration::from_millis(2500);
    config.lifecycle.render_max = Duration::from_millis(3000);
    let sim = start(config).await;
    let env = folder(1.0, 50);
    std::fs::write(
        &env.config,
        "[engine]\nrequests_per_second = 50\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\n\
         max_poll_interval_secs = 0.5\nclient_timeout_secs = 0.6\nidle_exit_secs = 1\n",
    )
    .expect("config");
    let (code, _, err) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "slow", "--count", "2"]).await;
    assert_eq!(code, 0, "{err}");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, out, _) = run(&env, &sim, &["list", "--json"]).await;
        let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
        if tasks.iter().any(|t| t["state"] == "stalled") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never stalled: {out}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (code, out, err) = run(&env, &sim, &["wait", "--all", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert!(tasks.iter().all(|t| t["state"] == "downloaded"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn demo_mode_runs_against_the_embedded_simulator() {
    let env = folder(1.0, 50);
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["submit", "--model", MODEL, "--prompt", "demo", "--json"])
        .env_remove("REEL_BASE_URL")
        .env_remove("REEL_API_KEY")
        .env("REEL_DATA_DIR", &env.data)
        .env("REEL_CONFIG", &env.config)
        .output()
        .await
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("demo mode"));
    let tasks: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(tasks[0]["profile"], "demo");
    assert_eq!(tasks[0]["state"], "queued");
}

/// The tasks are settled before the list is printed: when nobody reads it, the exit code still
/// says how they ended, and nothing complains about the pipe.
#[tokio::test(flavor = "multi_thread")]
async fn a_closed_pipe_keeps_the_exit_code_of_the_work_done() {
    let mut config = fast_config();
    config.lifecycle.failure_rate = 1.0;
    let sim = start(config).await;
    let env = folder(1.0, 50);
    let mut child = env
        .reel(&sim, &["submit", "--model", MODEL, "--prompt", "p", "--count", "12", "--wait", "--json"])
        .spawn()
        .expect("spawns");
    drop(child.stdout.take());
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("finishes within a minute")
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "the tasks failed: {err}");
    assert!(!err.to_lowercase().contains("pipe"), "{err}");
    assert!(err.contains("is failed"), "why it exits 1 is said: {err}");
}

/// A folder whose config prices `MODEL` at $0.50 a second, with a daily budget of $3.00.
fn budgeted() -> Folder {
    let env = folder(1.0, 50);
    let mut text = std::fs::read_to_string(&env.config).expect("config");
    text.push_str(&format!(
        "[pricing]\ncurrency = \"$\"\nper_second = {{ \"{MODEL}\" = 0.5 }}\n[budget]\ndaily = 3.0\n"
    ));
    std::fs::write(&env.config, text).expect("config");
    env
}

/// A model the price table does not name.
const UNPRICED: &str = "acme/aurora-2.7/text-to-video";

#[tokio::test(flavor = "multi_thread")]
async fn past_the_budget_a_model_without_a_price_is_sent_without_asking() {
    let sim = start(fast_config()).await;
    let env = budgeted();
    // 2 × 5 s at $0.50: $5.00 spent, past the $3.00 budget (said yes to).
    let (code, _, err) =
        run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "p", "--count", "2", "--wait", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&env, &sim, &["submit", "--model", UNPRICED, "--prompt", "free", "--json"]).await;
    assert_eq!(code, 0, "an unpriced model is never stopped by the budget: {err}");
    assert!(!err.contains("budget") && !err.contains("-0.00"), "{err}");
    let tasks: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(tasks[0]["model"], UNPRICED);
    let (code, _, err) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "priced"]).await;
    assert_eq!(code, 2, "a priced one still asks: {err}");
    assert!(err.contains("this adds $2.50 to the $5.00 spent today") && err.contains("--yes"), "{err}");
    run(&env, &sim, &["engine", "stop", "--force"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_in_flight_count_against_the_budget() {
    // Tasks that stay queued: nothing is rendered while the test runs.
    let mut config = fast_config();
    config.lifecycle.queue_time = Duration::from_secs(600);
    let sim = start(config).await;
    let env = budgeted();
    let (code, _, err) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "first"]).await;
    assert_eq!(code, 0, "$2.50 of $3.00: {err}");
    let (code, _, err) = run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "second"]).await;
    assert_eq!(code, 2, "the first, still queued, counts: {err}");
    assert!(err.contains("this adds $2.50 to the $2.50 spent today"), "{err}");
    let (code, out, _) = run(&env, &sim, &["list", "--json"]).await;
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Value>(&out).expect("json").as_array().map(Vec::len), Some(1), "not sent");
    run(&env, &sim, &["engine", "stop", "--force"]).await;
}

/// The ids `reel list …` prints as JSON.
async fn listed(env: &Folder, sim: &SimHandle, args: impl Iterator<Item = String>) -> Vec<i64> {
    let args: Vec<String> = args.collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(env, sim, &args).await;
    assert_eq!(code, 0, "{err}");
    let tasks: Vec<Value> = serde_json::from_str(&out).expect("json");
    tasks.iter().filter_map(|t| t["id"].as_i64()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn copies_are_one_batch_that_list_filters_and_json_shows() {
    let sim = start(fast_config()).await;
    let env = folder(1.0, 50);
    let submit = |count: &'static str| ["submit", "--model", MODEL, "--prompt", "a fox", "--count", count, "--json"];
    let (code, out, err) = run(&env, &sim, &submit("3")).await;
    assert_eq!(code, 0, "{err}");
    let three: Vec<Value> = serde_json::from_str(&out).expect("json");
    let first = three[0]["id"].as_i64().expect("id");
    assert!(three.iter().all(|t| t["batch_id"] == first), "{three:?}");
    let (code, out, err) = run(&env, &sim, &submit("1")).await;
    assert_eq!(code, 0, "{err}");
    let alone: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(alone[0]["batch_id"], Value::Null, "the same prompt sent again alone is no batch");
    let (code, out, err) = run(&env, &sim, &submit("2")).await;
    assert_eq!(code, 0, "{err}");
    let two: Vec<Value> = serde_json::from_str(&out).expect("json");
    let second = two[0]["id"].as_i64().expect("id");
    assert!(second != first && two.iter().all(|t| t["batch_id"] == second), "{two:?}");

    let batch = |id: i64| ["list", "--json", "--batch"].map(str::to_string).into_iter().chain([id.to_string()]);
    assert_eq!(listed(&env, &sim, batch(first)).await, [first + 2, first + 1, first]);
    assert_eq!(listed(&env, &sim, batch(second)).await, [second + 1, second]);
    let lone = alone[0]["id"].as_i64().expect("id");
    assert_eq!(listed(&env, &sim, batch(lone)).await, Vec::<i64>::new(), "a lone task's id is no batch");
    assert_eq!(listed(&env, &sim, ["list", "--json"].map(str::to_string).into_iter()).await.len(), 6);
    let (code, out, _) = run(&env, &sim, &["list", "--batch", "999"]).await;
    assert_eq!((code, out.trim()), (0, "No tasks match."));
    let (code, out, err) = run(&env, &sim, &["show", &(first + 1).to_string(), "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let shown: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(shown["task"]["batch_id"], first, "{shown}");
    run(&env, &sim, &["engine", "stop", "--force"]).await;
}

/// A mistake in `[keys]` or `[[actions]]` stops every command, not only the dashboard, with a
/// message naming the entry; the same file without it works.
#[tokio::test(flavor = "multi_thread")]
async fn a_bad_keys_or_actions_entry_stops_headless_commands_naming_it() {
    let cases = [
        ("[keys]\n\"history.qit\" = \"x\"\n", "[keys] \"history.qit\": no such command; the commands are quit,"),
        ("[keys]\n\"histry.quit\" = \"x\"\n", "[keys] \"histry.quit\": no part of the screen is called \"histry\""),
        ("[keys]\nopen = \"Hyper\"\n", "[keys] \"open\": \"Hyper\" is not a key reel knows"),
        ("[keys]\nhelp = \"h\"\n", "[keys] \"help\": h is typed in the prompt fields"),
        (
            "[[actions]]\nkey = \"m\"\nname = \"mpv\"\ncommand = [\"mpv\", \"{file}\"]\n",
            "[[actions]] \"mpv\": {file} is not a placeholder",
        ),
        (
            "[[actions]]\nkey = \"q\"\nname = \"mpv\"\ncommand = [\"mpv\", \"{path}\"]\n",
            "[[actions]] \"mpv\": q is already quit in the task table",
        ),
    ];
    let env = folder(1.0, 50);
    let list = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
        c.args(["list"])
            .env_remove("REEL_BASE_URL")
            .env_remove("REEL_API_KEY")
            .env("REEL_DATA_DIR", &env.data)
            .env("REEL_CONFIG", &env.config)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };
    for (config, said) in cases {
        std::fs::write(&env.config, config).expect("config");
        let (code, _, stderr) = output(list()).await;
        assert_eq!(code, 2, "{config}: {stderr}");
        assert!(stderr.contains(said), "{config}: {stderr}");
    }
    let good = "[keys]\n\"history.quit\" = \"x\"\n\"table.help\" = \"h\"\n\
                [[actions]]\nkey = \"m\"\nname = \"mpv\"\ncommand = [\"mpv\", \"{path}\"]\n";
    std::fs::write(&env.config, good).expect("config");
    let (code, _, stderr) = output(list()).await;
    assert_eq!(code, 0, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_tag_and_pick_show_in_list_show_and_history_search() {
    let sim = start(fast_config()).await;
    let env = folder(1.0, 50);
    let tasks = two_foxes(&env, &sim).await;
    let (ia, ib) = (tasks[0]["id"].as_i64().expect("id"), tasks[1]["id"].as_i64().expect("id"));
    let (a, b) = (ia.to_string(), ib.to_string());

    let (code, out, err) = run(&env, &sim, &["rate", &a, "4"]).await;
    assert_eq!((code, out.trim()), (0, format!("Task {a}: rated 4").as_str()), "{err}");
    let (code, _, err) = run(&env, &sim, &["tag", &a, "Keeper", "night"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&env, &sim, &["pick", &a, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let picked: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        (&picked["rating"], &picked["picked"], &picked["tags"]),
        (&4.into(), &true.into(), &serde_json::json!(["keeper", "night"]))
    );
    let (code, _, err) = run(&env, &sim, &["rate", &b, "2"]).await;
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = run(&env, &sim, &["tag", &a, "two words"]).await;
    assert_eq!(code, 2, "a tag of two words is refused: {err}");
    assert!(err.contains("no spaces or commas"), "{err}");
    let (code, _, err) = run(&env, &sim, &["rate", &a, "6"]).await;
    assert_eq!(code, 2, "{err}");

    let (code, out, _) = run(&env, &sim, &["list", "--json"]).await;
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&out).expect("json");
    let row = |id: i64| listed.as_array().expect("array").iter().find(|t| t["id"] == id).cloned().expect("listed");
    assert_eq!((row(ia)["rating"].clone(), row(ia)["picked"].clone()), (4.into(), true.into()));
    assert_eq!(
        (row(ib)["rating"].clone(), row(ib)["picked"].clone(), row(ib)["tags"].clone()),
        (2.into(), false.into(), serde_json::json!([]))
    );

    let (code, out, _) = run(&env, &sim, &["show", &a]).await;
    assert_eq!(code, 0);
    assert!(out.contains("rated 4, picked, tagged keeper night"), "{out}");
    for line in ["rated 4", "tagged keeper", "tagged night", "picked"] {
        assert!(out.lines().any(|l| l.trim_end().ends_with(line)), "the timeline has {line:?}: {out}");
    }

    let search = |q: &'static str| {
        let (env, sim) = (&env, &sim);
        async move {
            let (code, out, err) = run(env, sim, &["history", "search", q, "--json"]).await;
            assert_eq!(code, 0, "{err}");
            let rows: Value = serde_json::from_str(&out).expect("json");
            rows.as_array().expect("array").iter().filter_map(|r| r["id"].as_i64()).collect::<Vec<_>>()
        }
    };
    assert_eq!(search("rating:>=4").await, [ia]);
    assert_eq!(search("rating:<3 fox").await, [ib]);
    assert_eq!(search("tag:keeper picked red").await, [ia]);
    assert_eq!(search("tag:keeper wolf").await, Vec::<i64>::new());

    let (code, _, _) = run(&env, &sim, &["rate", &a, "--clear"]).await;
    assert_eq!(code, 0);
    let (code, out, _) = run(&env, &sim, &["tag", &a, "keeper", "--remove"]).await;
    assert_eq!((code, out.trim()), (0, format!("Task {a}: picked, tagged night").as_str()));
    let (code, _, _) = run(&env, &sim, &["pick", &a, "--clear"]).await;
    assert_eq!(code, 0);
    assert_eq!(search("rating:>=1").await, [ib]);
    assert_eq!(search("picked").await, Vec::<i64>::new());
}
