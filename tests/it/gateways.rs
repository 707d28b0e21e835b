//! The binary against services shaped as the gateways in the wild answer (`reel sim --answers
//! openai` and the upstream behaviours), over real HTTP on 127.0.0.1: a finished task without a
//! URL is saved from `/v1/videos/{id}/content`; `cancelled` and `expired` end `wait` with exit 1;
//! a completed task with neither URL nor file route is `download_failed` with the reason; one
//! model's refused key holds that model's tasks while another model's are saved; what the service
//! rendered is shown beside what was asked; a wrapped upstream error is shown in the vendor's words.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::time::Duration;

use crate::common::folder::*;
use crate::common::*;
use reel_sim::{Answers, NotReady, OpenAi, SimConfig, Trigger, Upstream};
use serde_json::Value;

fn openai(o: OpenAi) -> SimConfig {
    SimConfig { answers: Answers::OpenAi(o), ..slow_sim() }
}

/// `reel submit --wait --json` of one 8 s task: exit code and the task as printed.
async fn submit_wait(f: &Folder, sim: &reel_sim::SimHandle, model: &str) -> (i32, Value, String) {
    let args = ["submit", "-m", model, "-s", "8", "--ratio", "16:9", "--wait", "--json", "a heron over a lake"];
    let (code, out, err) = f.run(sim, &args).await;
    let tasks: Vec<Value> = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, tasks.into_iter().next().expect("one task"), err)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_that_serves_the_file_only_at_content_is_saved_from_it() {
    // new-api's shape: 400 "not completed yet" at first, the file a moment after completion.
    let sim = start(openai(OpenAi {
        not_ready: NotReady::BadRequest,
        content_lag: Duration::from_millis(600),
        ..OpenAi::default()
    }))
    .await;
    let f = folder(60.0, 50);
    let (code, task, err) = submit_wait(&f, &sim, MODEL).await;
    assert_eq!(code, 0, "{task}\n{err}");
    assert_eq!(task["state"], "downloaded", "{task}");
    let remote = task["remote_id"].as_str().expect("remote id");
    let served = sim.video_bytes(remote).expect("the sim has its file");
    assert_saved_file(&f.data, std::path::Path::new(task["file_path"].as_str().expect("path")), &served);
    let content = format!("/v1/videos/{remote}/content");
    let asked: Vec<_> = sim.requests().into_iter().filter(|r| r.path == content).collect();
    assert!(asked.iter().any(|r| r.status == 200 || r.status == 206), "fetched there: {asked:?}");
    assert!(sim.requests().iter().all(|r| !r.path.starts_with("/files/")), "no other file URL was made up");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_the_service_cancels_or_expires_end_wait_with_exit_1() {
    for (o, state) in [
        (OpenAi { cancelled: Trigger::Always, ..OpenAi::default() }, "cancelled"),
        (OpenAi { expired: Trigger::Always, ..OpenAi::default() }, "expired"),
    ] {
        let sim = start(openai(o)).await;
        let f = folder(60.0, 50);
        let (code, task, err) = submit_wait(&f, &sim, MODEL).await;
        assert_eq!(code, 1, "{state}: {task}\n{err}");
        assert_eq!(task["state"], state, "{task}");
        assert!(task["file_path"].is_null(), "{task}");
        let _ = f.run(&sim, &["engine", "stop"]).await;
        sim.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_completed_task_with_no_url_and_no_file_route_fails_its_download_with_the_reason() {
    let sim = start(openai(OpenAi { content_route: false, ..OpenAi::default() })).await;
    let f = folder(60.0, 50);
    let (code, task, err) = submit_wait(&f, &sim, MODEL).await;
    assert_eq!(code, 1, "{task}\n{err}");
    assert_eq!(task["state"], "download_failed", "{task}");
    let error = task["error"].to_string();
    assert!(error.contains("content"), "the reason names the route tried: {error}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

const OTHER: &str = "acme/swift-1.5/text-to-video";

#[tokio::test(flavor = "multi_thread")]
async fn one_models_refused_key_holds_its_tasks_while_another_models_are_saved() {
    let upstream = Upstream { refuse_model_key: Some(OTHER.into()), ..Upstream::default() };
    let sim = start(SimConfig { upstream, ..slow_sim() }).await;
    let f = folder(60.0, 50);
    // Not sent and held: the command says so and returns, exit 3, the task left to the engine.
    let (code, out, err) = f.run(&sim, &["submit", "-m", OTHER, "-s", "5", "--json", "refused fox"]).await;
    assert_eq!(code, 3, "held: {out}\n{err}");
    assert!(err.contains("is held, not sent yet"), "{err}");
    let held: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(held[0]["state"], "waiting", "{out}");
    let held_id = held[0]["id"].as_i64().expect("id").to_string();
    let (code, task, err) = submit_wait(&f, &sim, MODEL).await;
    assert_eq!(code, 0, "the other model goes on: {task}\n{err}");
    assert_eq!(task["state"], "downloaded");
    let (_, out, _) = f.run(&sim, &["show", &held_id, "--json"]).await;
    let shown: Value = serde_json::from_str(&out).expect("json");
    let shown = &shown["task"];
    assert!(matches!(shown["state"].as_str(), Some("waiting" | "rejected")), "held or refused, never sent on: {shown}");
    assert!(shown["error"].to_string().contains(OTHER), "the refusal says whose key: {shown}");
    let posts = sim.requests().iter().filter(|r| r.method == "POST" && r.status == 401).count();
    assert_eq!(posts, 1, "sent once, not at every key check");
    let (code, _, err) = f.run(&sim, &["rm", &held_id]).await;
    assert_eq!(code, 0, "a held task can be removed: {err}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_service_rendered_is_shown_beside_what_was_asked() {
    let upstream = Upstream {
        render_size: Some("1920x1080".into()),
        render_seconds: Some("8.0".into()),
        usage: true,
        ..Upstream::default()
    };
    let sim = start(SimConfig { upstream, ..slow_sim() }).await;
    let f = folder(60.0, 50);
    let args =
        ["submit", "-m", MODEL, "-s", "8", "--resolution", "720P", "--ratio", "16:9", "--wait", "--json", "a heron"];
    let (code, out, err) = f.run(&sim, &args).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let task = &serde_json::from_str::<Vec<Value>>(&out).expect("json")[0];
    assert_eq!(task["rendered"]["size"], "1920x1080", "{task}");
    let otherwise = task["rendered"]["otherwise"].as_str().expect("differs");
    assert!(otherwise.contains("720P") && otherwise.contains("1920x1080"), "{otherwise}");
    let id = task["id"].as_i64().expect("id").to_string();
    let (_, shown, _) = f.run(&sim, &["show", &id]).await;
    assert!(shown.contains("rendered") && shown.contains("1920x1080"), "{shown}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrapped_upstream_error_is_shown_in_the_vendors_words() {
    let upstream = Upstream { wrap_errors_for: Some(MODEL.into()), ..Upstream::default() };
    let sim = start(SimConfig { upstream, ..slow_sim() }).await;
    let f = folder(60.0, 50);
    let (code, out, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--wait", "--json", "a heron"]).await;
    assert_eq!(code, 1, "rejected: {out}\n{err}");
    let task = &serde_json::from_str::<Vec<Value>>(&out).expect("json")[0];
    let said = task["error"]["message"].as_str().expect("a message");
    assert!(said.contains("Invalid value: '5'. Supported values are: '4', '8', and '12'."), "{said}");
    assert!(!said.contains("OpenAIException"), "the gateway's wrapping is taken off: {said}");
    // Plain lines into a pipe carry every word: nothing is cut to fit a terminal that is not there.
    let (code, out, _) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--wait", "a heron"]).await;
    assert_eq!(code, 1);
    assert!(out.contains("Supported values are: '4', '8', and '12'.") && !out.contains('…'), "{out}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}
