//! Shared helpers for tests that talk to the embedded simulator over real HTTP on 127.0.0.1.
#![allow(dead_code)]

pub mod folder;
pub mod moto;
pub mod screen;
pub mod sim_process;
pub mod sshd;
pub mod tmux;

use std::time::{Duration, Instant};

use reel_api::{ApiKey, Client, ClientOptions, Status, SubmitRequest, VideoTask};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_sim::{Faults, LifecycleConfig, SimConfig, SimHandle};

/// Dates on screen are local: the dashboard's snapshots show them in UTC, whatever this machine's zone.
pub fn utc() {
    reel_rules::text::pin_local_zone(jiff::tz::TimeZone::UTC);
}

/// The files under `dir`, at any depth.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

/// The sha256 of `bytes` as reel records it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    reel_rules::text::hex(&sha2::Sha256::digest(bytes))
}

/// A saved file is whole: the bytes the service sent were verified (`sha256`), and the file on
/// disk is those bytes or their copy tagged with its provenance (`file_sha256`).
pub fn assert_whole(sha256: Option<&str>, file_sha256: Option<&str>, path: &std::path::Path, served: &[u8]) {
    let on_disk = sha256_hex(&std::fs::read(path).expect("the saved file"));
    assert_eq!(sha256, Some(sha256_hex(served).as_str()), "{}: the service's bytes", path.display());
    assert_eq!(Some(on_disk.as_str()), file_sha256.or(sha256), "{}: the file on disk", path.display());
}

/// [`assert_whole`] for the task of `data`'s journal that saved `path`.
pub fn assert_saved_file(data: &std::path::Path, path: &std::path::Path, served: &[u8]) {
    let tasks = reel_engine::query::list(&data.join("reel.db"), None, None, 10_000).expect("journal");
    let t = tasks.iter().find(|t| t.file_path.as_deref() == path.to_str()).expect("the task that saved it");
    assert_whole(t.sha256.as_deref(), t.file_sha256.as_deref(), path, served);
}

/// A task printed as JSON (`--json`) saved whole (see [`assert_whole`]).
pub fn assert_whole_json(task: &serde_json::Value, served: &[u8]) {
    let path = std::path::Path::new(task["file_path"].as_str().expect("a file path"));
    assert_whole(task["sha256"].as_str(), task["file_sha256"].as_str(), path, served);
}

/// Whether `tools` (ffmpeg, ffprobe) run here. Without them a test says so and is skipped,
/// except in CI, which must install them (see .ci/run).
pub fn have_tools(tools: &[&str]) -> bool {
    let runs = |t: &&str| std::process::Command::new(t).arg("-version").output().is_ok_and(|o| o.status.success());
    if tools.iter().all(runs) {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "CI must install ffmpeg (see .ci/run)");
    eprintln!("skipped: {} not installed", tools.join(" or "));
    false
}

/// A simulator whose tasks finish in a fraction of a second and never fail.
pub fn fast_config() -> SimConfig {
    SimConfig {
        lifecycle: LifecycleConfig {
            queue_time: Duration::from_millis(50),
            render_min: Duration::from_millis(100),
            render_max: Duration::from_millis(150),
            failure_rate: 0.0,
        },
        seed: Some(42),
        ..SimConfig::default()
    }
}

pub async fn start(config: SimConfig) -> SimHandle {
    SimHandle::start(config, 0).await.expect("the simulator starts on a free port")
}

pub fn client_for(sim: &SimHandle) -> Client {
    client_with(sim, sim.api_key(), ClientOptions::default())
}

pub fn client_with(sim: &SimHandle, key: &str, options: ClientOptions) -> Client {
    Client::new(&sim.base_url(), ApiKey::new(key).expect("valid key"), options).expect("client")
}

pub fn request(draft: &Draft) -> SubmitRequest {
    let valid = validate(draft, &Catalog::builtin(), UnknownModels::Warn).expect("a valid draft");
    reel_engine::journal::request_for(&valid)
}

pub fn simple_request(prompt: &str) -> SubmitRequest {
    request(&Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: prompt.into(),
        seconds: Some("4".into()),
        resolution: Some("480P".into()),
        ..Draft::default()
    })
}

/// Polls until the task is terminal.
pub async fn wait_terminal(client: &Client, id: &str) -> VideoTask {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = client.get(id).await.expect("poll succeeds");
        if task.status.is_terminal() {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} still {:?} after 10 s", task.status);
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

pub async fn completed_task(client: &Client) -> VideoTask {
    let queued = client.submit(&simple_request("a red fox in snow"), None).await.expect("submitted");
    let done = wait_terminal(client, &queued.id).await;
    assert_eq!(done.status, Status::Completed);
    done
}

pub fn no_faults() -> Faults {
    Faults::default()
}

/// The text the dashboard draws on a `w`x`h` TestBackend, each line's end trimmed.
pub fn screen(app: &reel_tui::app::App, w: u16, h: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| reel_tui::views::draw(f, app)).expect("draws");
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A dashboard on a real provider at 127.0.0.1 (not the demo), 120x32, at `now_ms`.
pub fn dashboard(pricing: reel_engine::config::Pricing, now_ms: i64) -> reel_tui::app::App {
    let header = reel_tui::app::Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: reel_engine::ServiceState::default(),
    };
    let (budget, prefs) = (reel_engine::config::Budget::default(), reel_tui::prefs::Prefs::default());
    reel_tui::app::App::new(Catalog::builtin(), pricing, vec![], budget, header, prefs, now_ms, (120, 32))
}

/// The text parts of an MCP tool result, one a line.
pub fn tool_text(result: &rmcp::model::CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| match &c.raw {
            rmcp::model::RawContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}
