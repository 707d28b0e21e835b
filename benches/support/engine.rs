//! Starts `reel engine run --stay` as its own process for a data folder, as in real use.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reel_engine::service::{attach_if_running, socket_path};
use tokio::runtime::Runtime;

/// The engine process for `data`, against `base_url`, with `config` as its config file's
/// text; returns once it answers.
pub fn start(rt: &Runtime, data: &Path, base_url: &str, config: &str) -> Child {
    let config_path = data.with_extension("toml");
    std::fs::write(&config_path, config).expect("config");
    let child = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["engine", "run", "--stay"])
        .env("REEL_DATA_DIR", data)
        .env("REEL_CONFIG", &config_path)
        .env("REEL_BASE_URL", base_url)
        .env("REEL_API_KEY", "sim-key")
        .env_remove("REEL_PROFILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("reel engine run starts");
    let socket = socket_path(data);
    let until = Instant::now() + Duration::from_secs(20);
    while rt.block_on(attach_if_running(&socket)).ok().flatten().is_none() {
        assert!(Instant::now() < until, "the engine never answered");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}
