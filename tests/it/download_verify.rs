//! "Downloaded" is said only of a true video: the real binary against `reel sim` (the real
//! binary too) sending file answers HTTP cannot vouch for, over 127.0.0.1.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::sim_process::{SimProcess, start_sim_process};
use serde_json::Value;

const KEY: &str = "test-key";
const MODEL: &str = "acme/aurora-3.0/text-to-video";

/// `reel sim` with instant renders and `hostile` flags.
fn start_sim(hostile: &[&str]) -> SimProcess {
    let timing = ["--api-key", KEY, "--failure-rate", "0", "--queue-secs", "0", "--render-min-secs", "0.2"];
    start_sim_process(&[&timing[..], &["--render-max-secs", "0.2"], hostile].concat())
}

struct Env {
    _dir: tempfile::TempDir,
    data: PathBuf,
    config: PathBuf,
}

fn env(engine: &str) -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    let fast = "requests_per_second = 50\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\nmax_poll_interval_secs = 0.5\n\
                idle_exit_secs = 1\n";
    std::fs::write(&config, format!("[engine]\n{fast}{engine}")).expect("config");
    Env { _dir: dir, data, config }
}

/// `reel submit --wait --json` of one task of `seconds` at `resolution`: (exit code, the task).
async fn submit_wait(env: &Env, sim: &SimProcess, seconds: &str, resolution: &str) -> (i32, Value) {
    let args =
        ["submit", "--model", MODEL, "--prompt", "a lighthouse", "--seconds", seconds, "--resolution", resolution];
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(args)
        .args(["--wait", "--json"])
        .env("REEL_BASE_URL", &sim.base)
        .env("REEL_API_KEY", KEY)
        .env("REEL_DATA_DIR", &env.data)
        .env("REEL_CONFIG", &env.config)
        .stdin(Stdio::null())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(90), out).await.expect("finishes").expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let tasks: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("json ({e}): {text} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), tasks[0].clone())
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(files(&path)) } else { out.push(path) }
    }
    out
}

fn message(task: &Value) -> String {
    task["error"]["message"].as_str().unwrap_or_default().to_string()
}

fn videos(env: &Env) -> Vec<PathBuf> {
    files(&env.data.join("videos")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "mp4")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_body_is_cut_at_the_size_bound_and_never_downloaded() {
    let sim = start_sim(&["--hostile-file-endless", "always"]);
    let env = env("");
    let (code, task) = submit_wait(&env, &sim, "4", "480P").await;
    assert_ne!(code, 0, "{task}");
    assert_eq!(task["state"], "download_failed", "{task}");
    let said = message(&task);
    assert!(
        said.starts_with("the file passed 10 MB, the most a 4 s 480P video can be; the transfer was cut at "),
        "{said}"
    );
    assert!(videos(&env).is_empty(), "no video: {:?}", files(&env.data.join("videos")));
    assert!(
        files(&env.data.join("videos")).iter().all(|p| !p.to_string_lossy().ends_with(".part")),
        "nothing to resume"
    );

    // The configured ceiling holds a task whose own bound is higher.
    let env = self::env("max_file_mb = 3\n");
    let (_, task) = submit_wait(&env, &sim, "10", "1080P").await;
    assert_eq!(task["state"], "download_failed", "{task}");
    assert!(message(&task).starts_with("the file passed 3.0 MB, the most [engine] max_file_mb allows"), "{task}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_cut_cleanly_without_a_length_is_never_downloaded() {
    let sim = start_sim(&["--hostile-file-cut-clean", "always"]);
    // One attempt: HTTP saw a clean end; the MP4 shows the cut.
    let env = env("download_attempts = 1\n");
    let (code, task) = submit_wait(&env, &sim, "20", "1080P").await;
    assert_ne!(code, 0, "{task}");
    assert_eq!(task["state"], "download_failed", "{task}");
    let said = message(&task);
    assert!(said.starts_with("the file is not a complete MP4: it ends at byte "), "{said}");
    assert!(
        said.contains("inside its `mdat` box, which runs to byte ") && said.ends_with("the file is cut short"),
        "{said}"
    );
    let (half, whole) = numbers(&said);
    assert_eq!(half, whole / 2, "{said}");
    assert!(videos(&env).is_empty(), "no video: {:?}", files(&env.data.join("videos")));

    // Two: the resume's Content-Range says the length, and the second cut shows against it.
    let env = self::env("download_attempts = 2\n");
    let (_, task) = submit_wait(&env, &sim, "20", "1080P").await;
    assert_eq!(
        (&task["state"], &task["download_attempts"]),
        (&Value::from("download_failed"), &Value::from(2)),
        "{task}"
    );
    let said = message(&task);
    assert!(said.starts_with("got ") && said.ends_with(" bytes"), "{said}");
    let (got, total) = numbers(&said);
    assert!(total / 2 < got && got < total, "{said}");
    assert!(videos(&env).is_empty(), "no video: {:?}", files(&env.data.join("videos")));

    // Cut once: the cut is seen (not called saved), and the resume completes the same bytes.
    let sim = start_sim(&["--hostile-file-cut-clean", "first:1"]);
    let env = self::env("");
    let (code, task) = submit_wait(&env, &sim, "20", "1080P").await;
    assert_eq!((code, &task["state"]), (0, &Value::from("downloaded")), "{task}");
    assert_eq!(task["download_attempts"], 1, "one attempt failed: {task}");
    let saved = videos(&env);
    assert_eq!(saved.len(), 1);
    let url = task["url"].as_str().expect("the file URL");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().build().expect("client");
    let served = http.get(url).send().await.expect("the file").bytes().await.expect("its bytes");
    // The file on disk may carry its provenance since; the recorded sum is of the bytes received.
    use sha2::Digest;
    let sum: String = sha2::Sha256::digest(&served).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(task["sha256"].as_str(), Some(sum.as_str()), "the bytes received are the whole file");
    assert_eq!(task["file_size"].as_u64(), Some(served.len() as u64), "{task}");
}

/// The first two numbers of a text (words of digits, maybe followed by punctuation).
fn numbers(text: &str) -> (u64, u64) {
    let n: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok())
        .collect();
    (n[0], n[1])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_to_a_file_url_is_refused_as_such() {
    let sim = start_sim(&["--hostile-file-redirect-scheme", "always"]);
    let env = env("");
    let (_, task) = submit_wait(&env, &sim, "4", "480P").await;
    assert_eq!(task["state"], "download_failed", "{task}");
    let said = message(&task);
    assert!(said.contains("file: URL") && said.contains("only http and https"), "{said}");
    assert!(!said.contains("rejected"), "{said}");
}
