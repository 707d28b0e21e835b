//! The client's error taxonomy and the pure mapping from an HTTP answer to it.

use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use thiserror::Error;

use super::types::message_of;

/// An error body exactly as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorBody {
    Json(Value),
    Text(String),
    Empty,
}

impl ErrorBody {
    /// Longest text kept from a non-JSON body: enough to read, too little to flood a log.
    const MAX_TEXT: usize = 2000;

    pub fn from_bytes(bytes: &[u8]) -> ErrorBody {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return ErrorBody::Empty;
        }
        // Made safe where it comes in: it is kept, exported and shown.
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => ErrorBody::Json(reel_rules::text::safe_value(v)),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes);
                let text: String = text.chars().take(Self::MAX_TEXT).collect();
                ErrorBody::Text(reel_rules::text::safe(&text).into_owned())
            }
        }
    }

    /// The server's own words, if it said any.
    pub fn message(&self) -> Option<String> {
        match self {
            ErrorBody::Json(v) => message_of(v),
            ErrorBody::Text(t) => Some(super::upstream::innermost(t).chars().take(300).collect()),
            ErrorBody::Empty => None,
        }
    }

    /// As JSON for storage: a text body becomes a JSON string.
    pub fn to_json(&self) -> Value {
        match self {
            ErrorBody::Json(v) => v.clone(),
            ErrorBody::Text(t) => Value::String(t.clone()),
            ErrorBody::Empty => Value::Null,
        }
    }
}

/// The service's own words, if it said any, between `before` and `after`.
struct Said<'a> {
    words: &'a Option<String>,
    before: &'static str,
    after: &'static str,
}

/// `: words`, after a sentence of ours.
fn said(words: &Option<String>) -> Said<'_> {
    Said { words, before: ": ", after: "" }
}

/// ` (the service said: words)`, after a sentence that ends with advice.
fn quoted(words: &Option<String>) -> Said<'_> {
    Said { words, before: " (the service said: ", after: ")" }
}

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.words {
            Some(m) => write!(f, "{}{m}{}", self.before, self.after),
            None => Ok(()),
        }
    }
}

/// `; set seconds_as_string = true …`: the setting that fixes a rejection that names a body's
/// field and type.
struct Hint<'a>(&'a Option<String>);

impl fmt::Display for Hint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_deref().and_then(super::wire_form::hint) {
            Some(hint) => write!(f, "; {hint}"),
            None => Ok(()),
        }
    }
}

struct Wait<'a>(&'a Option<Duration>);

impl fmt::Display for Wait<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(d) => write!(f, "; retry after {} s", d.as_secs_f64().ceil()),
            None => Ok(()),
        }
    }
}

#[derive(Debug, Error)]
pub enum ApiError {
    #[error("the service refused the API key (HTTP {status}): check REEL_API_KEY or api_key_cmd{}", quoted(message))]
    Unauthorized { status: u16, message: Option<String> },
    #[error("the service rejected the request (HTTP {status}){}{}", said(message), Hint(message))]
    Rejected { status: u16, message: Option<String>, body: ErrorBody },
    #[error("the service has no task with this id (HTTP {status}){}", said(message))]
    NotFound { status: u16, message: Option<String>, body: ErrorBody },
    #[error("the service is rate limiting requests (HTTP 429){}", Wait(retry_after))]
    RateLimited { retry_after: Option<Duration>, body: ErrorBody },
    #[error("the service failed (HTTP {status}){}{}", said(message), Wait(retry_after))]
    Server { status: u16, message: Option<String>, retry_after: Option<Duration> },
    #[error("could not connect to {endpoint}: {detail}; the request was not sent")]
    Connect { endpoint: String, detail: String },
    #[error("the connection failed during the request: {detail}")]
    Network { detail: String },
    #[error("no answer within {} s", after.as_secs_f64())]
    Timeout { after: Duration },
    #[error("the service answered HTTP {status} with a body reel cannot read ({problem}): {snippet}")]
    Undecodable { status: u16, problem: String, snippet: String },
    #[error("the video URL no longer works (HTTP {status})")]
    UrlGone { status: u16 },
    #[error("the server cannot send bytes from offset {offset} (HTTP 416)")]
    RangeNotSatisfiable { offset: u64, total: Option<u64> },
    #[error("the server answered a range request with {detail}")]
    BadRange { detail: String },
    #[error("\"{url}\" cannot be used: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("the answer is larger than {limit} bytes; reel stopped reading it")]
    TooLarge { limit: u64 },
    #[error("the server redirected the request: {detail}")]
    Redirect { detail: String },
    #[error("the file server refused the download (HTTP {status}); trying again would not help")]
    FileRefused { status: u16 },
    /// The service's file route (`/v1/videos/{id}/content`) says the file is not ready yet.
    #[error("the service's file is not ready yet (HTTP {status}){}", said(message))]
    NotReady { status: u16, message: Option<String> },
    /// The service's file route has no file for this task, or there is no such route.
    #[error("the service serves no file for this task at /v1/videos/{{id}}/content (HTTP {status}){}", said(message))]
    NoFile { status: u16, message: Option<String> },
    /// The profile's body form cannot carry this submission; nothing was sent.
    #[error("not sent: {0}")]
    Unsendable(#[from] super::wire_form::Unsendable),
}

impl ApiError {
    /// True when the request provably never reached the server, so even a POST may be resent.
    pub fn never_sent(&self) -> bool {
        matches!(self, ApiError::Connect { .. } | ApiError::BadUrl { .. } | ApiError::Unsendable(_))
    }

    /// True for failures that may pass by themselves (retry later with back-off).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ApiError::RateLimited { .. }
                | ApiError::Server { .. }
                | ApiError::Connect { .. }
                | ApiError::Network { .. }
                | ApiError::Timeout { .. }
                | ApiError::Undecodable { .. }
                | ApiError::TooLarge { .. }
        )
    }

    /// True when trying the same request again cannot help: a URL that is not http(s), a
    /// redirect loop or one to another origin, a file refused with a 4xx.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            ApiError::BadUrl { .. }
                | ApiError::Redirect { .. }
                | ApiError::FileRefused { .. }
                | ApiError::Unsendable(_)
        )
    }

    /// How long the server asked us to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::RateLimited { retry_after, .. } | ApiError::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// `Retry-After` as delay-seconds or an HTTP date, relative to `now`. A past date means no wait.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Which endpoint answered, since a 403 from a file host means something else than from the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Api,
    File,
    /// The service's own file route, `GET /v1/videos/{id}/content`, asked with the key.
    Content,
}

/// The gateways' (new-api) answer for an id they do not know: HTTP 400 with
/// `{"code": "task_not_exist", ...}` at the top or inside `error`.
fn says_no_such_task(body: &ErrorBody) -> bool {
    let ErrorBody::Json(v) = body else { return false };
    let code = |v: &Value| v.get("code").and_then(Value::as_str).is_some_and(|c| c == "task_not_exist");
    code(v) || v.get("error").is_some_and(code)
}

/// Maps a non-success answer to an error. `retry_after` is the parsed header, if any.
pub fn error_for_status(endpoint: Endpoint, status: u16, retry_after: Option<Duration>, body: &[u8]) -> ApiError {
    let body = ErrorBody::from_bytes(body);
    let message = body.message();
    match (endpoint, status) {
        (Endpoint::Content, 400 | 404 | 409 | 425) if says_not_ready(&body) => ApiError::NotReady { status, message },
        (Endpoint::Content, 404 | 405 | 410 | 501) => ApiError::NoFile { status, message },
        (Endpoint::Content, 401 | 403) => ApiError::Unauthorized { status, message },
        (Endpoint::File, 401 | 403 | 404 | 410) => ApiError::UrlGone { status },
        (_, 429) => ApiError::RateLimited { retry_after, body },
        (Endpoint::Api, 401) => ApiError::Unauthorized { status, message },
        (Endpoint::Api, 404) => ApiError::NotFound { status, message, body },
        (Endpoint::Api, 400) if says_no_such_task(&body) => ApiError::NotFound { status, message, body },
        (_, 500..=599) => ApiError::Server { status, message, retry_after },
        (_, 408) => ApiError::Timeout { after: Duration::ZERO },
        (Endpoint::File | Endpoint::Content, 400..=499) => ApiError::FileRefused { status },
        _ => ApiError::Rejected { status, message, body },
    }
}

/// Words a file route uses while the file is not there yet: OpenAI answers 404 "Video is not
/// ready yet", new-api 400 "Task is not completed yet, current status: …".
const NOT_READY: [&str; 8] =
    ["not ready", "not_ready", "not yet", "processing", "not completed", "in progress", "in_progress", "queued"];

/// Whether an error body of the file route says the file is not ready yet (rather than gone or
/// never served there), in its message or its code.
pub fn says_not_ready(body: &ErrorBody) -> bool {
    let code = match body {
        ErrorBody::Json(v) => [v.get("code"), v.get("error").and_then(|e| e.get("code"))]
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    let text = format!("{} {code}", body.message().unwrap_or_default()).to_lowercase();
    NOT_READY.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn not_ready_answers_are_told_from_missing_files() {
        let cases = [
            (json!({"error": {"message": "Video is not ready yet, use GET /v1/videos/{id} to check status."}}), true),
            (
                json!({"error": {"message": "Task is not completed yet, current status: IN_PROGRESS", "type": "invalid_request_error"}}),
                true,
            ),
            (json!({"error": {"message": "still processing"}}), true),
            (json!({"error": {"code": "video_not_ready", "message": "wait"}}), true),
            (json!({"code": "queued"}), true),
            (json!({"error": {"message": "Task not found", "type": "invalid_request_error"}}), false),
            (json!({"error": {"message": "Video has expired"}}), false),
            (json!("404 page not found"), false),
            (json!({}), false),
        ];
        for (body, want) in cases {
            assert_eq!(says_not_ready(&ErrorBody::Json(body.clone())), want, "{body}");
        }
        assert!(!says_not_ready(&ErrorBody::Text("404 page not found".into())));
        assert!(!says_not_ready(&ErrorBody::Empty));
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 22 Nov 2026 10:00:00 GMT").expect("date");
        let cases = [
            ("3", Some(Duration::from_secs(3))),
            (" 0 ", Some(Duration::ZERO)),
            ("1.5", Some(Duration::from_millis(1500))),
            ("-4", None),
            ("soon", None),
            ("Sun, 22 Nov 2026 10:00:30 GMT", Some(Duration::from_secs(30))),
            ("Sun, 22 Nov 2026 09:59:00 GMT", Some(Duration::ZERO)),
            ("99999999", Some(Duration::from_secs(86_400))),
        ];
        for (value, want) in cases {
            assert_eq!(parse_retry_after(value, now), want, "{value}");
        }
    }

    #[test]
    fn statuses_map_to_kinds() {
        use Endpoint::*;
        let kind = |e: Endpoint, s: u16, body: &str| {
            let err = error_for_status(e, s, None, body.as_bytes());
            format!("{err:?}").split([' ', '{']).next().unwrap_or_default().to_string()
        };
        let cases = [
            (Api, 400, "Rejected"),
            (Api, 401, "Unauthorized"),
            (Api, 403, "Rejected"),
            (Api, 404, "NotFound"),
            (Api, 403, "Rejected"),
            (Api, 408, "Timeout"),
            (Api, 415, "Rejected"),
            (Api, 422, "Rejected"),
            (Api, 429, "RateLimited"),
            (Api, 500, "Server"),
            (Api, 503, "Server"),
            (File, 403, "UrlGone"),
            (File, 404, "UrlGone"),
            (File, 410, "UrlGone"),
            (File, 400, "FileRefused"),
            (File, 416, "FileRefused"),
            (File, 451, "FileRefused"),
            (File, 408, "Timeout"),
            (File, 429, "RateLimited"),
            (File, 502, "Server"),
        ];
        for (e, s, want) in cases {
            assert_eq!(kind(e, s, "{}"), want, "{e:?} {s}");
        }
        // The gateways' two error shapes (new-api): an unknown task id is a 400.
        let not_exist = r#"{"code": "task_not_exist", "message": "task_not_exist", "data": null}"#;
        assert_eq!(kind(Api, 400, not_exist), "NotFound");
        assert_eq!(kind(Api, 400, r#"{"error": {"message": "x", "code": "task_not_exist"}}"#), "NotFound");
        assert_eq!(kind(Api, 400, r#"{"code": "invalid_request", "message": "bad"}"#), "Rejected");
        assert_eq!(kind(File, 400, not_exist), "FileRefused");
        // The file route (`/content`): not ready yet, no file there, or no such route.
        let content = [
            (400, r#"{"error": {"message": "Task is not completed yet, current status: IN_PROGRESS"}}"#, "NotReady"),
            (404, r#"{"error": {"message": "Video is not ready yet", "code": null}}"#, "NotReady"),
            (404, r#"{"error": {"message": "Task not found"}}"#, "NoFile"),
            (404, "404 page not found", "NoFile"),
            (405, "", "NoFile"),
            (410, "{}", "NoFile"),
            (501, "{}", "NoFile"),
            (401, "{}", "Unauthorized"),
            (403, "{}", "Unauthorized"),
            (400, r#"{"error": {"message": "bad variant"}}"#, "FileRefused"),
            (429, "{}", "RateLimited"),
            (502, "{}", "Server"),
        ];
        for (s, body, want) in content {
            assert_eq!(kind(Content, s, body), want, "Content {s} {body}");
        }
    }

    #[test]
    fn server_words_are_kept() {
        let e = error_for_status(
            Endpoint::Api,
            400,
            None,
            br#"{"error":{"message":"seconds 99 is out of range","field":"seconds"}}"#,
        );
        assert_eq!(e.to_string(), "the service rejected the request (HTTP 400): seconds 99 is out of range");
        let ApiError::Rejected { body: ErrorBody::Json(v), .. } = e else { panic!("kept as JSON") };
        assert_eq!(v["error"]["field"], "seconds");
        let e = error_for_status(Endpoint::Api, 502, None, b"<html>Bad Gateway</html>");
        assert_eq!(e.to_string(), "the service failed (HTTP 502): <html>Bad Gateway</html>");
        assert_eq!(ErrorBody::from_bytes(b" \n"), ErrorBody::Empty);
        let gateway = br#"{"error": {"message": "invalid token (request id: 20261124101500abc)", "type": "new_api_error", "code": ""}}"#;
        let e = error_for_status(Endpoint::Api, 401, None, gateway);
        assert_eq!(
            e.to_string(),
            "the service refused the API key (HTTP 401): check REEL_API_KEY or api_key_cmd \
             (the service said: invalid token (request id: 20261124101500abc))"
        );
        let e = error_for_status(
            Endpoint::Api,
            400,
            None,
            br#"{"code": "task_not_exist", "message": "task_not_exist", "data": null}"#,
        );
        assert_eq!(e.to_string(), "the service has no task with this id (HTTP 400): task_not_exist");
    }

    /// A gateway's 400 with its upstream's error inside its message: the upstream's sentence is
    /// shown, the body kept whole.
    #[test]
    fn a_wrapped_upstream_error_shows_the_upstreams_words() {
        let inner = r#"{"error": {"message": "Invalid value: '5'. Supported values are: '4', '8', and '12'.", "type": "invalid_request_error", "param": "seconds"}}"#;
        let body = serde_json::json!({"error": {"message": format!("BadRequestError: OpenAIException - {inner}"), "type": "upstream_error"}});
        let e = error_for_status(Endpoint::Api, 400, None, body.to_string().as_bytes());
        assert_eq!(
            e.to_string(),
            "the service rejected the request (HTTP 400): Invalid value: '5'. Supported values are: '4', '8', and '12'."
        );
        let ApiError::Rejected { body: kept, .. } = &e else { panic!("a rejection") };
        assert_eq!(kept.to_json(), body, "the body is kept as it came");
        let text = format!("upstream said: BadRequestError: OpenAIException - {inner}");
        let e = error_for_status(Endpoint::Api, 502, None, text.as_bytes());
        assert!(e.to_string().ends_with(": Invalid value: '5'. Supported values are: '4', '8', and '12'."), "{e}");
        let e = error_for_status(Endpoint::Api, 400, None, br#"{"error": {"message": "Invalid API key provided"}}"#);
        assert!(e.to_string().ends_with("; if this is about the API key, check REEL_API_KEY or api_key_cmd"), "{e}");
    }
}
