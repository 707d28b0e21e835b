//! Spec section 4's two endpoints: submit a task, get a task; with the hostile content a task
//! was given at submission.

use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self};
use hyper::{Request, StatusCode};
use serde_json::{Value, json};

use super::gateway::{self, Answers};
use super::hostile::{Hostile, POISON};
use super::lifecycle::{Outcome, Phase};
use super::reply::{Delivery, Reply, padding_plan};
use super::routes::encode_segment;
use super::state::{SimTask, State};
use super::upstream;
use reel_rules::{UnknownModels, Violation, received_body, validate};

/// Largest request body accepted.
const MAX_BODY: usize = 1024 * 1024;

fn invalid(violations: &[Violation]) -> Reply {
    let first = violations.first();
    let list: Vec<Value> =
        violations.iter().map(|v| json!({ "field": v.field().to_string(), "message": v.to_string() })).collect();
    Reply::json(
        StatusCode::BAD_REQUEST,
        &json!({ "error": {
            "code": "invalid_request",
            "message": first.map(ToString::to_string).unwrap_or_default(),
            "field": first.map(|v| v.field().to_string()),
            "violations": list,
        }}),
    )
}

pub fn authorized(state: &State, req: &Request<Incoming>) -> bool {
    let Some(value) = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    match value.split_once(' ') {
        Some((scheme, key)) => scheme.eq_ignore_ascii_case("bearer") && key == state.config.api_key,
        None => false,
    }
}

pub fn unauthorized(state: &State) -> Reply {
    match state.config.answers {
        Answers::Gateway(_) => gateway::openai_error(StatusCode::UNAUTHORIZED, "Invalid token"),
        Answers::OpenAi(_) => super::openai::unauthorized(),
        Answers::Spec => Reply::error(StatusCode::UNAUTHORIZED, "unauthorized", "missing or invalid API key")
            .with(header::WWW_AUTHENTICATE, "Bearer"),
    }
}

fn is_json(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

fn object(task: &SimTask) -> String {
    if task.hostility.strings { format!("video{POISON}") } else { "video".into() }
}

fn queued_body(task: &SimTask) -> Value {
    json!({ "id": task.id, "object": object(task), "status": "queued", "created_at": task.created_unix() })
}

pub async fn submit(state: &State, req: Request<Incoming>) -> (Reply, Option<String>) {
    if !is_json(&req) {
        let r = Reply::error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON with Content-Type: application/json",
        );
        return (r, None);
    }
    let idempotency_key = req.headers().get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(task) = idempotency_key.as_deref().and_then(|k| state.by_idempotency_key(k)) {
        return (Reply::json(StatusCode::OK, &queued_body(&task)), Some(task.id.clone()));
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return (Reply::error(StatusCode::PAYLOAD_TOO_LARGE, "too_large", "the body is over 1 MiB"), None);
        }
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("the body is not valid JSON: {e}");
            return (Reply::error(StatusCode::BAD_REQUEST, "invalid_json", &message), None);
        }
    };
    let value = match super::takes::to_spec_form(value, state.config.takes) {
        Ok(v) => v,
        Err(refused) => return (*refused, None),
    };
    let upstream = &state.config.upstream;
    let model = value.get("model").and_then(Value::as_str).unwrap_or_default();
    if let Some(refused) = upstream::refusal(upstream, model).or_else(|| upstream::wrapped_rejection(upstream, &value))
    {
        return (refused, None);
    }
    let draft = match received_body::draft_from_json(&value) {
        Ok(d) => d,
        Err(violations) => return (invalid(&violations), None),
    };
    match validate(&draft, &state.config.catalog, UnknownModels::Reject) {
        Ok(sub) => {
            let task = state.create(&sub, idempotency_key.as_deref(), super::openai::ending(state));
            (Reply::json(StatusCode::OK, &queued_body(&task)), Some(task.id.clone()))
        }
        Err(e) => (invalid(&e.violations), None),
    }
}

fn file_url(state: &State, task: &SimTask) -> String {
    let expires = state.url_expiry_ms(task);
    let sig = state.sign(&task.id, expires);
    format!("{}files/{}.mp4?expires={expires}&sig={sig}", state.base_url, encode_segment(&task.id))
}

pub fn task_body(state: &State, task: &SimTask) -> Value {
    if let Answers::Gateway(g) = &state.config.answers {
        return gateway::task_body(g, task, &file_url(state, task));
    }
    if let Answers::OpenAi(o) = &state.config.answers {
        return super::openai::task_body(o, task);
    }
    let phase = task.timeline.phase(task.created.elapsed());
    let mut body = json!({ "id": task.id, "object": object(task), "created_at": task.created_unix() });
    let ext = state.config.extensions;
    let hostile = task.hostility;
    let model = if hostile.strings { format!("{}{POISON}", task.model) } else { task.model.clone() };
    let progress = |percent: u64| hostile.progress.map(|p| p.value()).or_else(|| ext.then(|| percent.into()));
    match phase {
        Phase::Queued => {
            body["status"] = "queued".into();
            if let Some(p) = progress(0) {
                body["progress"] = p;
            }
        }
        Phase::InProgress { progress: percent } => {
            body["status"] = "in_progress".into();
            if let Some(p) = progress(percent as u64) {
                body["progress"] = p;
            }
        }
        Phase::Completed => {
            let expires = state.url_expiry_ms(task);
            let sig = state.sign(&task.id, expires);
            match hostile.status {
                Some(status) => {
                    if let Some(value) = status.value() {
                        body["status"] = value;
                    }
                }
                None => body["status"] = "completed".into(),
            }
            body["model"] = model.into();
            body["completed_at"] = (task.completed_at() as i64).into();
            let name = encode_segment(&task.id);
            body["url"] = match hostile.url {
                Some(url) => url.url().into(),
                None => format!("{}files/{name}.mp4?expires={expires}&sig={sig}", state.base_url).into(),
            };
            if ext {
                body["expires_at"] = (expires / 1000).into();
            }
        }
        Phase::Failed => {
            body["status"] = "failed".into();
            body["model"] = model.into();
            if let Outcome::Fail(error) = &task.timeline.outcome {
                body["error"] = if hostile.strings { poisoned(error) } else { error.clone() };
            }
        }
    }
    body
}

/// Error details with control sequences in every string.
fn poisoned(error: &Value) -> Value {
    match error {
        Value::String(s) => format!("{s}{POISON}").into(),
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), poisoned(v))).collect(),
        Value::Array(items) => items.iter().map(poisoned).collect(),
        other => other.clone(),
    }
}

pub fn get(state: &State, id: &str) -> Reply {
    match state.get(id) {
        Some(task) => upstream::refusal(&state.config.upstream, &task.model).unwrap_or_else(|| {
            let mut body = task_body(state, &task);
            upstream::annotate(&state.config.upstream, &task, &mut body);
            Reply::json(StatusCode::OK, &body)
        }),
        None if matches!(state.config.answers, Answers::Gateway(_)) => gateway::task_not_exist(),
        None => Reply::error(StatusCode::NOT_FOUND, "not_found", &format!("no task with id {id}")),
    }
}

/// `GET /v1/videos/`: what an empty id reaches on services that list there.
pub fn list() -> Reply {
    Reply::json(StatusCode::OK, &json!({ "object": "list", "data": [], "has_more": false }))
}

/// A successful task answer delivered in a hostile way, if one is due: `(reply, label)`.
pub fn hostile_delivery(state: &State, hostile: &Hostile, mut reply: Reply) -> (Reply, Option<&'static str>) {
    let label = if state.fires("endless", hostile.endless) {
        reply.body = bytes::Bytes::new();
        reply.delivery = Delivery::Endless(b"[");
        "endless"
    } else if state.fires("endless_spaces", hostile.endless_spaces) {
        let head = reply.body.strip_suffix(b"}").unwrap_or(&reply.body).to_vec();
        reply.body = head.into();
        reply.delivery = Delivery::Endless(b" ");
        "endless_spaces"
    } else if state.fires("huge", hostile.huge) {
        let (head, pad, tail) = padding_plan(&reply.body, hostile.huge_bytes);
        let total = (head.len() + tail.len()) as u64 + pad;
        reply.headers.insert(header::CONTENT_LENGTH, total.into());
        reply.delivery = Delivery::Padded { total };
        "huge"
    } else if state.fires("slow_bytes", hostile.slow_bytes) {
        reply.delivery = Delivery::Raw { pace: Some(hostile.slow_bytes_every), extra: 0 };
        "slow_bytes"
    } else {
        return (reply, None);
    };
    (reply, Some(label))
}
