//! A batch file run again with `--retry-failed`, on the binary against the simulator on
//! 127.0.0.1: the rows whose tasks ended without a video are sent once more, into the batch they
//! went in; the saved rows are not; the dry run says which rows go and why.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crate::common::folder::*;
use crate::common::*;
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn a_rerun_with_retry_failed_sends_again_only_what_ended_without_a_video() {
    let failing = SimConfig { lifecycle: LifecycleConfig { failure_rate: 1.0, ..slow_sim().lifecycle }, ..slow_sim() };
    let first = start(failing).await;
    let port = first.addr().port();
    let f = folder(60.0, 50);
    let file = f.data.parent().expect("the test's folder").join("batch.jsonl");
    std::fs::write(&file, "{\"prompt\": \"a heron\"}\n{\"prompt\": \"a crane\"}\n").expect("batch file");
    let from = file.to_str().expect("utf-8");
    let run = |args: Vec<&str>| {
        let mut a = vec!["submit", "-m", MODEL, "-s", "5", "--from", from];
        a.extend(args);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let args = run(vec!["--wait", "--json"]);
    let (code, out, err) = f.run(&first, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 1, "both fail on the first service: {out}\n{err}");
    let failed: Vec<Value> = serde_json::from_str(&out).expect("json");
    let batch = failed[0]["batch_id"].clone();
    let _ = f.run(&first, &["engine", "stop"]).await;
    first.stop().await;

    // The same service, mended: a rerun without the flag sends nothing; with it, both again.
    // Another seed: a service does not give out the ids of the tasks it had before.
    let back = SimHandle::start(SimConfig { seed: Some(8), ..slow_sim() }, port).await.expect("the same port");
    let plain = run(vec!["--wait"]);
    let (code, _, err) = f.run(&back, &plain.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--retry-failed sends again those that ended without a video"), "{err}");
    assert_eq!(back.task_count(), 0, "nothing was sent");
    let dry = run(vec!["--retry-failed", "--dry-run"]);
    let (code, out, err) = f.run(&back, &dry.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("(ended without a video before: sent again)").count(), 2, "{out}");
    let retry = run(vec!["--retry-failed", "--wait", "--json"]);
    let (code, out, err) = f.run(&back, &retry.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let saved: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(saved.len(), 2, "{out}");
    assert!(saved.iter().all(|t| t["state"] == "downloaded" && t["batch_id"] == batch), "in the first batch: {out}");
    assert_eq!(back.task_count(), 2);
    // Once saved, a retry sends nothing more.
    let (code, _, err) = f.run(&back, &retry.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("every task was already sent"), "{err}");
    assert_eq!(back.task_count(), 2, "the saved rows were not sent again");
    let _ = f.run(&back, &["engine", "stop"]).await;
    back.stop().await;
}
