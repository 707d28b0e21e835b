//! `reel mcp` through the MCP SDK's own client (rmcp), the server a child process with its
//! data folder's engine against the simulator on 127.0.0.1: the tools, the `[agents]` limits,
//! progress, the poster as image content, and a kill -9 of the engine under a `wait`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

mod common;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::folder::{Folder, MODEL, PATIENCE, folder};
use common::{have_tools, start};
use reel::sim::{LifecycleConfig, SimConfig, SimHandle};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientInfo, Implementation, ProgressNotificationParam,
    RawContent,
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
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_reel"));
    command.arg("mcp").envs(f.env(sim));
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
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| match &c.raw {
            RawContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
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

#[tokio::test]
async fn tools_are_listed_checks_quote_and_a_submit_is_refused_by_default() {
    let sim = start(common::fast_config()).await;
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
