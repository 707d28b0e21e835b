//! Starts `reel sim` as its own process, so that measurements of reel do not include it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct SimProcess {
    child: Child,
    pub base_url: String,
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start(extra: &[&str]) -> SimProcess {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["sim", "--port", "0", "--failure-rate", "0"])
        .args(extra)
        .env("REEL_CONFIG", "/dev/null")
        .stdout(Stdio::piped())
        .spawn()
        .expect("reel sim starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut base_url = String::new();
    for line in lines.by_ref() {
        let line = line.expect("line");
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:"))
            && base_url.is_empty()
        {
            base_url = url.to_string();
        }
        if line.starts_with("Serving") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    SimProcess { child, base_url }
}
