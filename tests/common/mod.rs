//! Shared helpers for tests that talk to the embedded simulator over real HTTP on 127.0.0.1.
#![allow(dead_code)]

pub mod folder;
pub mod screen;

use std::time::{Duration, Instant};

use reel::api::{ApiKey, Client, ClientOptions, Status, SubmitRequest, VideoTask};
use reel::rules::{Catalog, Draft, UnknownModels, validate};
use reel::sim::{Faults, LifecycleConfig, SimConfig, SimHandle};

/// The sha256 of `bytes` as reel records it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    reel::text::hex(&sha2::Sha256::digest(bytes))
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
    reel::engine::journal::request_for(&valid)
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
