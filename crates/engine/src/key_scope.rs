//! What a refused key concerns: reel's own key (the whole profile waits), or one model's (a
//! gateway whose vendor key for that model group is wrong answers 401 or 403 for it alone, while
//! its other models work). Pure: the answer, the task's model and whether other models work in;
//! the scope, and what the refusal does to the task, out.

use serde_json::json;

use super::timeline::Entry;
use super::transition::{Ctx, Next, Step, key_wait};
use reel_api::ApiError;
use reel_api::types::message_of;
use reel_store::{LocalState, TaskRecord};

/// Whom a refusal concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// reel's own key: nothing is sent until a working key is in use.
    Profile,
    /// The service's key for this task's model: only that model's tasks wait.
    Model,
}

/// Sends of a task refused for its model before it is `rejected`: the refusal is the service's
/// word on that model, which a few minutes of waiting give its admin time to mend, and no more.
pub const MAX_MODEL_REFUSALS: u32 = 4;

/// Words a gateway (new-api and its forks) uses for its own token, reel's key: a refusal that
/// says so is the profile's, whatever else works.
const OWN_KEY_WORDS: [&str; 6] =
    ["invalid token", "token not provided", "token has expired", "token quota", "token status", "令牌"];
/// Words of a gateway's refusal for one model's upstream: its channel, the model group.
const MODEL_WORDS: [&str; 5] = ["channel", "group", "upstream", "渠道", "分组"];

/// The service's words in a refusal, if it said any.
fn words(err: &ApiError) -> Option<&str> {
    match err {
        ApiError::Unauthorized { message, .. } | ApiError::Rejected { message, .. } => message.as_deref(),
        _ => None,
    }
}

/// Whether an answer refuses a key, and whose: a 401 anywhere or a 403 on a submission is a
/// refused key (gateways answer 403 for a key without access or credit). It is the model's when
/// its words name the model or a gateway's channel or model group, or when other models'
/// requests work; the profile's when it names the gateway's own token, or nothing else works.
pub fn scope(err: &ApiError, submitting: bool, model: &str, others_work: bool) -> Option<Scope> {
    let refused = matches!(err, ApiError::Unauthorized { .. })
        || (submitting && matches!(err, ApiError::Rejected { status: 403, .. }));
    if !refused {
        return None;
    }
    let said = words(err).unwrap_or_default().to_lowercase();
    let names_model = !model.trim().is_empty() && said.contains(&model.trim().to_lowercase());
    Some(if names_model {
        Scope::Model
    } else if OWN_KEY_WORDS.iter().any(|w| said.contains(w)) {
        Scope::Profile
    } else if others_work || MODEL_WORDS.iter().any(|w| said.contains(w)) {
        Scope::Model
    } else {
        Scope::Profile
    })
}

/// `HTTP 401: words`, the refusal in the service's words.
fn shown(err: &ApiError) -> String {
    let status = match err {
        ApiError::Unauthorized { status, .. } | ApiError::Rejected { status, .. } => *status,
        _ => 0,
    };
    match words(err) {
        Some(w) => format!("HTTP {status}: {w}"),
        None => format!("HTTP {status}"),
    }
}

/// A send the service refused a key for (`refusals`: this task's refused sends, this one
/// included). A refused send made no task, so sending again is safe: the profile's waits for a
/// working key, the model's waits longer each time and is `rejected` after
/// [`MAX_MODEL_REFUSALS`], with the service's words. The reason is recorded once.
pub fn after_refused_send(r: &TaskRecord, err: &ApiError, scope: Scope, refusals: u32, ctx: &Ctx) -> Step {
    let mut r = r.clone();
    r.updated_at = ctx.now_ms;
    let wait = key_wait(refusals);
    let why = match scope {
        Scope::Profile => format!("not sent: {err}; it waits for a working key"),
        Scope::Model if refusals >= MAX_MODEL_REFUSALS => {
            let message = format!(
                "not sent: the service refused the key for model {} {refusals} times ({}); the gateway's \
                 key for this model is wrong or missing (nothing was created, so nothing is billed)",
                r.model,
                shown(err)
            );
            r.state = LocalState::Rejected;
            r.finished_at = Some(ctx.now_ms);
            r.error = Some(json!({ "message": message, "body": err_body(err) }));
            return Step { record: r, event: Some(Entry::said(message)), next: Next::Stop };
        }
        Scope::Model => format!(
            "not sent: the service refused the key for model {} ({}); other models go on, this one is tried \
             again in {} s",
            r.model,
            shown(err),
            wait.as_secs()
        ),
    };
    // Said once: the same words at every retry would flood the timeline.
    let said_before = r.error.as_ref().and_then(message_of).is_some_and(|m| same_but_wait(&m, &why));
    r.state = LocalState::Waiting;
    r.error = Some(json!({ "message": why }));
    Step { event: (!said_before).then(|| Entry::said(why)), record: r, next: Next::Resend(wait) }
}

/// The same reason, the wait it names aside.
fn same_but_wait(a: &str, b: &str) -> bool {
    let cut = |s: &str| s.rsplit_once(" again in ").map_or(s.to_string(), |(head, _)| head.to_string());
    cut(a) == cut(b)
}

fn err_body(err: &ApiError) -> serde_json::Value {
    match err {
        ApiError::Rejected { body, .. } => body.to_json(),
        _ => serde_json::Value::Null,
    }
}

/// A poll the service refused for the task's model: checked again with back-off like any failed
/// poll, the others' polls going on; the first says why.
pub fn after_refused_poll(r: &TaskRecord, err: &ApiError, ctx: &Ctx) -> Step {
    let mut step = super::transition::after_poll(r, &Err(clone_refusal(err)), ctx);
    if step.record.poll_failures == 1 && step.event.is_none() {
        let said = format!(
            "the service refused the key for model {} when asked about this task ({}); checked again with \
             back-off, other tasks go on",
            step.record.model,
            shown(err)
        );
        step.event = Some(Entry::said(said));
    }
    step
}

/// The refusal again, for `after_poll`'s bookkeeping (an `ApiError` is not `Clone`).
fn clone_refusal(err: &ApiError) -> ApiError {
    match err {
        ApiError::Unauthorized { status, message } => {
            ApiError::Unauthorized { status: *status, message: message.clone() }
        }
        ApiError::Rejected { status, message, body } => {
            ApiError::Rejected { status: *status, message: message.clone(), body: body.clone() }
        }
        other => ApiError::Network { detail: other.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::schedule::{Pace, PollPolicy};
    use crate::transition::MAX_KEY_WAIT;
    use reel_api::ErrorBody;

    const MODEL: &str = "wan2.5-t2v-preview";

    fn unauthorized(message: &str) -> ApiError {
        ApiError::Unauthorized { status: 401, message: (!message.is_empty()).then(|| message.to_string()) }
    }

    fn forbidden(message: &str) -> ApiError {
        ApiError::Rejected { status: 403, message: Some(message.into()), body: ErrorBody::Empty }
    }

    #[test]
    fn which_refusals_are_a_models() {
        use Scope::*;
        // (name, error, submitting, others work, scope)
        let cases: Vec<(&str, ApiError, bool, bool, Option<Scope>)> = vec![
            ("new-api's own token", unauthorized("Invalid token (request id: 1)"), true, true, Some(Profile)),
            ("an expired token", unauthorized("This token has expired"), false, true, Some(Profile)),
            ("a bare 401, nothing else works", unauthorized(""), true, false, Some(Profile)),
            ("a bare 401 while other models work", unauthorized(""), true, true, Some(Model)),
            (
                "the vendor's key, relayed, while others work",
                unauthorized("Incorrect API key provided: sk-ab***cd"),
                true,
                true,
                Some(Model),
            ),
            ("the vendor's key, alone", unauthorized("Incorrect API key provided"), true, false, Some(Profile)),
            (
                "names the model",
                forbidden("This token has no access to model wan2.5-t2v-preview"),
                true,
                false,
                Some(Model),
            ),
            (
                "names the model, any case",
                unauthorized("model WAN2.5-T2V-PREVIEW: InvalidApiKey"),
                false,
                false,
                Some(Model),
            ),
            (
                "a channel's words",
                unauthorized("No available channel for model x under group default"),
                true,
                false,
                Some(Model),
            ),
            ("a group's words in Chinese", unauthorized("当前分组上游负载已饱和"), true, false, Some(Model)),
            ("a 403 on a poll is the task's", forbidden("forbidden"), false, true, None),
            ("a 403 on a send", forbidden("no credit"), true, false, Some(Profile)),
            (
                "a 400 is never a key",
                ApiError::Rejected { status: 400, message: Some("invalid api key".into()), body: ErrorBody::Empty },
                true,
                false,
                None,
            ),
            ("a 500 is not", ApiError::Server { status: 500, message: None, retry_after: None }, true, true, None),
        ];
        for (name, err, submitting, others, want) in cases {
            assert_eq!(scope(&err, submitting, MODEL, others), want, "{name}");
        }
    }

    #[test]
    fn a_refused_send_waits_longer_each_time() {
        let waits: Vec<u64> = (1..=8).map(|n| key_wait(n).as_secs()).collect();
        assert_eq!(waits, vec![60, 120, 240, 480, 960, 1800, 1800, 1800]);
    }

    fn ctx() -> Ctx {
        Ctx {
            now_ms: 1_800_000_000_000,
            policy: PollPolicy::default(),
            url_ttl: Duration::from_secs(3600),
            pace: Pace::steady(Duration::from_secs(5)),
            jitter: 0.5,
        }
    }

    #[test]
    fn a_models_refused_send_is_held_then_rejected_with_the_services_words() {
        let mut r = reel_store::fixtures::record(1, LocalState::Submitting);
        r.model = MODEL.into();
        let err = unauthorized("Incorrect API key provided (request id: 7)");
        let mut events = 0;
        for n in 1..MAX_MODEL_REFUSALS {
            let step = after_refused_send(&r, &err, Scope::Model, n, &ctx());
            assert_eq!((step.record.state, step.next.clone()), (LocalState::Waiting, Next::Resend(key_wait(n))), "{n}");
            events += usize::from(step.event.is_some());
            r = TaskRecord { state: LocalState::Submitting, ..step.record };
        }
        assert_eq!(events, 1, "the reason is said once, not at every retry");
        let message = r.error.as_ref().and_then(message_of).unwrap_or_default();
        assert!(message.contains("other models go on") && message.contains("request id: 7"), "{message}");
        let last = after_refused_send(&r, &err, Scope::Model, MAX_MODEL_REFUSALS, &ctx());
        assert_eq!((last.record.state, last.next), (LocalState::Rejected, Next::Stop));
        let message = last.record.error.as_ref().and_then(message_of).unwrap_or_default();
        assert!(message.contains(MODEL) && message.contains("Incorrect API key provided"), "{message}");
        let profile = after_refused_send(&r, &err, Scope::Profile, 9, &ctx());
        assert_eq!(
            (profile.record.state, profile.next),
            (LocalState::Waiting, Next::Resend(MAX_KEY_WAIT)),
            "reel's own key: the task waits for a working key, however long"
        );
    }

    #[test]
    fn a_models_refused_poll_backs_off_and_says_why_once() {
        let mut r = reel_store::fixtures::record(1, LocalState::InProgress);
        r.model = MODEL.into();
        let err = unauthorized("");
        let first = after_refused_poll(&r, &err, &ctx());
        assert_eq!(first.record.state, LocalState::InProgress);
        assert!(first.event.as_ref().and_then(Entry::detail).is_some_and(|d| d.contains(MODEL)), "{first:?}");
        let second = after_refused_poll(&first.record, &err, &ctx());
        assert_eq!(second.event, None);
        let (Next::Poll(a), Next::Poll(b)) = (first.next, second.next) else { panic!("polled again") };
        assert!(b > a, "{a:?} then {b:?}");
    }
}
