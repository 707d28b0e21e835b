//! Wire types: the submission body we send (strict; built only by `engine::journal` from a
//! journaled, validated submission) and the task we read back (tolerant).

use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

/// `POST /v1/videos` body (spec 4.1). Only the spec's fields are ever sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubmitRequest {
    pub model: String,
    pub prompt: String,
    pub seconds: i64,
    pub metadata: Metadata,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metadata {
    pub resolution: String,
    pub ratio: String,
    pub watermark: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<MediaItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub negative_prompt: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MediaItem {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
}

/// A task status. Values the spec does not name are kept as they came and never taken for success.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Status {
    Queued,
    InProgress,
    Completed,
    Failed,
    /// The gateways' (new-api) `unknown`: an upstream state they do not map, such as a task just
    /// submitted that has not started, or one the vendor no longer knows. Neither success nor
    /// failure.
    Unknown,
    /// The service cancelled the task (OpenAI's and OpenRouter's `cancelled`): it ended without
    /// a video.
    Cancelled,
    /// The service's own `expired`: the video is gone, or was never kept, before it was saved.
    Expired,
    Other(String),
}

impl Status {
    /// Spec values match exactly as the spec writes them (`" Completed "`, `"COMPLETED"` and
    /// `"done"` are not `completed`); anything else is `Other`, kept as it came.
    pub fn parse(text: &str) -> Status {
        match text {
            "queued" => Status::Queued,
            "in_progress" => Status::InProgress,
            "completed" => Status::Completed,
            "failed" => Status::Failed,
            "unknown" => Status::Unknown,
            "cancelled" => Status::Cancelled,
            "expired" => Status::Expired,
            _ => Status::Other(text.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Status::Queued => "queued",
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Unknown => "unknown",
            Status::Cancelled => "cancelled",
            Status::Expired => "expired",
            Status::Other(s) => s,
        }
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled | Status::Expired)
    }
}

/// A video task as read from the service (spec section 2), plus the whole body as it came.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoTask {
    pub id: String,
    pub object: Option<String>,
    pub status: Status,
    pub created_at: Option<i64>,
    pub model: Option<String>,
    /// Only read from a `completed` answer: gateways send their last update time there while
    /// the task runs.
    pub completed_at: Option<i64>,
    /// The video's URL: an absolute http(s) URL from a `completed` answer, wherever the service
    /// put it (see [`video_url`]).
    pub url: Option<String>,
    /// When the service says the URL stops working (not in the spec; kept when sent).
    pub expires_at: Option<i64>,
    /// Percent done, 0 to 100, when a provider sends one (not in the spec).
    pub progress: Option<f64>,
    /// Error details of a failed task, of whatever shape the service uses; a gateway that
    /// sends its failure text in `metadata.url` gets `{"message": text}`.
    pub error: Option<Value>,
    /// What the service says it rendered (`size`, `seconds`, `usage`), as far as it says.
    pub rendered: reel_rules::rendered::Rendered,
    pub raw: Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("expected a JSON object")]
    NotObject,
    #[error("the task has no \"id\"")]
    MissingId,
}

/// How an answer without a `status` is shown.
pub const MISSING_STATUS: &str = "(no status)";

/// A Unix time in seconds from an integer, a float or a numeric string; milliseconds are scaled.
fn timestamp(v: Option<&Value>) -> Option<i64> {
    let n = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let secs = if n > 1e11 { n / 1000.0 } else { n };
    Some(secs as i64)
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().trim_end_matches('%').parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

/// Some providers wrap the task in `{"data": {...}}`.
fn task_object(v: &Value) -> Option<&Map<String, Value>> {
    let obj = v.as_object()?;
    if !obj.contains_key("id")
        && let Some(inner) = obj.get("data").and_then(Value::as_object)
    {
        return Some(inner);
    }
    Some(obj)
}

/// An absolute http(s) URL, or nothing: a failure text or a relative path is no video URL.
fn http_url(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?.trim();
    let parsed = url::Url::parse(s).ok()?;
    (matches!(parsed.scheme(), "http" | "https") && parsed.host_str().is_some()).then(|| s.to_string())
}

/// Any text in the spec's own `url` field: one reel cannot fetch (another scheme, a relative
/// path, a malformed or huge URL) is kept, so that the task is refused at once with the reason
/// instead of waiting for a URL forever.
fn spec_url(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// Where services put a completed task's video, in order: the spec's `url`, the gateways'
/// `metadata.url` (new-api's Alibaba channel), `metadata.video_url` (its other channels), and
/// the `video_url` some providers send at the top level. Only the spec's field may hold
/// another scheme: the gateways put failure text where their URL goes.
pub fn video_url(obj: &Map<String, Value>) -> Option<String> {
    let metadata = obj.get("metadata").and_then(Value::as_object);
    spec_url(obj.get("url"))
        .or_else(|| http_url(metadata.and_then(|m| m.get("url"))))
        .or_else(|| http_url(metadata.and_then(|m| m.get("video_url"))))
        .or_else(|| http_url(obj.get("video_url")))
}

/// A failed task's details: its `error`, else the failure text a gateway puts in
/// `metadata.url` (or a top-level `fail_reason`/`message`).
fn failure(obj: &Map<String, Value>) -> Option<Value> {
    if let Some(e) = obj.get("error").filter(|e| !e.is_null() && message_of(e).is_some()) {
        return Some(e.clone());
    }
    let metadata = obj.get("metadata").and_then(Value::as_object);
    let said = [metadata.and_then(|m| m.get("url")), obj.get("fail_reason"), obj.get("message")]
        .into_iter()
        .flatten()
        .find_map(|v| v.as_str().map(str::trim).filter(|s| !s.is_empty() && http_url(Some(v)).is_none()));
    match said {
        Some(text) => Some(serde_json::json!({ "message": text })),
        None => obj.get("error").filter(|e| !e.is_null()).cloned(),
    }
}

impl VideoTask {
    pub fn from_json(raw: Value) -> Result<VideoTask, DecodeError> {
        let sent = task_object(&raw).ok_or(DecodeError::NotObject)?;
        // Every string but the URL is read made safe, once, here: what is kept and shown can
        // carry no control sequence. The URL is read as sent (its parser percent-encodes what
        // it must); an id with unsafe characters is refused as unusable where it is used.
        let url_sent = video_url(sent);
        let cleaned = reel_rules::text::safe_value(Value::Object(sent.clone()));
        let obj = cleaned.as_object().ok_or(DecodeError::NotObject)?;
        let id = text(sent.get("id")).or_else(|| text(sent.get("task_id"))).ok_or(DecodeError::MissingId)?;
        // A status of another type, or none, is unrecognized, never an error: the task exists.
        let status = match obj.get("status") {
            Some(Value::String(s)) => Status::parse(s),
            Some(other) => Status::Other(other.to_string()),
            None => Status::Other(MISSING_STATUS.to_string()),
        };
        let completed = status == Status::Completed;
        let task = VideoTask {
            id,
            object: text(obj.get("object")),
            created_at: timestamp(obj.get("created_at")),
            model: text(obj.get("model")),
            completed_at: if completed { timestamp(obj.get("completed_at")) } else { None },
            url: if completed { url_sent } else { None },
            expires_at: timestamp(obj.get("expires_at")),
            progress: number(obj.get("progress")).map(|p| p.clamp(0.0, 100.0)),
            error: if matches!(status, Status::Failed | Status::Cancelled | Status::Expired) {
                failure(obj)
            } else {
                obj.get("error").filter(|e| !e.is_null()).cloned()
            },
            rendered: reel_rules::rendered::Rendered::from_answer(obj),
            status,
            raw: Value::Null,
        };
        // Kept as the fallback of a failure's details: made safe as every other string.
        Ok(VideoTask { raw: reel_rules::text::safe_value(raw), ..task })
    }
}

/// A human-readable message from an error body of any shape; a gateway's text that wraps its
/// upstream's error gives the upstream's words (see [`super::upstream`]).
pub fn message_of(v: &Value) -> Option<String> {
    super::upstream::said_in(v).map(|m| super::upstream::innermost(&m))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn decodes_the_spec_shapes() {
        let q =
            VideoTask::from_json(json!({"id": "t1", "object": "video", "status": "queued", "created_at": 1700000000}))
                .expect("decodes");
        assert_eq!((q.id.as_str(), &q.status, q.created_at), ("t1", &Status::Queued, Some(1_700_000_000)));
        let c = VideoTask::from_json(json!({
            "id": "t1", "object": "video", "status": "completed", "model": "a/b-3.0/text-to-video",
            "created_at": 1700000000, "completed_at": 1700000100, "url": "https://cdn/x.mp4"
        }))
        .expect("decodes");
        assert_eq!(c.status, Status::Completed);
        assert_eq!(c.url.as_deref(), Some("https://cdn/x.mp4"));
        assert_eq!(c.completed_at, Some(1_700_000_100));
    }

    #[test]
    fn tolerates_what_other_servers_send() {
        let cases: Vec<(Value, Status)> = vec![
            (json!({"id": "a", "status": "in_progress", "extra": {"x": 1}}), Status::InProgress),
            (json!({"id": 7, "status": "completed", "url": "https://cdn/x"}), Status::Completed),
            (json!({"id": "a", "status": "IN_PROGRESS"}), Status::Other("IN_PROGRESS".into())),
            (json!({"id": "a", "status": " Completed "}), Status::Other(" Completed ".into())),
            (json!({"id": "a", "status": "completed "}), Status::Other("completed ".into())),
            (json!({"id": "a", "status": "COMPLETED"}), Status::Other("COMPLETED".into())),
            (json!({"id": "a", "status": "SUCCEEDED"}), Status::Other("SUCCEEDED".into())),
            (json!({"id": "a", "status": "done", "url": "https://cdn/x"}), Status::Other("done".into())),
            (json!({"id": "a", "status": null}), Status::Other("null".into())),
            (json!({"id": "a", "status": true}), Status::Other("true".into())),
            (json!({"id": "a"}), Status::Other(MISSING_STATUS.into())),
            (json!({"data": {"id": "a", "status": "failed", "error": {"code": "nsfw"}}}), Status::Failed),
            (json!({"id": "a", "status": "processing"}), Status::Other("processing".into())),
            (json!({"id": "a", "status": 3}), Status::Other("3".into())),
            (json!({"id": "a", "status": "cancelled"}), Status::Cancelled),
            (json!({"id": "a", "status": "expired"}), Status::Expired),
            (json!({"id": "a", "status": "Cancelled"}), Status::Other("Cancelled".into())),
            (json!({"id": "a", "status": "canceled"}), Status::Other("canceled".into())),
            (json!({"id": "a", "status": " expired"}), Status::Other(" expired".into())),
        ];
        for (body, want) in cases {
            let t = VideoTask::from_json(body.clone()).expect("decodes");
            assert_eq!(t.status, want, "{body}");
            assert!(!matches!(t.status, Status::Other(_)) || !t.status.is_terminal());
        }
        let t = VideoTask::from_json(json!({
            "id": "a", "status": "in_progress", "created_at": "1700000000", "completed_at": 1700000000123u64,
            "progress": "42%", "expires_at": 1.7e9
        }))
        .expect("decodes");
        assert_eq!((t.created_at, t.completed_at, t.expires_at), (Some(1_700_000_000), None, Some(1_700_000_000)));
        assert_eq!(t.progress, Some(42.0));
        let t = VideoTask::from_json(json!({"id": "a", "status": "completed", "completed_at": 1700000000123u64}))
            .expect("decodes");
        assert_eq!(t.completed_at, Some(1_700_000_000), "milliseconds are scaled");
        let t = VideoTask::from_json(json!({"id": "a", "status": "queued", "progress": 250, "created_at": -5}))
            .expect("decodes");
        assert_eq!((t.progress, t.created_at), (Some(100.0), None));
    }

    /// What new-api (QuantumNous/new-api, `model/task.go` `ToOpenAIVideo` and the channels'
    /// `ConvertToOpenAIVideo`) sends, and its forks.
    #[test]
    fn reads_the_gateway_shapes() {
        let gateway = |status: &str, progress: Value, metadata: Value| {
            json!({
                "id": "task_9x", "task_id": "task_9x", "object": "video", "model": "wan2.5-t2v",
                "status": status, "progress": progress, "created_at": 1700000000, "completed_at": 1700000042,
                "seconds": "5", "size": "1280x720", "metadata": metadata
            })
        };
        let url = "https://dashscope-result.oss.example.com/x.mp4?Expires=1&Signature=a";
        // (answer, status, url, progress, completed_at, failure message)
        type Case<'a> = (Value, Status, Option<&'a str>, Option<f64>, Option<i64>, Option<&'a str>);
        let cases: Vec<Case> = vec![
            (gateway("unknown", json!(0), json!({"url": ""})), Status::Unknown, None, Some(0.0), None, None),
            (gateway("queued", json!(20), json!({"url": ""})), Status::Queued, None, Some(20.0), None, None),
            (gateway("in_progress", json!(30), json!({"url": ""})), Status::InProgress, None, Some(30.0), None, None),
            (gateway("in_progress", json!("45%"), json!({})), Status::InProgress, None, Some(45.0), None, None),
            (
                gateway("completed", json!(100), json!({"url": url})),
                Status::Completed,
                Some(url),
                Some(100.0),
                Some(1_700_000_042),
                None,
            ),
            (
                gateway("completed", json!(100), json!({"url": "", "video_url": url})),
                Status::Completed,
                Some(url),
                Some(100.0),
                Some(1_700_000_042),
                None,
            ),
            (
                json!({"id": "t", "status": "completed", "url": url, "metadata": {"url": "https://other/y.mp4"}}),
                Status::Completed,
                Some(url),
                None,
                None,
                None,
            ),
            (
                gateway("failed", json!(100), json!({"url": "InvalidParameter: prompt rejected (request id: 7f)"})),
                Status::Failed,
                None,
                Some(100.0),
                None,
                Some("InvalidParameter: prompt rejected (request id: 7f)"),
            ),
            (
                gateway("failed", json!(100), json!({"url": "x"})).as_object().cloned().map_or(json!(null), |mut o| {
                    o.insert("error".into(), json!({"message": "task failed", "code": "failed"}));
                    Value::Object(o)
                }),
                Status::Failed,
                None,
                Some(100.0),
                None,
                Some("task failed"),
            ),
            // Not a URL: a relative path, another scheme, a failure text on a completed task.
            (
                gateway("completed", json!(100), json!({"url": "/files/x.mp4"})),
                Status::Completed,
                None,
                Some(100.0),
                Some(1_700_000_042),
                None,
            ),
            (
                gateway("completed", json!(100), json!({"url": "file:///etc/passwd"})),
                Status::Completed,
                None,
                Some(100.0),
                Some(1_700_000_042),
                None,
            ),
            (
                gateway("completed", json!(100), json!({"url": "task failed"})),
                Status::Completed,
                None,
                Some(100.0),
                Some(1_700_000_042),
                None,
            ),
            (
                json!({"id": "t", "status": "completed", "url": "ftp://cdn/x.mp4"}),
                Status::Completed,
                Some("ftp://cdn/x.mp4"),
                None,
                None,
                None,
            ),
            // A URL on a task that is not completed is not taken.
            (gateway("in_progress", json!(30), json!({"url": url})), Status::InProgress, None, Some(30.0), None, None),
        ];
        for (body, status, url, progress, completed_at, failure) in cases {
            let t = VideoTask::from_json(body.clone()).expect("decodes");
            assert_eq!(t.status, status, "{body}");
            assert_eq!(t.url.as_deref(), url, "{body}");
            assert_eq!(t.progress, progress, "{body}");
            assert_eq!(t.completed_at, completed_at, "{body}");
            assert_eq!(t.error.as_ref().and_then(message_of).as_deref(), failure, "{body}");
        }
        let only_task_id = VideoTask::from_json(json!({"task_id": "task_1", "status": "queued"})).expect("decodes");
        assert_eq!(only_task_id.id, "task_1");
        assert!(!Status::Unknown.is_terminal());
    }

    /// What OpenAI's Videos API (and gateways shaped like it) sends: no URL on a completed
    /// task (the file is at `/v1/videos/{id}/content`), string `seconds` and `size`, `usage`,
    /// `expires_at` null or set, and the ends `cancelled` and `expired`.
    #[test]
    fn reads_the_openai_shapes() {
        let openai = |status: &str, extra: Value| {
            let mut body = json!({
                "id": "video_68d7", "object": "video", "model": "sora-2", "status": status, "progress": null,
                "created_at": 1700000000, "seconds": "4", "size": "1280x720", "expires_at": null
            });
            if let (Some(o), Value::Object(more)) = (body.as_object_mut(), extra) {
                o.extend(more);
            }
            body
        };
        // (answer, status, url, expires_at, failure message)
        type Case<'a> = (Value, Status, Option<&'a str>, Option<i64>, Option<&'a str>);
        let cases: Vec<Case> = vec![
            (openai("queued", json!({})), Status::Queued, None, None, None),
            (openai("in_progress", json!({"progress": 42})), Status::InProgress, None, None, None),
            (
                openai("completed", json!({"completed_at": 1700000100, "usage": {"seconds": 4}})),
                Status::Completed,
                None,
                None,
                None,
            ),
            (
                openai("completed", json!({"url": null, "expires_at": 1700003700})),
                Status::Completed,
                None,
                Some(1_700_003_700),
                None,
            ),
            (openai("cancelled", json!({})), Status::Cancelled, None, None, None),
            (
                openai("cancelled", json!({"error": {"code": "cancelled", "message": "cancelled by the user"}})),
                Status::Cancelled,
                None,
                None,
                Some("cancelled by the user"),
            ),
            (openai("expired", json!({"expires_at": 1700003700})), Status::Expired, None, Some(1_700_003_700), None),
        ];
        for (body, status, url, expires_at, failure) in cases {
            let t = VideoTask::from_json(body.clone()).expect("decodes");
            assert_eq!(t.status, status, "{body}");
            assert_eq!(t.url.as_deref(), url, "{body}");
            assert_eq!(t.expires_at, expires_at, "{body}");
            assert_eq!(t.progress.filter(|_| status != Status::InProgress), None, "{body}");
            assert_eq!(t.error.as_ref().and_then(message_of).as_deref(), failure, "{body}");
        }
        assert!(Status::Cancelled.is_terminal() && Status::Expired.is_terminal());
        assert_eq!((Status::Cancelled.as_str(), Status::Expired.as_str()), ("cancelled", "expired"));
    }

    #[test]
    fn refuses_what_cannot_be_tracked() {
        assert_eq!(VideoTask::from_json(json!([1])), Err(DecodeError::NotObject));
        assert_eq!(VideoTask::from_json(json!({"status": "queued"})), Err(DecodeError::MissingId));
        assert_eq!(VideoTask::from_json(json!({"id": ""})), Err(DecodeError::MissingId));
    }

    #[test]
    fn finds_messages_in_any_error_shape() {
        let cases = [
            (json!({"error": {"message": "bad seconds", "field": "seconds"}}), Some("bad seconds")),
            (json!({"error": "quota exceeded"}), Some("quota exceeded")),
            (json!({"detail": [{"msg": "field required"}]}), Some("field required")),
            (json!({"errors": ["first", "second"]}), Some("first")),
            (json!({"error": {"code": "E42"}}), Some("E42")),
            (json!({}), None),
            (json!(null), None),
        ];
        for (body, want) in cases {
            assert_eq!(message_of(&body).as_deref(), want, "{body}");
        }
    }
}
