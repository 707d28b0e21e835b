//! `reel sim` as a user runs it: the real binary, driven with curl, answering as the spec says.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::sim_process::{SimProcess, start_sim_process};
use serde_json::Value;

fn start_sim(extra: &[&str]) -> SimProcess {
    let timing = ["--queue-secs", "0.3", "--render-min-secs", "0.6", "--render-max-secs", "0.6", "--failure-rate", "0"];
    start_sim_process(&[&timing[..], extra].concat())
}

/// Runs curl and returns (HTTP status, body).
fn curl(args: &[&str]) -> (u16, String) {
    let out = Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}"])
        .args(args)
        .output()
        .expect("curl runs (install curl)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').expect("status line");
    (code.trim().parse().expect("status"), body.to_string())
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn a_curl_session_against_reel_sim_follows_the_spec() {
    let sim = start_sim(&["--spec-only", "--api-key", "test-key"]);
    assert!(sim.banner.contains("API key: test-key"), "{}", sim.banner);
    assert!(sim.banner.contains("acme/aurora-3.0/text-to-video"), "{}", sim.banner);
    let auth = "Authorization: Bearer test-key";
    let videos = format!("{}/v1/videos", sim.base);

    let body = r#"{"model": "acme/aurora-3.0/text-to-video", "prompt": "a red fox in snow", "seconds": 4,
                   "metadata": {"resolution": "480P", "ratio": "16:9", "watermark": false, "negative_prompt": "blur"}}"#;
    let (status, text) = curl(&[&videos, "-H", auth, "-H", "Content-Type: application/json", "-d", body]);
    assert_eq!(status, 200, "{text}");
    let queued: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(keys(&queued), ["created_at", "id", "object", "status"]);
    assert_eq!((queued["object"].as_str(), queued["status"].as_str()), (Some("video"), Some("queued")));
    assert!(queued["created_at"].is_i64());
    let id = queued["id"].as_str().expect("id").to_string();

    let task_url = format!("{videos}/{id}");
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    let completed = loop {
        let (status, text) = curl(&[&task_url, "-H", auth]);
        assert_eq!(status, 200);
        let task: Value = serde_json::from_str(&text).expect("json");
        let state = task["status"].as_str().expect("status").to_string();
        if seen.last() != Some(&state) {
            seen.push(state.clone());
        }
        match state.as_str() {
            "queued" | "in_progress" => assert_eq!(keys(&task), ["created_at", "id", "object", "status"]),
            "completed" => break task,
            other => panic!("unexpected status {other}"),
        }
        assert!(Instant::now() < deadline, "not completed in time: {seen:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(seen, ["queued", "in_progress", "completed"]);
    assert_eq!(keys(&completed), ["completed_at", "created_at", "id", "model", "object", "status", "url"]);
    assert_eq!(completed["model"], "acme/aurora-3.0/text-to-video");

    let file_url = completed["url"].as_str().expect("url");
    assert!(file_url.starts_with("http://127.0.0.1:"), "{file_url}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("video.mp4");
    let path_text = path.to_str().expect("utf-8 path");
    let (status, _) = curl(&["-o", path_text, file_url]);
    assert_eq!(status, 200);
    let bytes = std::fs::read(&path).expect("saved");
    assert_eq!(&bytes[4..8], b"ftyp");
    let (status, _) = curl(&["-o", path_text, "-H", "Range: bytes=10-19", file_url]);
    assert_eq!(status, 206);
    assert_eq!(std::fs::read(&path).expect("saved").len(), 10);

    let (status, text) = curl(&[&videos, "-H", "Content-Type: application/json", "-d", body]);
    assert_eq!(status, 401, "{text}");
    let (status, _) = curl(&[&videos, "-H", auth, "-H", "Content-Type: text/plain", "-d", body]);
    assert_eq!(status, 415);
    let (status, text) = curl(&[
        &videos,
        "-H",
        auth,
        "-H",
        "Content-Type: application/json",
        "-d",
        r#"{"model": "acme/aurora-3.0/text-to-video", "prompt": "x", "seconds": 99}"#,
    ]);
    assert_eq!(status, 400);
    let error: Value = serde_json::from_str(&text).expect("json error body");
    assert_eq!(error["error"]["field"], "seconds");
    let (status, _) = curl(&[&format!("{videos}/task_unknown"), "-H", auth]);
    assert_eq!(status, 404);
}

#[test]
fn reel_models_lists_the_catalog() {
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["models", "--json"])
        .env("REEL_CONFIG", "/nonexistent/reel-test.toml")
        .output()
        .expect("runs");
    // A config file named explicitly but missing is an error naming it.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/reel-test.toml"));

    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[[models]]\nid = \"mine/clip-3.0/text-to-video\"\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["models", "--json", "--config"])
        .arg(&config)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let models: Value = serde_json::from_slice(&out.stdout).expect("json");
    let ids: Vec<&str> = models.as_array().expect("array").iter().filter_map(|m| m["id"].as_str()).collect();
    assert!(ids.contains(&"acme/aurora-2.7/text-to-video") && ids.contains(&"mine/clip-3.0/text-to-video"));

    std::fs::write(&config, "[[models]]\nid = \"mine/clip-3.0/text-to-video\"\nfamliy = \"A\"\n").expect("write");
    let out =
        Command::new(env!("CARGO_BIN_EXE_reel")).args(["models", "--config"]).arg(&config).output().expect("runs");
    // A broken entry fails no command: the good models are listed, the broken one named below.
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("acme/aurora-2.7/text-to-video"), "{listed}");
    assert!(listed.contains("[[models]] entry 1") && listed.contains("famliy"), "{listed}");
}

#[test]
fn reel_sim_flags_turn_hostile_behaviours_on() {
    let sim = start_sim(&["--hostile-status", "padded", "--hostile-id", "slash", "--hostile-file-410", "always"]);
    assert!(sim.banner.contains("Second listener"), "{}", sim.banner);
    let auth = "Authorization: Bearer sim-key";
    let videos = format!("{}/v1/videos", sim.base);
    let body = r#"{"model": "acme/aurora-3.0/text-to-video", "prompt": "a red fox in snow", "seconds": 4}"#;
    let (status, text) = curl(&[&videos, "-H", auth, "-H", "Content-Type: application/json", "-d", body]);
    assert_eq!(status, 200, "{text}");
    let queued: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(queued["id"], "a/b");
    let deadline = Instant::now() + Duration::from_secs(10);
    let done = loop {
        let (status, text) = curl(&[&format!("{videos}/a%2Fb"), "-H", auth]);
        assert_eq!(status, 200, "{text}");
        let task: Value = serde_json::from_str(&text).expect("json");
        if task["url"].is_string() {
            break task;
        }
        assert!(Instant::now() < deadline, "no url in time: {task}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done["status"], " Completed ");
    let (status, _) = curl(&["-o", "/dev/null", done["url"].as_str().expect("url")]);
    assert_eq!(status, 410);
}
