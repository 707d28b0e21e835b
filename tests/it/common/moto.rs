//! A moto S3 server of a test's own on 127.0.0.1 (`python3 -m pip install 'moto[server]'`, done
//! by .ci/run), started on a free port and killed when dropped.
#![allow(dead_code, reason = "each test binary uses part of it")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Bounds waits that do end; generous, so a loaded machine never fails a test.
const PATIENCE: Duration = Duration::from_secs(90);

pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().expect("client")
}

pub struct Moto {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Moto {
    /// `record`: moto writes every request it receives to a file, before answering it.
    pub async fn start(record: bool) -> Moto {
        let dir = tempfile::tempdir().expect("tempdir");
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port();
        let mut cmd = Command::new("python3");
        cmd.args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("moto.log")).expect("log"));
        if record {
            cmd.env("MOTO_ENABLE_RECORDING", "1").env("MOTO_RECORDER_FILEPATH", dir.path().join("requests.jsonl"));
        }
        let child = cmd.spawn().expect("python3 runs; install moto with: python3 -m pip install 'moto[server]'");
        let mut moto = Moto { child, port, dir };
        let start = Instant::now();
        loop {
            if let Ok(r) = http().get(format!("{}/moto-api/", moto.endpoint())).send().await
                && r.status().is_success()
            {
                return moto;
            }
            if let Some(status) = moto.child.try_wait().expect("wait") {
                let log = std::fs::read_to_string(moto.dir.path().join("moto.log")).unwrap_or_default();
                panic!("moto exited ({status}); is moto[server] installed? {log}");
            }
            assert!(start.elapsed() < PATIENCE, "moto did not answer on port {}", moto.port);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub async fn create_bucket(&self, name: &str) {
        let r = http().put(format!("{}/{name}", self.endpoint())).send().await.expect("moto answers");
        assert!(r.status().is_success(), "bucket created: {}", r.status());
    }

    /// Every bucket and object gone (moto's reset).
    pub async fn reset(&self) {
        let r = http().post(format!("{}/moto-api/reset", self.endpoint())).send().await.expect("moto answers");
        assert!(r.status().is_success(), "reset: {}", r.status());
    }

    /// The requests moto received (method and URL), when started with `record`.
    pub fn requests(&self) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(self.dir.path().join("requests.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a recorded request"))
            .map(|v| (v["method"].as_str().unwrap_or("").to_string(), v["url"].as_str().unwrap_or("").to_string()))
            .collect()
    }

    /// Requests with `method` whose URL holds `part`.
    pub fn count(&self, method: &str, part: &str) -> usize {
        self.requests().iter().filter(|(m, u)| m == method && u.contains(part)).count()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
