//! What a gateway's upstream does to its answers: renders at its own size and length when the
//! gateway dropped what was asked (and says so in `size`, `seconds`, `usage`), refuses the
//! vendor key of one model group with a 401 while the others work, and rejects a submission
//! with its own error wrapped in the gateway's text. All off by default.

use hyper::StatusCode;
use serde_json::{Value, json};

use super::reply::Reply;
use super::state::SimTask;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Upstream {
    /// Completed tasks say they were rendered at this size (`1920x1080`, `1920*1080`).
    pub render_size: Option<String>,
    /// … and this long, as the text it is sent as (`"8.0"`).
    pub render_seconds: Option<String>,
    /// Completed tasks carry a `usage` object (tokens and the duration rendered).
    pub usage: bool,
    /// Every request about this model answers 401, as a gateway whose vendor key for that
    /// model's channel is wrong does; other models work.
    pub refuse_model_key: Option<String>,
    /// Submissions of this model whose seconds are not 4, 8 or 12 are refused with a 400 whose
    /// message wraps the upstream's own error (LiteLLM's `OpenAIException` inside new-api's).
    pub wrap_errors_for: Option<String>,
}

/// The 401 for a request about `model`, if its key is refused.
pub fn refusal(upstream: &Upstream, model: &str) -> Option<Reply> {
    (upstream.refuse_model_key.as_deref() == Some(model)).then(|| {
        let message = format!(
            "the upstream channel for model {model} answered: Incorrect API key provided (request id: 20261124refused)"
        );
        Reply::json(
            StatusCode::UNAUTHORIZED,
            &json!({ "error": { "message": message, "type": "upstream_error", "code": "invalid_api_key" } }),
        )
    })
}

/// The wrapped 400 for a submission (in the spec's form), if its model's upstream refuses it.
pub fn wrapped_rejection(upstream: &Upstream, submission: &Value) -> Option<Reply> {
    let model = submission.get("model").and_then(Value::as_str)?;
    let seconds = submission.get("seconds").map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_string))?;
    if upstream.wrap_errors_for.as_deref() != Some(model) || ["4", "8", "12"].contains(&seconds.as_str()) {
        return None;
    }
    let inner = json!({ "error": {
        "message": format!("Invalid value: '{seconds}'. Supported values are: '4', '8', and '12'."),
        "type": "invalid_request_error", "param": "seconds", "code": "invalid_value",
    }});
    let message = format!("BadRequestError: OpenAIException - {inner}");
    Some(Reply::json(StatusCode::BAD_REQUEST, &json!({ "error": { "message": message, "type": "upstream_error" } })))
}

/// Adds what the upstream says it rendered to a completed task's answer.
pub fn annotate(upstream: &Upstream, task: &SimTask, body: &mut Value) {
    if body.get("status").and_then(Value::as_str) != Some("completed") {
        return;
    }
    if let Some(size) = &upstream.render_size {
        body["size"] = size.as_str().into();
    }
    if let Some(seconds) = &upstream.render_seconds {
        body["seconds"] = seconds.as_str().into();
    }
    if upstream.usage {
        let seconds = upstream.render_seconds.as_deref().and_then(|s| s.parse::<f64>().ok());
        let seconds = seconds.unwrap_or(f64::from(task.video_seconds));
        body["usage"] = json!({ "completion_tokens": (seconds * 1000.0) as u64, "duration_seconds": seconds });
    }
}
