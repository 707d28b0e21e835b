//! An engine process whose socket disappears (its data folder deleted) exits instead of
//! working on for nobody: the real binary against the simulator on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::time::{Duration, Instant};

use crate::common::folder::*;
use crate::common::*;
use reel_sim::{LifecycleConfig, SimConfig};

#[tokio::test(flavor = "multi_thread")]
async fn an_engine_whose_folder_is_deleted_exits_with_work_left() {
    // Renders that never finish: the engine always has unfinished work.
    let lifecycle = LifecycleConfig {
        queue_time: Duration::ZERO,
        render_min: Duration::from_secs(3600),
        render_max: Duration::from_secs(3600),
        failure_rate: 0.0,
    };
    let sim = start(SimConfig { lifecycle, ..SimConfig::default() }).await;
    let f = folder(1.0, 50);
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "a fox that never renders"]).await;
    assert_eq!(code, 0, "{err}");
    let pid = f.status(&sim).await["pid"].as_u64().expect("running") as i32;
    std::fs::remove_dir_all(&f.data).expect("the folder is deleted");
    let deadline = Instant::now() + Duration::from_secs(30);
    // SAFETY: signal 0 only asks whether the process exists.
    while unsafe { libc::kill(pid, 0) } == 0 {
        assert!(Instant::now() < deadline, "the engine {pid} works on for nobody");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
