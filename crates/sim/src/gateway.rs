//! Answers in the shape of new-api (QuantumNous/new-api and its forks), the gateway that
//! serves this API in practice: `unknown` before a task starts and once the vendor forgets it,
//! progress in jumps, `seconds` as a string, `completed_at` as the last update time while the
//! task runs, the video URL in `metadata.url` (or `metadata.video_url`, or a fork's top-level
//! `url`), the failure text in `metadata.url`, and its two error shapes.

use std::time::Duration;

use hyper::StatusCode;
use serde_json::{Value, json};

use super::hostile::{BadValue, by_name};
use super::lifecycle::{Outcome, Phase};
use super::reply::Reply;
use super::state::SimTask;

/// Where a completed task's video URL is put.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UrlPlacement {
    /// `metadata.url` only (new-api's Alibaba channel and the generic `ToOpenAIVideo`).
    #[default]
    MetadataUrl,
    /// `metadata.video_url`, with `metadata.url` empty (channels that add their own key).
    MetadataVideoUrl,
    /// A top-level `url` as well as `metadata.url` (a fork).
    TopLevel,
}

impl UrlPlacement {
    pub const NAMES: [(&'static str, UrlPlacement); 3] = [
        ("metadata.url", UrlPlacement::MetadataUrl),
        ("metadata.video_url", UrlPlacement::MetadataVideoUrl),
        ("url", UrlPlacement::TopLevel),
    ];

    pub fn parse_name(text: &str) -> Result<UrlPlacement, BadValue> {
        by_name(&Self::NAMES, text)
    }
}

/// How the simulator answers.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Answers {
    /// As the spec describes (the default).
    #[default]
    Spec,
    /// As new-api does.
    Gateway(Gateway),
    /// As OpenAI's Videos API does: no URL, the file at `/v1/videos/{id}/content` (see
    /// [`super::openai`]).
    OpenAi(super::openai_config::OpenAi),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gateway {
    pub url: UrlPlacement,
    /// A new task answers `unknown` this long (new-api's `NOT_START`, until its poller first
    /// hears from the vendor).
    pub not_started: Duration,
    /// After this long the vendor no longer knows the task and the gateway answers `unknown`
    /// (about a day in practice).
    pub forget_after: Duration,
}

impl Default for Gateway {
    fn default() -> Self {
        Gateway {
            url: UrlPlacement::MetadataUrl,
            not_started: Duration::from_secs(1),
            forget_after: Duration::from_secs(24 * 3600),
        }
    }
}

/// A made-up request id, as new-api appends to its messages.
fn request_id(seed: u128) -> String {
    format!("2026112410{:016x}", seed as u64)
}

/// `{"error": {"message": "… (request id: …)", "type": "new_api_error", "code": ""}}`.
pub fn openai_error(status: StatusCode, message: &str) -> Reply {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let message = format!("{message} (request id: {})", request_id(nanos));
    Reply::json(status, &json!({ "error": { "message": message, "type": "new_api_error", "code": "" } }))
}

/// The answer for an id the gateway does not know: HTTP 400, its task error shape.
pub fn task_not_exist() -> Reply {
    Reply::json(
        StatusCode::BAD_REQUEST,
        &json!({ "code": "task_not_exist", "message": "task_not_exist", "data": null }),
    )
}

/// A task as the gateway shows it; `url` is where the video is served.
pub fn task_body(gateway: &Gateway, task: &SimTask, url: &str) -> Value {
    let age = task.created.elapsed();
    let phase = task.timeline.phase(age);
    let created = task.created_unix();
    // The gateway's last update: when the task last changed state, as its poller saw it.
    let changed = |at: Duration| created + at.as_secs() as i64;
    let queue_for = task.timeline.queue_for;
    let (status, progress, updated, meta_url) = if age >= gateway.forget_after {
        ("unknown", 0, changed(gateway.forget_after), String::new())
    } else if age < gateway.not_started.min(queue_for) {
        ("unknown", 0, created, String::new())
    } else {
        match phase {
            Phase::Queued => ("queued", 20, changed(gateway.not_started.min(queue_for)), String::new()),
            Phase::InProgress { .. } => ("in_progress", 30, changed(queue_for), String::new()),
            Phase::Completed => ("completed", 100, changed(task.timeline.finish_after()), url.to_string()),
            Phase::Failed => {
                let text = match &task.timeline.outcome {
                    Outcome::Fail(e) => reel_api::types::message_of(e).unwrap_or_else(|| "task failed".into()),
                    Outcome::Complete => "task failed".into(),
                };
                ("failed", 100, changed(task.timeline.finish_after()), text)
            }
        }
    };
    let mut metadata = json!({ "url": meta_url });
    let mut body = json!({
        "id": task.id, "task_id": task.id, "object": "video", "model": task.model, "status": status,
        "progress": progress, "created_at": created, "completed_at": updated,
        "seconds": task.video_seconds.to_string(), "size": task.resolution.as_str(),
    });
    if status == "completed" {
        match gateway.url {
            UrlPlacement::MetadataUrl => {}
            UrlPlacement::MetadataVideoUrl => metadata = json!({ "url": "", "video_url": url }),
            UrlPlacement::TopLevel => body["url"] = url.into(),
        }
    }
    body["metadata"] = metadata;
    body
}
