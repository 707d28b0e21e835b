//! A data folder on a disk that fills: the real engine process against the simulator on
//! 127.0.0.1, its data folder on a small tmpfs (mounted here; CI runs as root). The engine pauses
//! and says so, marks nothing failed, reports the journal's counts, and when space is freed saves
//! every task itself, without a restart.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::time::{Duration, Instant};

use crate::common::folder::*;
use crate::common::*;
use reel_store::disk::testing::Tmpfs;
use serde_json::Value;

const TASKS: usize = 6;

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_pauses_the_engine_and_freed_space_resumes_it() {
    let Some(small) = Tmpfs::mount(8 << 20) else { return };
    let sim = start(slow_sim()).await;
    let mut f = folder(60.0, 50);
    f.data = small.path().join("data");
    let (code, _, err) = f
        .run(
            &sim,
            &["submit", "-m", MODEL, "--seconds", "10", "--resolution", "720P", "-n", "6", "a fox on a full disk"],
        )
        .await;
    assert_eq!(code, 0, "{err}");
    let pid = f.status(&sim).await["pid"].as_u64().expect("running");

    // Leave about one video's room: the rest of the renders meet a full disk.
    let free = reel_store::disk::free_bytes(small.path()).expect("statvfs");
    let filler = small.path().join("filler");
    std::fs::write(&filler, vec![0u8; free.saturating_sub(900_000) as usize]).expect("the filler");

    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        let s = f.status(&sim).await;
        if !s["paused"].is_null() && s["requests_in_flight"] == 0 && s["downloads"] == 0 {
            break s;
        }
        assert!(Instant::now() < deadline, "the engine never paused: {s}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let summary = status["paused"]["summary"].as_str().expect("said");
    assert!(summary.starts_with("paused: the disk holding "), "{summary}");
    assert!(summary.contains("MB free"), "{summary}");
    let (code, text, err) = f.run(&sim, &["engine", "status"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Writing   paused: the disk holding"), "{text}");

    // The counts it reports are the journal's, and nothing failed for want of room.
    let tasks = f.tasks(&sim).await;
    assert_eq!(tasks.len(), TASKS);
    let settled = ["downloaded", "failed", "expired", "download_failed", "lost", "rejected", "submit_unknown"];
    let unfinished = tasks.iter().filter(|t| !settled.contains(&t["state"].as_str().unwrap_or_default())).count();
    assert_eq!(status["unfinished"].as_u64(), Some(unfinished as u64), "{status}\n{tasks:?}");
    assert!(unfinished > 0, "the disk filled before the end");
    for t in &tasks {
        let state = t["state"].as_str().unwrap_or_default();
        assert!(state == "downloaded" || !settled.contains(&state), "nothing fails for want of room: {t}");
    }
    for path in walk(&f.data) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        assert!(!name.ends_with(".json.part"), "a half-written sidecar: {}", path.display());
        if name.ends_with(".json")
            && path.parent().is_some_and(|p| p.ends_with("videos") || p.starts_with(f.data.join("videos")))
        {
            let body = std::fs::read(&path).expect("read");
            serde_json::from_slice::<Value>(&body).expect("a whole sidecar");
        }
    }

    // Space comes back: the same engine saves everything by itself.
    std::fs::remove_file(&filler).expect("space freed");
    let tasks = f.until_all_downloaded(&sim, TASKS).await;
    saved(&tasks);
    let status = f.status(&sim).await;
    assert_eq!(status["pid"].as_u64(), Some(pid), "the same engine, not a restart");
    assert!(status["paused"].is_null(), "{status}");
    assert_eq!(status["unfinished"], 0, "{status}");
    for t in &tasks {
        let sidecar = std::path::Path::new(t["file_path"].as_str().expect("path")).with_extension("json");
        serde_json::from_slice::<Value>(&std::fs::read(&sidecar).expect("a sidecar")).expect("a whole sidecar");
    }
    let logs = walk(&f.data.join("logs"));
    for log in logs.iter().filter(|p| p.extension().is_some_and(|e| e == "log")) {
        let text = std::fs::read_to_string(log).expect("log");
        assert!(text.is_empty() || text.ends_with('\n'), "the log ends with a whole line: {}", log.display());
    }
    let (code, _, err) = f.run(&sim, &["engine", "stop"]).await;
    assert_eq!(code, 0, "{err}");
}
