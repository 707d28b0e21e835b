//! Example rows for tests and benchmarks, so that each does not spell out every column again.

use super::state::LocalState;
use super::tasks::{NewTask, TaskRecord};

/// A plain text-to-video submission.
pub fn new_task(prompt: &str) -> NewTask {
    NewTask {
        parent_id: None,
        batch_id: None,
        idempotency_key: "k".into(),
        profile: None,
        base_url: "http://127.0.0.1:1/".into(),
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: prompt.into(),
        negative_prompt: None,
        seconds: 5,
        resolution: "720P".into(),
        ratio: "16:9".into(),
        watermark: false,
        media: vec![],
        billed_seconds: Some(5.0),
        created_at: 1_800_000_000_000,
        row_key: None,
    }
}

/// A task accepted by the service ten seconds before `1_800_000_010_000`, in `state`.
pub fn record(id: i64, state: LocalState) -> TaskRecord {
    let t = new_task("a red fox running through fresh snow at dawn");
    let created = t.created_at;
    TaskRecord {
        remote_id: Some(format!("task_{id:08}")),
        submitted_at: Some(created),
        remote_created_at: Some(created / 1000),
        ..TaskRecord::journaled(id, t, state)
    }
}

/// Task 1 in `state` with the service's id `r` and a result URL on 127.0.0.1 (nothing listens).
pub fn with_remote(state: LocalState) -> TaskRecord {
    TaskRecord { remote_id: Some("r".into()), url: Some("http://127.0.0.1:1/f".into()), ..record(1, state) }
}
