//! Pure state transitions: what a poll answer or a submission answer does to a task.

use std::time::Duration;

use serde_json::{Value, json};

use super::download::{FetchError, Saved};
use super::schedule::{Pace, PollPolicy, backoff, next_poll};
use super::timeline::Entry;
use reel_api::client::unusable_task_id;
use reel_api::content::content_route;
use reel_api::download::{shown_url, url_problem};
use reel_api::types::message_of;
use reel_api::{ApiError, Status, VideoTask};
use reel_rules::billing;
use reel_store::tasks::DUPLICATE_OF;
use reel_store::{LocalState, TaskRecord};

/// What the engine does next with a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    Poll(Duration),
    Download,
    /// Try the download again after this long.
    RetryDownload(Duration),
    /// Submission only: send the POST again after this long (it provably did not take effect).
    Resend(Duration),
    Stop,
}

/// The updated row, the event to record (if the state changed) and what comes next.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub record: TaskRecord,
    pub event: Option<Entry>,
    pub next: Next,
}

/// Everything a transition needs to know besides the task and the answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ctx {
    pub now_ms: i64,
    pub policy: PollPolicy,
    /// URL lifetime assumed when the service does not say (no `expires_at`).
    pub url_ttl: Duration,
    /// What decides the next poll of a running task: its outlook, its last progress, the budget.
    pub pace: Pace,
    /// In [0, 1): spreads back-offs.
    pub jitter: f64,
}

/// Answers of 503 to one send before giving up (a gateway answers 503 for a model it has no
/// channel for, which waiting does not mend). A 429 does not count, since the service said to
/// come back, nor does a send that never reached the service: it waits for the service.
pub const MAX_SEND_ATTEMPTS: u32 = 3;

/// How long a send waits after the service refused the API key (a working key in use ends the
/// wait at once: a new engine, or the service taking the key again).
pub const KEY_WAIT: Duration = Duration::from_secs(60);

/// Longest wait between two sends of a task whose key is refused.
pub const MAX_KEY_WAIT: Duration = Duration::from_secs(30 * 60);

/// How long the `refusals`-th refused send of a task waits: a minute, doubled each time, at most
/// half an hour (a working key in use, any answer of the service that says so, ends it sooner).
pub fn key_wait(refusals: u32) -> Duration {
    let exp = 2u32.saturating_pow(refusals.saturating_sub(1).min(16));
    KEY_WAIT.saturating_mul(exp).min(MAX_KEY_WAIT)
}

/// Whether an answer says the API key is refused: a 401 anywhere, or a 403 on a submission
/// (gateways answer 403 for a key without access or without credit).
pub fn refuses_key(err: &ApiError, submitting: bool) -> bool {
    matches!(err, ApiError::Unauthorized { .. })
        || (submitting && matches!(err, ApiError::Rejected { status: 403, .. }))
}

fn age(r: &TaskRecord, now_ms: i64) -> Duration {
    Duration::from_millis((now_ms - r.submitted_at.unwrap_or(r.created_at)).max(0) as u64)
}

fn error_json(err: &ApiError) -> Value {
    let body = match err {
        ApiError::Rejected { body, .. } | ApiError::NotFound { body, .. } | ApiError::RateLimited { body, .. } => {
            body.to_json()
        }
        _ => Value::Null,
    };
    let mut v = json!({ "message": err.to_string() });
    if !body.is_null() {
        v["body"] = body;
    }
    v
}

/// Applies a remote status to a task that has been accepted by the service.
fn apply_status(mut r: TaskRecord, task: &VideoTask, ctx: &Ctx) -> Step {
    let before = (r.state, r.remote_status.clone());
    if task.status == Status::Unknown {
        let running = next_poll(&ctx.pace, None, ctx.now_ms);
        let age = age(&r, ctx.now_ms);
        let (mut r, next, detail) = unknown_status(r, age, running, ctx);
        r.remote_status = Some(task.status.as_str().to_string());
        r.remote_created_at = r.remote_created_at.or(task.created_at);
        let changed = r.state != before.0;
        return Step { record: r, event: changed.then(|| Entry::from(detail)), next };
    }
    r.remote_status = Some(task.status.as_str().to_string());
    r.progress = task.progress.or(r.progress);
    r.remote_created_at = r.remote_created_at.or(task.created_at);
    let otherwise_before = r.rendered_otherwise();
    record_rendered(&mut r, task);
    let stalled = age(&r, ctx.now_ms) > ctx.policy.client_timeout;
    let progress = if task.status == Status::InProgress { task.progress } else { None };
    let running = next_poll(&ctx.pace, progress, ctx.now_ms);
    let (next, detail) = match (&task.status, &task.url) {
        (Status::Completed, Some(url)) if url_problem(url).is_some() => unusable_url(&mut r, url, ctx),
        (Status::Completed, Some(url)) => {
            completed(&mut r, task, url.clone(), ctx);
            (Next::Download, None)
        }
        (Status::Completed, None) if let Some(route) = content_url_of(&r) => {
            // OpenAI's Videos API and the gateways shaped like it send no URL: the file is
            // served at the task's own route, with the key.
            completed(&mut r, task, route, ctx);
            let detail = "the service sent no video URL; the file is fetched from its file route, \
                          /v1/videos/{id}/content";
            (Next::Download, Some(detail.to_string()))
        }
        (Status::Failed, _) => {
            r.state = LocalState::Failed;
            r.error = Some(task.error.clone().unwrap_or_else(|| task.raw.clone()));
            r.finished_at = Some(ctx.now_ms);
            (Next::Stop, r.error.as_ref().and_then(message_of))
        }
        (Status::Cancelled, _) => {
            ended_without_video(&mut r, task, LocalState::Cancelled, "the service cancelled this task", ctx)
        }
        (Status::Expired, _) => ended_without_video(
            &mut r,
            task,
            LocalState::Expired,
            "the service says this task's video expired before it was saved",
            ctx,
        ),
        (Status::Queued | Status::InProgress, _) if stalled => {
            r.state = LocalState::Stalled;
            (
                Next::Poll(ctx.policy.slow),
                Some(format!("not finished after {} s; still checked, slowly", ctx.policy.client_timeout.as_secs())),
            )
        }
        (Status::Queued, _) => {
            r.state = LocalState::Queued;
            (Next::Poll(running), None)
        }
        (Status::InProgress, _) => {
            r.state = LocalState::InProgress;
            (Next::Poll(running), None)
        }
        (Status::Completed, None) => {
            r.state = if stalled { LocalState::Stalled } else { LocalState::Unrecognized };
            let detail = "the service says completed but sent no video URL (looked in url, metadata.url and \
                          metadata.video_url)";
            (Next::Poll(ctx.policy.slow), Some(detail.to_string()))
        }
        (Status::Unknown, _) => (Next::Poll(running), None),
        (Status::Other(s), _) => {
            r.state = if stalled { LocalState::Stalled } else { LocalState::Unrecognized };
            (Next::Poll(ctx.policy.slow), Some(format!("the service answered status \"{s}\"")))
        }
    };
    let changed = r.state != before.0 || (r.state == LocalState::Unrecognized && r.remote_status != before.1);
    // The first answer that shows the output differs from what was asked says so, once.
    let otherwise = (!otherwise_before).then(|| reel_rules::rendered::said(r.asked(), &r.rendered)).flatten();
    let detail = match (detail, otherwise.clone()) {
        (Some(d), Some(o)) => Some(format!("{d}; the service says: {o}")),
        (d, o) => d.or(o.map(|o| format!("the service says: {o}"))),
    };
    Step { record: r, event: (changed || otherwise.is_some()).then(|| Entry::from(detail)), next }
}

/// Keeps what the service says it rendered (a field it leaves out keeps what an earlier answer
/// said), and bills what it rendered.
fn record_rendered(r: &mut TaskRecord, task: &VideoTask) {
    let said = &task.rendered;
    if said.is_empty() {
        return;
    }
    let rendered = &mut r.rendered;
    rendered.size = said.size.clone().or(rendered.size.take());
    rendered.seconds = said.seconds.or(rendered.seconds);
    rendered.usage = said.usage.clone().or(rendered.usage.take());
    r.billed_seconds = billing::as_rendered(r.billed_seconds, r.rendered.seconds, &r.billed_media());
}

/// The route of the task's file on the service (`/v1/videos/{id}/content`), when it has an id
/// that can name one.
fn content_url_of(r: &TaskRecord) -> Option<String> {
    let id = r.remote_id.as_deref().filter(|id| unusable_task_id(id).is_none())?;
    Some(content_route(&r.base_url, id))
}

/// Whether the task's file is fetched from the service's own file route.
fn from_content(r: &TaskRecord) -> bool {
    r.url.is_some() && r.url == content_url_of(r)
}

/// A completed task whose file is at `url`: due for download before its deadline (the
/// service's `expires_at`, else the assumed URL lifetime after completion).
fn completed(r: &mut TaskRecord, task: &VideoTask, url: String, ctx: &Ctx) {
    r.state = LocalState::Completed;
    r.url = Some(url);
    r.progress = Some(100.0);
    let completed_s = task.completed_at.unwrap_or(ctx.now_ms / 1000);
    r.remote_completed_at = Some(completed_s);
    r.url_deadline = Some(match task.expires_at {
        Some(e) => e * 1000,
        None => completed_s * 1000 + ctx.url_ttl.as_millis() as i64,
    });
}

/// An end the service chose that leaves no video (`cancelled`, `expired`): terminal, with
/// `what` and the service's own words, if any, as the reason.
fn ended_without_video(
    r: &mut TaskRecord,
    task: &VideoTask,
    state: LocalState,
    what: &str,
    ctx: &Ctx,
) -> (Next, Option<String>) {
    let message = match task.error.as_ref().and_then(message_of) {
        Some(said) => format!("{what} (it said: {said}); no video was saved"),
        None => format!("{what}; no video was saved"),
    };
    r.state = state;
    r.finished_at = Some(ctx.now_ms);
    let mut error = json!({ "message": message });
    if let Some(body) = &task.error {
        error["body"] = body.clone();
    }
    r.error = Some(error);
    (Next::Stop, Some(message))
}

/// A completed task whose URL reel cannot or will not fetch: `download_failed` with the reason
/// (polling again would give the same URL), or still `downloaded` if a file was saved before.
fn unusable_url(r: &mut TaskRecord, url: &str, ctx: &Ctx) -> (Next, Option<String>) {
    let why = url_problem(url).unwrap_or_default();
    let said = format!("the service says completed, but its video URL (\"{}\") cannot be used: {why}", shown_url(url));
    r.remote_completed_at = r.remote_completed_at.or(Some(ctx.now_ms / 1000));
    if r.file_path.is_some() {
        r.state = LocalState::Downloaded;
        return (Next::Stop, Some(format!("{said}; the saved file is kept")));
    }
    let message = format!("{said}; nothing was downloaded");
    r.state = LocalState::DownloadFailed;
    r.finished_at = Some(ctx.now_ms);
    r.error = Some(json!({ "message": message }));
    (Next::Stop, Some(message))
}

/// A gateway's `unknown`: polled like a queued task while young. The service has lost track of
/// the task when `unknown` is all it ever said past the client timeout, or when it says so past
/// the vendor's retention; a task it once knew that says `unknown` past the client timeout is
/// stalled and still checked (it may come back). Never taken for success or failure.
fn unknown_status(
    mut r: TaskRecord,
    age: Duration,
    running: Duration,
    ctx: &Ctx,
) -> (TaskRecord, Next, Option<String>) {
    // Progress is recorded from every other answer of a gateway (never from `unknown`), and only
    // a running answer leads to these states.
    let knew = r.progress.is_some() || matches!(r.state, LocalState::InProgress | LocalState::Stalled);
    let past_timeout = age > ctx.policy.client_timeout;
    if knew && past_timeout && age <= ctx.policy.vendor_retention {
        let changed = r.state != LocalState::Stalled;
        r.state = LocalState::Stalled;
        let detail = changed.then(|| {
            format!(
                "the service answers status \"unknown\" for a task it knew, past {} s; still checked, slowly",
                ctx.policy.client_timeout.as_secs()
            )
        });
        return (r, Next::Poll(ctx.policy.slow), detail);
    }
    let lost = (!knew && past_timeout) || age > ctx.policy.vendor_retention;
    if lost {
        let message = format!(
            "the service lost track of this task: it answers status \"unknown\" {} after submission \
             (a gateway says so for a task its vendor no longer knows); no video was saved",
            reel_rules::text::clock(age.as_secs() as i64)
        );
        r.state = LocalState::Lost;
        r.finished_at = Some(ctx.now_ms);
        r.error = Some(json!({ "message": message }));
        return (r, Next::Stop, Some(message));
    }
    if !matches!(r.state, LocalState::Queued | LocalState::InProgress) {
        r.state = LocalState::Queued;
    }
    (r, Next::Poll(running), None)
}

/// A poll answer.
pub fn after_poll(r: &TaskRecord, result: &Result<VideoTask, ApiError>, ctx: &Ctx) -> Step {
    let mut r = r.clone();
    r.last_polled_at = Some(ctx.now_ms);
    r.updated_at = ctx.now_ms;
    match result {
        Ok(task) => {
            r.poll_count += 1;
            r.poll_failures = 0;
            apply_status(r, task, ctx)
        }
        Err(err @ ApiError::NotFound { .. }) => {
            r.state = LocalState::Lost;
            r.finished_at = Some(ctx.now_ms);
            let message = format!("{err}, although it gave this id; the task is lost");
            r.error = Some(json!({ "message": message, "body": error_json(err).get("body").cloned() }));
            Step { record: r, event: Some(Entry::said(message)), next: Next::Stop }
        }
        Err(err) => {
            r.poll_failures += 1;
            let wait = err.retry_after().unwrap_or_else(|| backoff(&ctx.policy, r.poll_failures as u32, ctx.jitter));
            let stalls = age(&r, ctx.now_ms) > ctx.policy.client_timeout && r.state != LocalState::Stalled;
            if stalls {
                r.state = LocalState::Stalled;
            }
            let event = stalls.then(|| {
                Entry::said(format!(
                    "not finished after {} s; still checked, slowly",
                    ctx.policy.client_timeout.as_secs()
                ))
            });
            Step { record: r, event, next: Next::Poll(wait) }
        }
    }
}

/// Longest wait between two sends of a task while the service cannot be reached: the health
/// tracker's pause, which ends at the first answer, usually ends it sooner.
pub const OUTAGE_RETRY: Duration = Duration::from_secs(30);

/// A send that provably did not take effect: the task is `waiting` again (nothing of it reached
/// the service, so a crash now cannot make it ambiguous), with the reason shown; the reason is
/// recorded once, not at every retry.
fn waits(mut r: TaskRecord, why: String, next: Next) -> Step {
    let said_before = r.error.as_ref().and_then(message_of).is_some_and(|m| m == why);
    r.state = LocalState::Waiting;
    r.error = Some(json!({ "message": why }));
    Step { event: (!said_before).then(|| Entry::said(why)), record: r, next }
}

/// Whether a failed POST provably did not create a task, so that sending it again is safe:
/// it never left, or the service said it did not take it (429, 503).
pub fn safe_to_resend(err: &ApiError) -> bool {
    err.never_sent() || matches!(err, ApiError::RateLimited { .. } | ApiError::Server { status: 503, .. })
}

/// A submission answer; `attempts` counts the sends of this task that did not take effect,
/// this one included.
pub fn after_submit(r: &TaskRecord, result: &Result<VideoTask, ApiError>, attempts: u32, ctx: &Ctx) -> Step {
    let mut r = r.clone();
    r.updated_at = ctx.now_ms;
    match result {
        Ok(task) if unusable_task_id(&task.id).is_some() => {
            let why = unusable_task_id(&task.id).unwrap_or_default();
            let shown: String = task.id.chars().take(80).flat_map(char::escape_debug).collect();
            let message = format!(
                "the service accepted the task but answered with an id reel cannot use safely ({why}: \"{shown}\"); \
                 it cannot be followed"
            );
            r.state = LocalState::Lost;
            r.submitted_at = Some(ctx.now_ms);
            r.finished_at = Some(ctx.now_ms);
            r.error = Some(json!({ "message": message, "id": shown }));
            Step { record: r, event: Some(Entry::said(message)), next: Next::Stop }
        }
        Ok(task) => {
            r.remote_id = Some(task.id.clone());
            r.submitted_at = Some(ctx.now_ms);
            // A reason it waited for (an outage, a refused key) is over.
            r.error = None;
            let mut step = apply_status(r, task, ctx);
            if let Next::Poll(_) = step.next {
                step.next = Next::Poll(ctx.policy.first_poll);
            }
            step.event.get_or_insert(Entry::Bare);
            step
        }
        Err(err) if refuses_key(err, true) => {
            // The queue scopes a refusal first (`key_scope`); one that comes here unscoped is
            // reel's own key, and the profile waits for a working one.
            waits(r, format!("not sent: {err}; it waits for a working key"), Next::Resend(key_wait(attempts.max(1))))
        }
        Err(err @ ApiError::RateLimited { retry_after, .. }) => {
            let wait = retry_after.unwrap_or_else(|| backoff(&ctx.policy, attempts.max(1), ctx.jitter));
            waits(r, format!("not sent: {err}; sent again when the service allows"), Next::Resend(wait))
        }
        Err(err @ ApiError::Unsendable(_)) => {
            // Nothing left: the profile's body form cannot carry it, and sending again changes nothing.
            r.state = LocalState::Rejected;
            r.error = Some(error_json(err));
            r.finished_at = Some(ctx.now_ms);
            Step { record: r, event: Some(Entry::said(err.to_string())), next: Next::Stop }
        }
        Err(err) if err.never_sent() && !matches!(err, ApiError::BadUrl { .. }) => {
            // An outage is not a rejection: the task waits for the service, however long.
            let wait = backoff(&ctx.policy, attempts.max(1), ctx.jitter).min(OUTAGE_RETRY);
            waits(r, format!("not sent: {err}; sent when the service answers"), Next::Resend(wait))
        }
        Err(err) if safe_to_resend(err) && attempts < MAX_SEND_ATTEMPTS => {
            let wait = err.retry_after().unwrap_or_else(|| backoff(&ctx.policy, attempts, ctx.jitter));
            waits(r, format!("not sent: {err}; sent again"), Next::Resend(wait))
        }
        Err(err) => {
            let (state, detail) = if safe_to_resend(err) {
                (LocalState::Rejected, format!("not sent: {err}"))
            } else if matches!(
                err,
                ApiError::Rejected { .. }
                    | ApiError::Unauthorized { .. }
                    | ApiError::NotFound { .. }
                    | ApiError::BadUrl { .. }
                    | ApiError::Redirect { .. }
            ) {
                (LocalState::Rejected, err.to_string())
            } else {
                (
                    LocalState::SubmitUnknown,
                    format!("the answer was lost ({err}); not resubmitted, to avoid paying twice"),
                )
            };
            r.state = state;
            r.error = Some(error_json(err));
            r.finished_at = Some(ctx.now_ms);
            Step { record: r, event: Some(Entry::said(detail)), next: Next::Stop }
        }
    }
}

/// The service gave this task the id of another task (`other`): it is followed there, once.
pub fn duplicate_id(r: &TaskRecord, remote_id: &str, other: i64, ctx: &Ctx) -> Step {
    let mut r = r.clone();
    let message = format!(
        "the service gave this task the same id as task {other} ({}); it is followed there, not twice",
        remote_id.chars().flat_map(char::escape_debug).take(80).collect::<String>()
    );
    r.state = LocalState::Lost;
    r.submitted_at = Some(ctx.now_ms);
    r.finished_at = Some(ctx.now_ms);
    r.updated_at = ctx.now_ms;
    r.error = Some(json!({ "message": message, DUPLICATE_OF: other }));
    Step { record: r, event: Some(Entry::said(message)), next: Next::Stop }
}

/// Answers of "not ready yet" from the service's file route before the task is
/// `download_failed` (with back-off: about a quarter of an hour), unless its deadline comes
/// first. They count as attempts.
pub const NOT_READY_TRIES: u32 = 12;

fn past_deadline(r: &TaskRecord, ctx: &Ctx) -> bool {
    r.url_deadline.is_some_and(|d| ctx.now_ms >= d)
}

/// The file is gone before it was saved: `expired`, with the reason.
fn expired(mut r: TaskRecord, message: String, ctx: &Ctx) -> Step {
    r.state = LocalState::Expired;
    r.finished_at = Some(ctx.now_ms);
    r.error = Some(json!({ "message": message }));
    Step { record: r, event: Some(Entry::said(message)), next: Next::Stop }
}

/// A download attempt's end. `max_attempts` failed attempts (not counting the one URL refresh)
/// make the task `download_failed`; a URL that stopped working is re-fetched from the service
/// once, then the service's own file route is tried once, then the task is `expired`. A task
/// without a URL is fetched from that route: "not ready yet" there is tried again with back-off
/// (see [`NOT_READY_TRIES`]) until the task's deadline, and a route with no file makes the task
/// `download_failed` with the reason. A task saved before stays saved: see `keep_saved::keep_saved`.
pub fn after_download(r: &TaskRecord, result: &Result<Saved, FetchError>, max_attempts: u32, ctx: &Ctx) -> Step {
    download_step(r, result, max_attempts, ctx)
}

fn download_step(r: &TaskRecord, result: &Result<Saved, FetchError>, max_attempts: u32, ctx: &Ctx) -> Step {
    let mut r = r.clone();
    r.updated_at = ctx.now_ms;
    match result {
        Ok(saved) => {
            r.state = LocalState::Downloaded;
            r.file_path = Some(saved.path.to_string_lossy().into_owned());
            r.file_size = Some(saved.size as i64);
            r.sha256 = Some(saved.sha256.clone());
            r.file_sha256 = saved.tagged.as_ref().and_then(|t| t.as_ref().ok()).cloned();
            r.finished_at = Some(ctx.now_ms);
            r.progress = Some(100.0);
            let mut detail = format!("saved {} ({} bytes)", saved.path.display(), saved.size);
            match &saved.tagged {
                Some(Ok(_)) => detail.push_str("; its provenance is written into it"),
                Some(Err(why)) => detail.push_str(&format!("; without provenance in it: {why}")),
                None => {}
            }
            Step { record: r, event: Some(Entry::said(detail)), next: Next::Stop }
        }
        Err(FetchError::Gone(e)) if r.url_refreshes == 0 && !from_content(&r) => {
            r.url_refreshes += 1;
            r.state = LocalState::Completed;
            let detail = format!("{e}; asking the service for a fresh URL");
            Step { record: r, event: Some(Entry::said(detail)), next: Next::Poll(Duration::ZERO) }
        }
        Err(FetchError::Gone(e))
            if !from_content(&r)
                && let Some(route) = content_url_of(&r) =>
        {
            // The service may still serve the file itself (OpenAI's does until `expires_at`).
            r.url_refreshes += 1;
            r.url = Some(route);
            r.state = LocalState::Completed;
            let detail = format!("{e}, also after a fresh poll; trying the service's file route once");
            Step { record: r, event: Some(Entry::said(detail)), next: Next::Download }
        }
        Err(FetchError::Gone(e)) => {
            expired(r, format!("{e}, and a fresh poll did not give a working URL; the file was not saved"), ctx)
        }
        Err(FetchError::NoFile { status, message })
            if *status == 410 || r.url_refreshes > 0 || past_deadline(&r, ctx) =>
        {
            let why = if r.url_refreshes > 1 && from_content(&r) {
                // The whole story: the URL, the fresh poll, then the service's own route.
                format!(
                    "its URL stopped working, also after a fresh poll, and the service's file route has no file \
                     ({message}); the file was not saved"
                )
            } else {
                format!("{message}, and its URL no longer works; the file was not saved")
            };
            expired(r, why, ctx)
        }
        Err(FetchError::NoFile { message, .. }) => {
            let message =
                format!("the service says completed but sent no video URL, and {message}; nothing was downloaded");
            download_failed(r, message.clone(), message, ctx)
        }
        Err(FetchError::NotReady(message)) => {
            r.download_attempts += 1;
            let tries = NOT_READY_TRIES.max(max_attempts);
            if past_deadline(&r, ctx) {
                expired(r, format!("{message}, still at the task's deadline; the file was not saved"), ctx)
            } else {
                retry_or_give_up(r, message.clone(), tries, ctx)
            }
        }
        Err(FetchError::DiskFull { .. }) => {
            // Not the transfer's fault and not an attempt: it waits for room (the engine pauses).
            Step { record: r, event: None, next: Next::RetryDownload(super::disk::PROBE) }
        }
        Err(FetchError::Fatal(message)) => {
            r.download_attempts += 1;
            let said = format!("not retried: {message}");
            download_failed(r, message.clone(), said, ctx)
        }
        Err(FetchError::Retry(message)) => {
            r.download_attempts += 1;
            retry_or_give_up(r, message.clone(), max_attempts, ctx)
        }
    }
}

/// The task's download failed for good: `message` kept, `said` on its timeline.
fn download_failed(mut r: TaskRecord, message: String, said: String, ctx: &Ctx) -> Step {
    r.state = LocalState::DownloadFailed;
    r.finished_at = Some(ctx.now_ms);
    r.error = Some(json!({ "message": message }));
    Step { record: r, event: Some(Entry::said(said)), next: Next::Stop }
}

/// After a failed attempt (already counted): another after a back-off, or, past `tries`, done.
fn retry_or_give_up(r: TaskRecord, message: String, tries: u32, ctx: &Ctx) -> Step {
    if r.download_attempts >= i64::from(tries) {
        let said = format!("gave up after {} attempts: {message}", r.download_attempts);
        return download_failed(r, message, said, ctx);
    }
    let wait = backoff(&ctx.policy, r.download_attempts as u32, ctx.jitter);
    Step { record: r, event: None, next: Next::RetryDownload(wait) }
}

#[cfg(test)]
#[path = "transition_tests.rs"]
mod tests;
