//! A data folder of its own for tests of the engine process: the real binary against the
//! simulator on 127.0.0.1, with a fast poll and a chosen idle exit and request budget.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use reel_engine::service::{self, Launch};
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use serde_json::Value;
use tokio::process::Command;

pub const MODEL: &str = "acme/aurora-3.0/text-to-video";
pub const PATIENCE: Duration = Duration::from_secs(90);

pub struct Folder {
    pub dir: tempfile::TempDir,
    pub data: PathBuf,
    pub config: PathBuf,
}

pub fn folder(idle_exit_secs: f64, budget: u32) -> Folder {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[engine]\nrequests_per_second = {budget}\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\n\
             max_poll_interval_secs = 0.5\nidle_exit_secs = {idle_exit_secs}\n"
        ),
    )
    .expect("config");
    Folder { dir, data, config }
}

impl Folder {
    /// The same folder with another request budget (requests a second).
    pub fn with_budget(self, budget: u32) -> Folder {
        let text = std::fs::read_to_string(&self.config).expect("config");
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                if l.starts_with("requests_per_second") { format!("requests_per_second = {budget}") } else { l.into() }
            })
            .collect();
        std::fs::write(&self.config, lines.join("\n") + "\n").expect("config");
        self
    }

    /// The same folder with more settings (sections of their own) in its config.
    pub fn with_config(self, extra: &str) -> Folder {
        let text = std::fs::read_to_string(&self.config).expect("config");
        std::fs::write(&self.config, format!("{text}{extra}")).expect("config");
        self
    }

    /// Writes a file in the test's folder; its path.
    pub fn file(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }

    pub fn env(&self, sim: &SimHandle) -> Vec<(OsString, OsString)> {
        [
            ("REEL_BASE_URL", sim.base_url().into()),
            ("REEL_API_KEY", sim.api_key().into()),
            ("REEL_DATA_DIR", self.data.clone().into_os_string()),
            ("REEL_CONFIG", self.config.clone().into_os_string()),
        ]
        .into_iter()
        .map(|(k, v)| (OsString::from(k), v))
        .collect()
    }

    pub fn reel(&self, sim: &SimHandle, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
        c.args(args).envs(self.env(sim)).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    }

    pub async fn run(&self, sim: &SimHandle, args: &[&str]) -> (i32, String, String) {
        let out = tokio::time::timeout(PATIENCE, self.reel(sim, args).output()).await.expect("in time").expect("runs");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
    }

    pub async fn status(&self, sim: &SimHandle) -> Value {
        let (code, out, err) = self.run(sim, &["engine", "status", "--json"]).await;
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).expect("json")
    }

    pub async fn tasks(&self, sim: &SimHandle) -> Vec<Value> {
        let (code, out, err) = self.run(sim, &["list", "--json", "--limit", "1000"]).await;
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Vec<Value>>(&out).expect("json")
    }

    /// Waits until every task is downloaded, reading the store only (no engine is attached).
    pub async fn until_all_downloaded(&self, sim: &SimHandle, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let tasks = self.tasks(sim).await;
            if tasks.len() == count && tasks.iter().all(|t| t["state"] == "downloaded") {
                return tasks;
            }
            assert!(Instant::now() < deadline, "not all downloaded: {tasks:?}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn until_stopped(&self, sim: &SimHandle) {
        let deadline = Instant::now() + PATIENCE;
        while self.status(sim).await["running"] != false {
            assert!(Instant::now() < deadline, "the engine did not exit by itself");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(!service::socket_path(&self.data).exists(), "its socket is gone with it");
    }

    pub fn launch(&self, sim: &SimHandle) -> Launch {
        Launch {
            exe: PathBuf::from(env!("CARGO_BIN_EXE_reel")),
            args: ["engine", "run", "--spawned"].map(OsString::from).to_vec(),
            env: self.env(sim),
            log: self.data.join("logs").join("engine.out"),
        }
    }
}

pub fn slow_sim() -> SimConfig {
    SimConfig {
        lifecycle: LifecycleConfig {
            queue_time: Duration::from_millis(200),
            render_min: Duration::from_millis(1500),
            render_max: Duration::from_millis(2500),
            failure_rate: 0.0,
        },
        seed: Some(7),
        ..SimConfig::default()
    }
}

pub fn saved(tasks: &[Value]) {
    for t in tasks {
        assert!(Path::new(t["file_path"].as_str().expect("path")).exists(), "{t}");
    }
}

pub fn settings_for(f: &Folder, sim: &SimHandle) -> reel_engine::config::Settings {
    let text = std::fs::read_to_string(&f.config).expect("config");
    let file = reel_engine::config::parse_file(&f.config, &text).expect("parses");
    let env = reel_engine::config::Env {
        base_url: Some(sim.base_url()),
        api_key: Some(sim.api_key().to_string()),
        data_dir: Some(f.data.clone()),
        ..reel_engine::config::Env::default()
    };
    reel_engine::config::resolve(&file, &env, None, None).expect("settings")
}
