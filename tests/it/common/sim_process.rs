//! `reel sim` as its own process (the real binary), for tests that drive it as a user would:
//! its banner and base URL, killed when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct SimProcess {
    child: Child,
    _data: tempfile::TempDir,
    /// `http://127.0.0.1:PORT`, as its banner names it.
    pub base: String,
    /// What it printed before "Serving".
    pub banner: String,
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `reel sim --port 0 ARGS`, with a data folder and an empty config of its own.
pub fn start_sim_process(args: &[&str]) -> SimProcess {
    let data = tempfile::tempdir().expect("tempdir");
    let config = data.path().join("config.toml");
    std::fs::write(&config, "").expect("an empty config");
    let mut child = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["sim", "--port", "0"])
        .args(args)
        .env("REEL_DATA_DIR", data.path())
        .env("REEL_CONFIG", &config)
        .env_remove("REEL_API_KEY")
        .env_remove("REEL_BASE_URL")
        .stdout(Stdio::piped())
        .spawn()
        .expect("reel sim starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut banner = String::new();
    for line in lines.by_ref() {
        let line = line.expect("a line");
        banner.push_str(&line);
        banner.push('\n');
        if line.starts_with("Serving") {
            break;
        }
    }
    // Keep draining stdout so the request log never blocks the server.
    std::thread::spawn(move || for _ in lines {});
    let base = banner
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .expect("the banner names the URL")
        .to_string();
    SimProcess { child, _data: data, base, banner }
}
