//! `reel mcp` through the MCP SDK's own client (rmcp), the server a child process with its
//! data folder's engine against the simulator on 127.0.0.1: the tools, the `[agents]` limits,
//! progress, the poster as image content, and a kill -9 of the engine under a `wait`.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::folder::{Folder, MODEL, PATIENCE, folder};
use crate::common::{have_tools, start};
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientInfo, Implementation, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// An agent: its name, and the progress notifications it was sent.
#[derive(Clone, Default)]
struct Agent {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientInfo {
        ClientInfo::new(ClientCapabilities::default(), Implementation::new("Test Agent", "1.0"))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params);
    }
}

type Client = RunningService<RoleClient, Agent>;

/// A data folder whose config file ends with `extra` (`[agents]`, `[pricing]`).
fn with_config(extra: &str) -> Folder {
    let f = folder(30.0, 50);
    let mut text = std::fs::read_to_string(&f.config).unwrap();
    text.push_str(extra);
    std::fs::write(&f.config, text).unwrap();
    f
}

async fn connect(f: &Folder, sim: &SimHandle) -> (Client, Agent) {
    connect_with(f, sim, &[]).await
}

async fn connect_with(f: &Folder, sim: &SimHandle, env: &[(&str, &str)]) -> (Client, Agent) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_reel"));
    command.envs(env.iter().copied());
    // Storage credentials in the environment, where uploads would find them: never shown.
    command.arg("mcp").envs(f.env(sim)).env("AWS_ACCESS_KEY_ID", ACCESS_KEY).env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("reel mcp starts");
    let agent = Agent::default();
    let client = agent.clone().serve(transport).await.expect("initialized");
    (client, agent)
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments are an object") };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    tokio::time::timeout(PATIENCE, client.call_tool(params)).await.expect("in time").expect("answered")
}

fn text(result: &CallToolResult) -> String {
    crate::common::tool_text(result)
}

/// A successful call's JSON.
fn ok(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "a tool error: {}", text(result));
    serde_json::from_str(&text(result)).expect("JSON text")
}

/// A refused call's text.
fn refused(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "not refused: {}", text(result));
    text(result)
}

fn ids(answer: &Value) -> Vec<i64> {
    answer["tasks"].as_array().expect("tasks").iter().map(|t| t["id"].as_i64().expect("id")).collect()
}

const ALLOWED: &str = "[agents]\nsubmit = true\n";
const ACCESS_KEY: &str = "AKIAMCPTESTACCESSKEY";
const SECRET_KEY: &str = "mcp-test-secret-access-key-never-shown";

#[tokio::test]
async fn tools_are_listed_checks_quote_and_a_submit_is_refused_by_default() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config("[pricing]\ncurrency = \"$\"\n[pricing.per_second]\n\"acme/aurora-3.0/text-to-video\" = 0.1\n");
    let (client, _) = connect(&f, &sim).await;
    let mut names: Vec<String> =
        client.list_all_tools().await.expect("tools").into_iter().map(|t| t.name.to_string()).collect();
    names.sort();
    for want in ["check", "models", "search", "show", "status", "submit", "wait"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    let tools = client.list_all_tools().await.expect("tools");
    let submit = tools.iter().find(|t| t.name == "submit").expect("submit");
    assert!(submit.input_schema.get("properties").and_then(|p| p.get("prompt")).is_some(), "{:?}", submit.input_schema);

    let models = ok(&call(&client, "models", json!({})).await);
    let aurora = models["models"].as_array().unwrap().iter().find(|m| m["id"] == MODEL).expect("listed").clone();
    assert_eq!(aurora["price_per_billed_second"], 0.1);

    let quote = ok(&call(
        &client,
        "check",
        json!({"model": "aurora-3.0/t2v", "prompt": "a fox", "ratio": ["16:9", "9:16"], "seconds": [5, 10]}),
    )
    .await);
    assert_eq!((quote["tasks"].as_u64(), quote["billed_seconds"].as_f64()), (Some(4), Some(30.0)), "{quote}");
    assert!((quote["cost"].as_f64().unwrap() - 3.0).abs() < 1e-9, "{quote}");
    assert_eq!(quote["sent"], false);
    assert_eq!(quote["submit_allowed_now"], false);
    assert!(quote["submit_refused_because"].as_str().unwrap().contains("[agents] submit"), "{quote}");

    let bad = refused(&call(&client, "check", json!({"model": MODEL, "prompt": "a fox", "seconds": 999})).await);
    assert!(bad.contains("seconds: seconds 999 is out of range"), "{bad}");
    let bad = refused(&call(&client, "check", json!({"model": MODEL, "prompt": "a fox", "ratio": "2:1"})).await);
    assert!(bad.contains("metadata.ratio: ratio \"2:1\" is not allowed"), "{bad}");
    let local =
        json!({"model": "aurora-3.0/i2v", "prompt": "a fox", "media": [{"type": "first_frame", "url": "/etc/passwd"}]});
    assert!(refused(&call(&client, "check", local).await).contains("media[0].url \"/etc/passwd\" is a local file"));

    let no = refused(&call(&client, "submit", json!({"model": MODEL, "prompt": "a fox"})).await);
    assert!(no.contains("[agents] submit is false") && no.contains("nothing was sent"), "{no}");
    let found = ok(&call(&client, "search", json!({})).await);
    assert_eq!(found["tasks"], json!([]), "nothing was journaled");
    client.cancel().await.expect("closed");
}

/// What an agent reads when it gets an argument wrong or a limit refuses: a tool error
/// (`isError: true`, not a protocol error nor a success) whose text names the field and rule.
#[tokio::test]
async fn wrong_arguments_and_refusals_are_tool_errors_naming_the_field() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config("");
    let (client, _) = connect(&f, &sim).await;
    let cases = [
        (
            "submit",
            json!({"model": MODEL, "prompt": "a fox", "seconds": "ten"}),
            "seconds: \"ten\" is not a whole number of seconds or a list of them",
        ),
        ("check", json!({"model": MODEL, "prompt": "a fox", "copies": -1}), "copies: -1 is not a whole number"),
        ("check", json!({"model": MODEL, "prompt": "a fox", "api_key": "x"}), "api_key: not an argument of this tool"),
        ("check", json!({}), "model: missing; give a model id from the models tool (a string)\nprompt: missing"),
        ("status", json!({"ids": []}), "ids: an empty list"),
        ("search", json!({"limit": 500}), "limit: 500 is not allowed; give 1 to 200"),
        ("models", json!({"x": 1}), "x: not an argument of this tool; this tool takes no arguments"),
        // [agents] submit = false, the default: refused, and the text says which limit.
        ("submit", json!({"model": MODEL, "prompt": "a fox"}), "[agents] submit is false"),
    ];
    for (tool, args, want) in cases {
        let result = call(&client, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{tool} {args}: {}", text(&result));
        assert!(text(&result).contains(want), "{tool} {args}: {}", text(&result));
    }
    // A quote is a success even when `submit` would be refused; it says so inside.
    let quote = ok(&call(&client, "check", json!({"model": MODEL, "prompt": "a fox"})).await);
    assert_eq!(quote["submit_allowed_now"], false, "{quote}");
    let found = ok(&call(&client, "search", json!({})).await);
    assert_eq!(found["tasks"], json!([]), "nothing was journaled");
    client.cancel().await.expect("closed");
}

/// Every text a client was given, to look for secrets in.
fn all_text(results: &[CallToolResult]) -> String {
    results.iter().map(|r| serde_json::to_string(r).unwrap()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn an_allowed_agent_sends_waits_with_progress_shows_the_poster_and_reviews() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config(&format!("{ALLOWED}[storage]\nbucket = \"b\"\nendpoint = \"http://127.0.0.1:9\"\n"));
    let (client, agent) = connect(&f, &sim).await;
    let mut results = Vec::new();
    let sent = call(
        &client,
        "submit",
        json!({"model": MODEL, "prompt": "a lighthouse at dusk", "seconds": 4, "ratio": "16:9", "copies": 2}),
    )
    .await;
    let ids = ids(&ok(&sent));
    assert_eq!(ids.len(), 2);
    results.push(sent);
    let waited = call(&client, "wait", json!({"ids": ids, "timeout_secs": 60})).await;
    let answer = ok(&waited);
    assert_eq!(answer["all_ended"], true, "{answer}");
    for t in answer["tasks"].as_array().unwrap() {
        assert_eq!(t["state"], "downloaded", "{t}");
        assert!(std::path::Path::new(t["file_path"].as_str().unwrap()).starts_with(&f.data), "{t}");
    }
    results.push(waited);
    {
        let progress = agent.progress.lock().unwrap();
        assert!(!progress.is_empty(), "progress notifications");
        let last = progress.last().unwrap();
        assert_eq!((last.progress, last.total), (2.0, Some(2.0)), "{progress:?}");
        assert!(last.message.as_deref().unwrap_or("").contains("2 downloaded"), "{last:?}");
        assert!(progress.windows(2).all(|w| w[0].progress <= w[1].progress), "{progress:?}");
    }

    // Labelled with the client's name, so the dashboard and search show whose tasks they are.
    let status = ok(&call(&client, "status", json!({"ids": ids[0]})).await);
    assert_eq!(status["tasks"][0]["tags"], json!(["agent-test-agent"]), "{status}");
    let mine = ok(&call(&client, "search", json!({"query": "tag:agent-test-agent lighthouse"})).await);
    assert_eq!(mine["tasks"].as_array().unwrap().len(), 2, "{mine}");

    let shown = call(&client, "show", json!({"id": ids[0]})).await;
    let detail = ok(&shown);
    assert!(detail["timeline"].as_array().is_some_and(|t| !t.is_empty()), "{detail}");
    assert!(detail["file_path"].is_string());
    let images: Vec<_> = shown.content.iter().filter_map(|c| c.raw.as_image()).collect();
    if have_tools(&["ffmpeg"]) {
        assert_eq!(images.len(), 1, "{detail}");
        assert_eq!(images[0].mime_type, "image/jpeg");
        use base64::Engine as _;
        let jpeg = base64::engine::general_purpose::STANDARD.decode(&images[0].data).expect("base64");
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8], "a JPEG");
    } else {
        assert!(images.is_empty());
        assert!(detail["poster_unavailable"].as_str().unwrap().contains("ffmpeg"), "{detail}");
    }
    results.push(shown);

    let rated = ok(&call(&client, "rate", json!({"id": ids[0], "rating": 4})).await);
    assert_eq!(rated["tasks"][0]["rating"], 4, "{rated}");
    ok(&call(&client, "pick", json!({"id": ids[0]})).await);
    ok(&call(&client, "tag", json!({"id": ids[0], "tags": ["keeper"]})).await);
    let found = ok(&call(&client, "search", json!({"query": "rating:>=4 picked tag:keeper"})).await);
    assert_eq!(self::ids(&found), vec![ids[0]], "{found}");
    let untag =
        refused(&call(&client, "tag", json!({"id": ids[0], "tags": ["agent-test-agent"], "remove": true})).await);
    assert!(untag.contains("cannot add or remove"), "{untag}");
    assert!(refused(&call(&client, "rate", json!({"id": ids[0], "rating": 9})).await).contains("1 to 5"));
    assert!(refused(&call(&client, "show", json!({"id": 999})).await).contains("id: no task"));

    results.push(call(&client, "models", json!({})).await);
    results.push(call(&client, "search", json!({})).await);
    let seen = all_text(&results);
    assert!(!seen.contains(sim.api_key()), "the API key is never in a tool result");
    assert!(!seen.contains(ACCESS_KEY) && !seen.contains(SECRET_KEY), "nor are the storage credentials");
    client.cancel().await.expect("closed");
}

#[tokio::test]
async fn every_limit_is_refused_naming_it_and_nothing_is_queued() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config(
        "[agents]\nsubmit = true\nmax_tasks_per_call = 2\ndaily_tasks = 3\ndaily = 1.0\n\
         [pricing]\ncurrency = \"$\"\n[pricing.per_second]\n\"acme/aurora-3.0/text-to-video\" = 0.1\n",
    );
    let (client, _) = connect(&f, &sim).await;
    let grid = json!({"model": MODEL, "prompt": "grid", "ratio": ["16:9", "9:16", "1:1"]});
    let no = refused(&call(&client, "submit", grid).await);
    assert!(no.contains("makes 3 tasks, past [agents] max_tasks_per_call = 2"), "{no}");

    ok(&call(&client, "submit", json!({"model": MODEL, "prompt": "first", "seconds": 5})).await);
    let no = refused(&call(&client, "submit", json!({"model": MODEL, "prompt": "second", "seconds": 6})).await);
    assert!(no.contains("costs $0.60; agents spent $0.50 today") && no.contains("[agents] daily = $1.00"), "{no}");
    let quote = ok(&call(&client, "check", json!({"model": MODEL, "prompt": "second", "seconds": 6})).await);
    assert_eq!(quote["submit_allowed_now"], false, "check says so before: {quote}");

    // An unpriced model costs nothing known, and counts as tasks.
    let unpriced = "acme/aurora-2.7/text-to-video";
    ok(&call(&client, "submit", json!({"model": unpriced, "prompt": "third", "copies": 2})).await);
    let no = refused(&call(&client, "submit", json!({"model": unpriced, "prompt": "fourth"})).await);
    assert!(no.contains("agents sent 3 today, and [agents] daily_tasks = 3 allows 0 more"), "{no}");

    let all = ok(&call(&client, "search", json!({"limit": 50})).await);
    let prompts: Vec<&str> = all["tasks"].as_array().unwrap().iter().map(|t| t["prompt"].as_str().unwrap()).collect();
    assert_eq!(prompts, ["third", "third", "first"], "only what was allowed was journaled");
    client.cancel().await.expect("closed");
}

#[tokio::test]
async fn calls_at_once_cannot_both_pass_a_limit_that_one_fits() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config("[agents]\nsubmit = true\ndaily_tasks = 1\n");
    let (client, _) = connect(&f, &sim).await;
    let calls = (0..4).map(|i| {
        let peer = client.peer().clone();
        tokio::spawn(async move {
            let Value::Object(args) = json!({"model": MODEL, "prompt": format!("race {i}")}) else { unreachable!() };
            peer.call_tool(CallToolRequestParams::new("submit").with_arguments(args)).await.expect("answered")
        })
    });
    let mut sent = 0;
    for call in calls.collect::<Vec<_>>() {
        let result = call.await.expect("joined");
        if result.is_error == Some(true) {
            assert!(text(&result).contains("daily_tasks = 1"), "{}", text(&result));
        } else {
            sent += 1;
        }
    }
    assert_eq!(sent, 1, "one call fits the limit");
    let all = ok(&call(&client, "search", json!({})).await);
    assert_eq!(all["tasks"].as_array().unwrap().len(), 1, "{all}");
    client.cancel().await.expect("closed");
}

#[tokio::test]
async fn a_kill_9_of_the_engine_under_a_wait_ends_with_the_task_saved_and_the_tool_answering() {
    let config = SimConfig {
        lifecycle: LifecycleConfig {
            queue_time: Duration::from_millis(200),
            render_min: Duration::from_secs(4),
            render_max: Duration::from_secs(5),
            failure_rate: 0.0,
        },
        seed: Some(3),
        ..SimConfig::default()
    };
    let sim = start(config).await;
    let f = with_config(ALLOWED);
    let (client, agent) = connect(&f, &sim).await;
    let id = ids(&ok(&call(&client, "submit", json!({"model": MODEL, "prompt": "survives", "seconds": 4})).await))[0];
    let peer = client.peer().clone();
    let waiting = tokio::spawn(async move {
        let Value::Object(args) = json!({"ids": [id], "timeout_secs": 80}) else { unreachable!() };
        peer.call_tool(CallToolRequestParams::new("wait").with_arguments(args)).await
    });
    // Killed once the wait has seen the task under way.
    let deadline = Instant::now() + PATIENCE;
    while agent.progress.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "no progress");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = f.status(&sim).await["pid"].as_u64().expect("an engine runs") as i32;
    // SAFETY: kill with a pid we were given and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let answered = tokio::time::timeout(PATIENCE, waiting).await.expect("in time").expect("joined").expect("answered");
    let answer = ok(&answered);
    assert_eq!(answer["all_ended"], true, "{answer}");
    assert_eq!(answer["tasks"][0]["state"], "downloaded", "{answer}");
    assert!(std::path::Path::new(answer["tasks"][0]["file_path"].as_str().unwrap()).is_file());
    let now = f.status(&sim).await["pid"].as_u64();
    assert!(now.is_some_and(|p| p != pid as u64), "a new engine: {now:?}");
    client.cancel().await.expect("closed");
}

#[tokio::test]
async fn without_ffmpeg_show_says_why_there_is_no_poster() {
    let sim = start(crate::common::fast_config()).await;
    let f = with_config(ALLOWED);
    let (client, _) = connect_with(&f, &sim, &[("REEL_FFMPEG", "/nonexistent/ffmpeg")]).await;
    let id = ids(&ok(&call(&client, "submit", json!({"model": MODEL, "prompt": "no ffmpeg", "seconds": 4})).await))[0];
    let waited = ok(&call(&client, "wait", json!({"ids": [id], "timeout_secs": 60})).await);
    assert_eq!(waited["tasks"][0]["state"], "downloaded", "{waited}");
    let shown = call(&client, "show", json!({"id": id})).await;
    let detail = ok(&shown);
    assert!(shown.content.iter().all(|c| c.raw.as_image().is_none()), "no image");
    let why = detail["poster_unavailable"].as_str().expect("a reason");
    assert!(why.contains("ffmpeg") && why.contains("REEL_FFMPEG"), "{why}");
    assert!(detail["file_path"].is_string(), "the rest is shown: {detail}");
    client.cancel().await.expect("closed");
}

/// The same server through the Python MCP SDK's stdio client (tests/it/mcp_client.py).
#[tokio::test]
async fn the_python_sdk_client_lists_checks_sends_waits_and_shows() {
    let python = std::process::Command::new("python3").args(["-c", "import mcp"]).output();
    if !python.is_ok_and(|o| o.status.success()) {
        assert!(std::env::var_os("CI").is_none(), "CI must install the Python mcp package (see .ci/run)");
        eprintln!("skipped: the Python package mcp is not installed (pip install mcp)");
        return;
    }
    let sim = start(crate::common::fast_config()).await;
    let f = with_config(ALLOWED);
    let image = if have_tools(&["ffmpeg"]) { "1" } else { "0" };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/mcp_client.py");
    let run = tokio::process::Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_reel")])
        .envs(f.env(&sim))
        .env("MCP_EXPECT_IMAGE", image)
        .stdin(Stdio::null())
        .output();
    let out = tokio::time::timeout(PATIENCE, run).await.expect("in time").expect("python runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "ok", "{stderr}");
}
