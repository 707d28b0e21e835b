//! Example rows for tests and benchmarks, so that each does not spell out every column again.

use super::state::LocalState;
use super::tasks::{NewTask, TaskRecord};

/// A plain text-to-video submission.
pub fn new_task(prompt: &str) -> NewTask {
    NewTask {
        parent_id: None,
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
    }
}

/// A task accepted by the service ten seconds before `1_800_000_010_000`, in `state`.
pub fn record(id: i64, state: LocalState) -> TaskRecord {
    let t = new_task("a red fox running through fresh snow at dawn");
    TaskRecord {
        id,
        parent_id: t.parent_id,
        remote_id: Some(format!("task_{id:08}")),
        idempotency_key: t.idempotency_key,
        profile: t.profile,
        base_url: t.base_url,
        model: t.model,
        prompt: t.prompt,
        negative_prompt: t.negative_prompt,
        seconds: t.seconds,
        resolution: t.resolution,
        ratio: t.ratio,
        watermark: t.watermark,
        media: t.media,
        billed_seconds: t.billed_seconds,
        state,
        remote_status: None,
        progress: None,
        created_at: t.created_at,
        submitted_at: Some(t.created_at),
        remote_created_at: Some(t.created_at / 1000),
        remote_completed_at: None,
        finished_at: None,
        url: None,
        url_deadline: None,
        error: None,
        file_path: None,
        file_size: None,
        sha256: None,
        poll_count: 0,
        poll_failures: 0,
        last_polled_at: None,
        next_poll_at: None,
        download_attempts: 0,
        url_refreshes: 0,
        updated_at: t.created_at,
    }
}
