//! The simulator's HTTP server: spec section 4's two endpoints plus the result files.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

use super::faults::{Fault, Route};
use super::lifecycle::{Outcome, Phase};
use super::range::{self, RangeAnswer};
use super::state::{RequestRecord, SimTask, State, unix_now};
use crate::rules::{UnknownModels, Violation, validate, wire};

type Body = BoxBody<Bytes, std::io::Error>;

/// Largest request body accepted.
const MAX_BODY: usize = 1024 * 1024;

pub async fn serve(listener: TcpListener, state: Arc<State>, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(connection(stream, state.clone(), shutdown.clone()));
                }
            }
            _ = shutdown.changed() => break,
        }
    }
}

/// One connection. A handler that must drop the connection notifies `kill`; dropping the
/// connection future closes the socket without an answer.
async fn connection(stream: TcpStream, state: Arc<State>, mut shutdown: watch::Receiver<bool>) {
    let kill = Arc::new(Notify::new());
    let killer = kill.clone();
    let service = service_fn(move |req| {
        let (state, killer) = (state.clone(), killer.clone());
        async move { Ok::<_, Infallible>(handle(&state, req, &killer).await) }
    });
    let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = conn => {}
        _ = kill.notified() => {}
        _ = shutdown.changed() => {}
    }
}

enum Endpoint {
    Submit,
    Get(String),
    File(String),
    WrongMethod(&'static str),
    Unknown,
}

fn endpoint(method: &Method, path: &str) -> Endpoint {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (segments.as_slice(), method) {
        (["v1", "videos"], &Method::POST) => Endpoint::Submit,
        (["v1", "videos"], _) => Endpoint::WrongMethod("POST"),
        (["v1", "videos", id], &Method::GET) if !id.is_empty() => Endpoint::Get(percent_decode(id)),
        (["v1", "videos", _], _) => Endpoint::WrongMethod("GET"),
        (["files", name], &Method::GET | &Method::HEAD) => match name.strip_suffix(".mp4") {
            Some(id) => Endpoint::File(percent_decode(id)),
            None => Endpoint::Unknown,
        },
        (["files", _], _) => Endpoint::WrongMethod("GET, HEAD"),
        _ => Endpoint::Unknown,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).map_err(|never| match never {}).boxed()
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    let mut r = Response::new(full(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn error_response(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    json_response(status, &json!({ "error": { "code": code, "message": message } }))
}

fn invalid(violations: &[Violation]) -> Response<Body> {
    let first = violations.first();
    let list: Vec<Value> =
        violations.iter().map(|v| json!({ "field": v.field().to_string(), "message": v.to_string() })).collect();
    json_response(
        StatusCode::BAD_REQUEST,
        &json!({ "error": {
            "code": "invalid_request",
            "message": first.map(ToString::to_string).unwrap_or_default(),
            "field": first.map(|v| v.field().to_string()),
            "violations": list,
        }}),
    )
}

fn authorized(state: &State, req: &Request<Incoming>) -> bool {
    let Some(value) = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    match value.split_once(' ') {
        Some((scheme, key)) => scheme.eq_ignore_ascii_case("bearer") && key == state.config.api_key,
        None => false,
    }
}

fn unauthorized() -> Response<Body> {
    let mut r = error_response(StatusCode::UNAUTHORIZED, "unauthorized", "missing or invalid API key");
    r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r
}

fn is_json(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

fn queued_body(task: &SimTask) -> Value {
    json!({ "id": task.id, "object": "video", "status": "queued", "created_at": task.created_unix() })
}

async fn submit(state: &State, req: Request<Incoming>) -> (Response<Body>, Option<String>) {
    if !is_json(&req) {
        let r = error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON with Content-Type: application/json",
        );
        return (r, None);
    }
    let idempotency_key = req.headers().get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(task) = idempotency_key.as_deref().and_then(|k| state.by_idempotency_key(k)) {
        return (json_response(StatusCode::OK, &queued_body(&task)), Some(task.id.clone()));
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return (error_response(StatusCode::PAYLOAD_TOO_LARGE, "too_large", "the body is over 1 MiB"), None);
        }
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("the body is not valid JSON: {e}");
            return (error_response(StatusCode::BAD_REQUEST, "invalid_json", &message), None);
        }
    };
    let draft = match wire::draft_from_json(&value) {
        Ok(d) => d,
        Err(violations) => return (invalid(&violations), None),
    };
    match validate(&draft, &state.config.catalog, UnknownModels::Reject) {
        Ok(sub) => {
            let task = state.create(&sub, idempotency_key.as_deref());
            (json_response(StatusCode::OK, &queued_body(&task)), Some(task.id.clone()))
        }
        Err(e) => (invalid(&e.violations), None),
    }
}

fn task_body(state: &State, task: &SimTask) -> Value {
    let phase = task.timeline.phase(task.created.elapsed());
    let mut body = json!({ "id": task.id, "object": "video", "created_at": task.created_unix() });
    let ext = state.config.extensions;
    match phase {
        Phase::Queued => {
            body["status"] = "queued".into();
            if ext {
                body["progress"] = 0.into();
            }
        }
        Phase::InProgress { progress } => {
            body["status"] = "in_progress".into();
            if ext {
                body["progress"] = (progress as u64).into();
            }
        }
        Phase::Completed => {
            let expires = state.url_expiry_ms(task);
            let sig = state.sign(&task.id, expires);
            body["status"] = "completed".into();
            body["model"] = task.model.clone().into();
            body["completed_at"] = (task.completed_at() as i64).into();
            let name = crate::api::client::encode_segment(&task.id);
            body["url"] = format!("{}files/{name}.mp4?expires={expires}&sig={sig}", state.base_url).into();
            if ext {
                body["expires_at"] = (expires / 1000).into();
            }
        }
        Phase::Failed => {
            body["status"] = "failed".into();
            body["model"] = task.model.clone().into();
            if let Outcome::Fail(error) = &task.timeline.outcome {
                body["error"] = error.clone();
            }
        }
    }
    body
}

fn query_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

fn file(state: &State, req: &Request<Incoming>, id: &str, truncate: bool) -> Response<Body> {
    let query = req.uri().query().unwrap_or("");
    let Some(task) = state.get(id) else {
        return error_response(StatusCode::NOT_FOUND, "not_found", "no such file");
    };
    if task.timeline.phase(task.created.elapsed()) != Phase::Completed {
        return error_response(StatusCode::NOT_FOUND, "not_found", "no such file");
    }
    let expires = query_param(query, "expires").and_then(|e| e.parse::<u64>().ok());
    let signed = expires.is_some_and(|e| query_param(query, "sig") == Some(state.sign(id, e).as_str()));
    if !signed {
        return error_response(StatusCode::FORBIDDEN, "invalid_signature", "the URL signature does not match");
    }
    if expires.is_some_and(|e| (unix_now() * 1000.0) as u64 >= e) {
        return error_response(StatusCode::FORBIDDEN, "url_expired", "the URL has expired; fetch the task again");
    }
    let video = task.video();
    let len = video.len() as u64;
    let range_header = req.headers().get(header::RANGE).and_then(|v| v.to_str().ok());
    let (status, start, end) = match range::answer(range_header, len) {
        RangeAnswer::Whole => (StatusCode::OK, 0, len.saturating_sub(1)),
        RangeAnswer::Part { start, end } => (StatusCode::PARTIAL_CONTENT, start, end),
        RangeAnswer::Unsatisfiable => {
            let mut r = error_response(StatusCode::RANGE_NOT_SATISFIABLE, "range", "the range starts past the end");
            r.headers_mut().insert(header::CONTENT_RANGE, hv(&format!("bytes */{len}")));
            return r;
        }
    };
    let part = video.slice(start as usize..(end + 1).min(len) as usize);
    let part_len = part.len();
    let body = if req.method() == Method::HEAD {
        full(Bytes::new())
    } else if truncate && part_len >= 2 {
        // Half the bytes, a pause so that they are flushed, then an error: the connection closes
        // short of Content-Length.
        let half = part.slice(..part_len / 2);
        let frames = futures_util::stream::unfold(0u8, move |step| {
            let half = half.clone();
            async move {
                match step {
                    0 => Some((Ok(Frame::data(half)), 1)),
                    1 => {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        Some((Err(std::io::Error::other("truncated")), 2))
                    }
                    _ => None,
                }
            }
        });
        BodyExt::boxed(StreamBody::new(frames))
    } else if let Some(rate) = state.config.file_rate {
        throttled(part, rate)
    } else {
        full(part)
    };
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("video/mp4"));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CONTENT_LENGTH, hv(&part_len.to_string()));
    h.insert(header::ETAG, hv(&format!("\"{}-{len}\"", task.id)));
    if status == StatusCode::PARTIAL_CONTENT {
        h.insert(header::CONTENT_RANGE, hv(&format!("bytes {start}-{end}/{len}")));
    }
    r
}

/// The body in pieces of a tenth of a second each, so the transfer takes `len / rate` seconds.
fn throttled(bytes: Bytes, rate: u64) -> Body {
    let piece = (rate / 10).max(1) as usize;
    let frames = futures_util::stream::unfold(0usize, move |at| {
        let bytes = bytes.clone();
        async move {
            if at >= bytes.len() {
                return None;
            }
            if at > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            let end = (at + piece).min(bytes.len());
            Some((Ok::<_, std::io::Error>(Frame::data(bytes.slice(at..end))), end))
        }
    });
    BodyExt::boxed(StreamBody::new(frames))
}

fn hv(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn malformed(task_id: Option<&str>) -> Response<Body> {
    let body = format!("{{\"id\": \"{}\", \"status\": \"que", task_id.unwrap_or("task"));
    let mut r = Response::new(full(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

async fn handle(state: &State, req: Request<Incoming>, kill: &Notify) -> Response<Body> {
    let arrived = std::time::Instant::now();
    let (method, path) = (req.method().to_string(), req.uri().path().to_string());
    let ep = endpoint(req.method(), &path);
    let route = match ep {
        Endpoint::Submit | Endpoint::Get(_) => Some(Route::Api),
        Endpoint::File(_) => Some(Route::File),
        _ => None,
    };
    let roll = route.map(|r| state.with_rng(|rng| state.faults().roll(r, rng))).unwrap_or_default();
    if let Some(delay) = roll.delay {
        tokio::time::sleep(delay).await;
    }
    let (mut response, task_id) = match (ep, roll.fault) {
        (_, Some(Fault::RateLimited(after))) => {
            let mut r = error_response(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "too many requests");
            r.headers_mut().insert(header::RETRY_AFTER, hv(&after.as_secs_f64().ceil().to_string()));
            (r, None)
        }
        (_, Some(Fault::ServerError(code))) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            (error_response(status, "server_error", "the service had a problem; try again"), None)
        }
        (Endpoint::Submit | Endpoint::Get(_), _) if !authorized(state, &req) => (unauthorized(), None),
        (Endpoint::Submit, _) => submit(state, req).await,
        (Endpoint::Get(id), _) => match state.get(&id) {
            Some(task) => (json_response(StatusCode::OK, &task_body(state, &task)), Some(id)),
            None => (error_response(StatusCode::NOT_FOUND, "not_found", &format!("no task with id {id}")), Some(id)),
        },
        (Endpoint::File(id), fault) => (file(state, &req, &id, fault == Some(Fault::Truncate)), Some(id)),
        (Endpoint::WrongMethod(allow), _) => {
            let mut r = error_response(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "method not allowed");
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
            (r, None)
        }
        (Endpoint::Unknown, _) => (error_response(StatusCode::NOT_FOUND, "not_found", "no such endpoint"), None),
    };
    let status = response.status();
    let applied = match roll.fault {
        Some(Fault::Malformed) if status.is_success() => {
            response = malformed(task_id.as_deref());
            roll.fault
        }
        Some(Fault::Malformed) => None,
        other => other,
    };
    let dropped = applied == Some(Fault::Drop);
    state.record(RequestRecord {
        arrived,
        at: std::time::Instant::now(),
        method,
        path,
        task_id,
        status: if dropped { 0 } else { status.as_u16() },
        fault: applied.map(Fault::label),
    });
    if dropped {
        kill.notify_one();
        std::future::pending::<()>().await;
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let kind = |m: Method, p: &str| match endpoint(&m, p) {
            Endpoint::Submit => "submit".to_string(),
            Endpoint::Get(id) => format!("get {id}"),
            Endpoint::File(id) => format!("file {id}"),
            Endpoint::WrongMethod(a) => format!("405 {a}"),
            Endpoint::Unknown => "404".to_string(),
        };
        assert_eq!(kind(Method::POST, "/v1/videos"), "submit");
        assert_eq!(kind(Method::GET, "/v1/videos"), "405 POST");
        assert_eq!(kind(Method::GET, "/v1/videos/task_1"), "get task_1");
        assert_eq!(kind(Method::GET, "/v1/videos/a%2Fb"), "get a/b");
        assert_eq!(kind(Method::DELETE, "/v1/videos/task_1"), "405 GET");
        assert_eq!(kind(Method::HEAD, "/files/task_1.mp4"), "file task_1");
        assert_eq!(kind(Method::GET, "/files/task_1.mov"), "404");
        assert_eq!(kind(Method::GET, "/v2/videos"), "404");
        assert_eq!(kind(Method::GET, "/"), "404");
    }
}
