//! What the engine believes and how long it waits: a Retry-After within reason, a task the
//! service forgot that stays saved, and an engine that gives up on a server gone for good.
//! The real binary (or the engine) against the simulator on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

mod common;

use std::path::PathBuf;

use common::folder::{MODEL, folder};
use common::*;
use serde_json::Value;

fn message(t: &Value) -> String {
    t["error"]["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_task_the_service_forgot_stays_saved_and_a_missing_file_stays_missing() {
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    let (code, out, err) =
        f.run(&sim, &["submit", "--model", MODEL, "--prompt", "a red fox", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let task = serde_json::from_str::<Value>(&out).expect("json")[0].clone();
    assert_eq!(task["state"], "downloaded");
    let (id, remote) = (task["id"].to_string(), task["remote_id"].as_str().expect("remote id").to_string());
    let path = PathBuf::from(task["file_path"].as_str().expect("path"));
    assert_eq!(f.run(&sim, &["rate", &id, "4"]).await.0, 0);
    assert_eq!(f.run(&sim, &["pick", &id]).await.0, 0);

    // A day later the service no longer knows the id: its polls and its file answer 404.
    assert!(sim.forget(&remote));
    let (code, out, err) = f.run(&sim, &["download", &id, "--json"]).await;
    assert_eq!(code, 0, "the video is still saved: {out} {err}");
    let t = serde_json::from_str::<Value>(&out).expect("json")[0].clone();
    assert_eq!(t["state"], "downloaded", "{t}");
    assert!(message(&t).starts_with("the service no longer has this task"), "{t}");
    assert!(message(&t).ends_with("the saved file is kept"), "{t}");
    assert_eq!((t["rating"].as_u64(), t["picked"].as_bool()), (Some(4), Some(true)), "{t}");
    assert_eq!(t["file_path"].as_str(), path.to_str());
    assert!(path.exists());
    let served = std::fs::read(&path).expect("file");
    let on_disk = t["file_sha256"].as_str().or(t["sha256"].as_str());
    assert_eq!(on_disk, Some(sha256_hex(&served).as_str()), "the file is the one saved");
    assert_eq!(t["sha256"], task["sha256"]);

    // The file deleted, and the service still without it: the task stays missing and says so.
    std::fs::remove_file(&path).expect("the user deletes the file");
    let (code, out, err) = f.run(&sim, &["download", &id]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("downloaded") && out.contains("the saved file is still missing"), "{out}");
    assert!(!path.exists(), "no file appears from nowhere");
    let (_, out, _) = f.run(&sim, &["show", &id, "--json"]).await;
    let shown: Value = serde_json::from_str(&out).expect("json");
    let said: Vec<&str> =
        shown["events"].as_array().expect("events").iter().filter_map(|e| e["detail"].as_str()).collect();
    assert!(said.iter().any(|d| d.ends_with("still missing")), "{said:?}");
    assert!(!said.iter().any(|d| d.contains("is lost")), "never called lost: {said:?}");

    // The ledger counts the render as a success, not a loss.
    let (code, out, err) = f.run(&sim, &["history", "stats", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let total = serde_json::from_str::<Value>(&out).expect("json")["total"].clone();
    assert_eq!((total["succeeded"].as_u64(), total["lost"].as_u64()), (Some(1), Some(0)), "{total}");
}
