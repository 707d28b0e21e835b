//! The log file after a real run of the binary against the simulator on 127.0.0.1: it holds
//! the transitions and HTTP statuses, server text made safe, and never the API key.

use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use reel_sim::{Hostile, SimConfig};
use tokio::process::Command;

const KEY: &str = "sk-log-test-5f3a9c1e7b2d";

#[tokio::test(flavor = "multi_thread")]
async fn the_log_holds_transitions_and_statuses_and_never_the_key() {
    // Failed tasks carry escape sequences in their error text: the log must not.
    let mut config = SimConfig {
        api_key: KEY.into(),
        hostile: Hostile { task_strings: true, ..Hostile::default() },
        ..fast_config()
    };
    config.lifecycle.failure_rate = 0.5;
    let sim = start(config).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[engine]\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\nmax_poll_interval_secs = 0.5\nidle_exit_secs = 1\n",
    )
    .expect("config");
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["submit", "--model", "acme/aurora-3.0/text-to-video", "--prompt", "a red fox", "--count", "6", "--wait"])
        .args(["--verbose"])
        .env("REEL_BASE_URL", sim.base_url())
        .env("REEL_API_KEY", KEY)
        .env("REEL_DATA_DIR", &data)
        .env("REEL_CONFIG", &config)
        .env_remove("RUST_LOG")
        .env_remove("REEL_LOG")
        .stdin(Stdio::null())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), out).await.expect("finishes").expect("runs");
    assert!(out.status.code().is_some(), "{out:?}");

    // The client and the engine process write to the same daily file.
    let logs: Vec<_> = std::fs::read_dir(data.join("logs"))
        .expect("a log folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    assert_eq!(logs.len(), 1, "one log file: {logs:?}");
    let log = std::fs::read_to_string(&logs[0]).expect("readable");
    for needle in [
        "engine started",
        "transition",
        "state=submitting",
        "state=downloaded",
        "state=failed",
        "status=200",
        "POST",
        "\\u001b",
    ] {
        assert!(log.contains(needle), "the log lacks {needle:?}:\n{log}");
    }
    assert!(!log.contains(KEY), "the key is in the log");
    assert!(!log.contains('\u{1b}') && !log.contains('\u{9b}'), "raw escape sequences in the log");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("transition"), "--verbose mirrors the log on stderr");
    assert!(!stderr.contains(KEY));
    // The key is in neither the database nor anything else in the data folder.
    for entry in walk(&data) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()), "the key is in {}", entry.display());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}
