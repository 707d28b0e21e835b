//! Answers in the shape of OpenAI's Videos API, and of the gateways that copy it (OpenRouter's,
//! new-api's `/v1/videos` for OpenAI channels): a completed task carries no URL, its file is at
//! `GET /v1/videos/{id}/content` with the key (404 "not ready" before, `?variant=thumbnail` for
//! a still), `seconds` and `size` are strings, a completed task has `usage` and `expires_at`
//! (null unless set), and tasks may end `cancelled` or `expired`.

use hyper::body::Incoming;
use hyper::header;
use hyper::{Method, Request, StatusCode};
use serde_json::{Value, json};

use super::files::serve_bytes;
use super::lifecycle::{Outcome, Phase};
use super::media::PNG;
pub use super::openai_config::{Ending, NotReady, OpenAi};
use super::reply::Reply;
use super::routes::query_param;
use super::state::{SimTask, State, unix_now};
use super::{Answers, video};

/// The ending of a task submitted now: cancelled or expired by their triggers, in that mode.
pub fn ending(state: &State) -> Ending {
    let Answers::OpenAi(o) = state.config.answers else { return Ending::AsPlanned };
    if state.fires("cancelled", o.cancelled) {
        Ending::Cancelled
    } else if state.fires("expired", o.expired) {
        Ending::Expired
    } else {
        Ending::AsPlanned
    }
}

/// A task as the service shows it now.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Queued,
    Running(f64),
    Completed,
    Failed(Value),
    Cancelled,
    Expired,
}

/// When the task's file stops being served, in Unix seconds, if it ever does.
fn expires_at(o: &OpenAi, task: &SimTask) -> Option<i64> {
    o.expires_after.map(|d| (task.completed_at() + d.as_secs_f64()) as i64)
}

fn seen(o: &OpenAi, task: &SimTask) -> Seen {
    match task.timeline.phase(task.created.elapsed()) {
        Phase::Queued => Seen::Queued,
        Phase::InProgress { progress } => Seen::Running(progress),
        Phase::Failed => match &task.timeline.outcome {
            Outcome::Fail(e) => Seen::Failed(e.clone()),
            Outcome::Complete => Seen::Failed(json!({ "code": "failed", "message": "the render failed" })),
        },
        Phase::Completed => match task.ending {
            Ending::Cancelled => Seen::Cancelled,
            Ending::Expired => Seen::Expired,
            Ending::AsPlanned if expires_at(o, task).is_some_and(|e| unix_now() >= e as f64) => Seen::Expired,
            Ending::AsPlanned => Seen::Completed,
        },
    }
}

/// `1280x720`: the size of the video as rendered.
fn size(task: &SimTask) -> String {
    let (w, h) = video::dimensions(task.resolution, task.ratio);
    format!("{w}x{h}")
}

pub fn task_body(o: &OpenAi, task: &SimTask) -> Value {
    let seen = seen(o, task);
    let (status, progress) = match &seen {
        Seen::Queued => ("queued", json!(0)),
        Seen::Running(p) => ("in_progress", json!(*p as u64)),
        Seen::Completed => ("completed", Value::Null),
        Seen::Failed(_) => ("failed", Value::Null),
        Seen::Cancelled => ("cancelled", Value::Null),
        Seen::Expired => ("expired", Value::Null),
    };
    let finished = !matches!(seen, Seen::Queued | Seen::Running(_));
    let mut body = json!({
        "id": task.id, "object": "video", "model": task.model, "status": status, "progress": progress,
        "created_at": task.created_unix(),
        "completed_at": if finished { json!(task.completed_at() as i64) } else { Value::Null },
        "seconds": task.video_seconds.to_string(), "size": size(task),
        "remixed_from_video_id": null, "error": null,
        "expires_at": expires_at(o, task).map_or(Value::Null, Value::from),
    });
    match seen {
        Seen::Completed | Seen::Expired => {
            body["usage"] = json!({ "seconds": task.video_seconds, "size": size(task) });
        }
        Seen::Failed(error) => body["error"] = error,
        _ => {}
    }
    body
}

/// OpenAI's error shape.
fn error(status: StatusCode, message: &str, code: Option<&str>) -> Reply {
    Reply::json(
        status,
        &json!({ "error": { "message": message, "type": "invalid_request_error", "param": null, "code": code } }),
    )
}

pub fn unauthorized() -> Reply {
    let message = "Incorrect API key provided. You can find your API key in your account settings.";
    error(StatusCode::UNAUTHORIZED, message, Some("invalid_api_key"))
}

fn not_ready(o: &OpenAi, id: &str, running: bool) -> Reply {
    match o.not_ready {
        NotReady::NotFound => {
            let message = format!("Video is not ready yet, use GET /v1/videos/{id} to check status.");
            error(StatusCode::NOT_FOUND, &message, None)
        }
        NotReady::BadRequest => {
            let status = if running { "IN_PROGRESS" } else { "SUCCESS" };
            let message = format!("Task is not completed yet, current status: {status}");
            error(StatusCode::BAD_REQUEST, &message, None)
        }
    }
}

/// `GET /v1/videos/{id}/content[?variant=video|thumbnail|spritesheet]` (the key is checked by
/// the server first). `truncate` is the fault rolled for this request.
pub fn content(state: &State, req: &Request<Incoming>, id: &str, truncate: bool) -> (Reply, Option<&'static str>) {
    let Answers::OpenAi(o) = state.config.answers else {
        return (Reply::error(StatusCode::NOT_FOUND, "not_found", "no such endpoint"), None);
    };
    if !o.content_route {
        let message = format!("Invalid URL (GET /v1/videos/{id}/content)");
        return (error(StatusCode::NOT_FOUND, &message, None), None);
    }
    let Some(task) = state.get(id) else {
        return (error(StatusCode::NOT_FOUND, &format!("No video found with id '{id}'."), None), None);
    };
    let variant = query_param(req.uri().query().unwrap_or(""), "variant");
    if !matches!(variant, None | Some("video" | "thumbnail" | "spritesheet")) {
        let message = "Invalid value for 'variant': use video, thumbnail or spritesheet.";
        return (error(StatusCode::BAD_REQUEST, message, Some("invalid_value")), None);
    }
    match seen(&o, &task) {
        Seen::Queued | Seen::Running(_) => return (not_ready(&o, id, true), None),
        Seen::Completed => {}
        Seen::Expired => return (error(StatusCode::NOT_FOUND, "The video's content has expired.", None), None),
        Seen::Failed(_) | Seen::Cancelled => {
            return (error(StatusCode::NOT_FOUND, "This video has no content: it did not complete.", None), None);
        }
    }
    let ready_at = task.completed_at() + o.content_lag.as_secs_f64();
    if unix_now() < ready_at {
        return (not_ready(&o, id, false), None);
    }
    if variant.is_some_and(|v| v != "video") {
        let mut r = Reply::new(StatusCode::OK, &PNG[..]).with(header::CONTENT_TYPE, "image/png");
        if req.method() == Method::HEAD {
            r.body = bytes::Bytes::new();
        }
        return (r, None);
    }
    serve_bytes(state, &state.hostile(), req, &task, o.ranges, truncate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_ready_answers_read_as_not_ready() {
        let o = OpenAi::default();
        for (style, status) in [(NotReady::NotFound, 404), (NotReady::BadRequest, 400)] {
            let reply = not_ready(&OpenAi { not_ready: style, ..o }, "video_1", true);
            assert_eq!(reply.status.as_u16(), status);
            let body = reel_api::ErrorBody::from_bytes(&reply.body);
            assert!(reel_api::error::says_not_ready(&body), "{style:?}: {body:?}");
        }
        for gone in [
            error(StatusCode::NOT_FOUND, "No video found with id 'x'.", None),
            error(StatusCode::NOT_FOUND, "The video's content has expired.", None),
            error(StatusCode::NOT_FOUND, "Invalid URL (GET /v1/videos/x/content)", None),
        ] {
            let body = reel_api::ErrorBody::from_bytes(&gone.body);
            assert!(!reel_api::error::says_not_ready(&body), "{body:?}");
        }
    }
}
