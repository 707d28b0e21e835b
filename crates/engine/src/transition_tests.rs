use serde_json::json;

use super::*;
use crate::schedule::Pace;
use reel_api::ErrorBody;

const NOW: i64 = 1_800_000_000_000;

fn record(state: LocalState) -> TaskRecord {
    let mut r = reel_store::fixtures::record(1, state);
    r.remote_id = Some("task_1".into());
    r.created_at = NOW - 10_000;
    r.submitted_at = Some(NOW - 10_000);
    r.remote_created_at = Some(NOW / 1000 - 10);
    r.updated_at = NOW - 10_000;
    r
}

fn ctx() -> Ctx {
    Ctx {
        now_ms: NOW,
        policy: PollPolicy::default(),
        url_ttl: Duration::from_secs(3600),
        pace: Pace::steady(Duration::from_secs(5)),
        jitter: 0.5,
    }
}

fn task(body: serde_json::Value) -> Result<VideoTask, ApiError> {
    Ok(VideoTask::from_json(body).expect("decodes"))
}

fn five_s() -> Next {
    Next::Poll(Duration::from_secs(5))
}

/// (name, state before, answer, state after, next, whether an event is recorded)
type PollCase = (&'static str, LocalState, Result<VideoTask, ApiError>, LocalState, Next, bool);
/// (name, answer, attempts so far, state after, check of what comes next)
type SubmitCase = (&'static str, Result<VideoTask, ApiError>, u32, LocalState, fn(&Next) -> bool);

#[test]
fn poll_answers_table() {
    let slow = Next::Poll(PollPolicy::default().slow);
    let cases: Vec<PollCase> = vec![
        (
            "still queued",
            LocalState::Queued,
            task(json!({"id": "task_1", "status": "queued"})),
            LocalState::Queued,
            five_s(),
            false,
        ),
        (
            "started",
            LocalState::Queued,
            task(json!({"id": "task_1", "status": "in_progress", "progress": 10})),
            LocalState::InProgress,
            five_s(),
            true,
        ),
        (
            "completed",
            LocalState::InProgress,
            task(
                json!({"id": "task_1", "status": "completed", "url": "http://127.0.0.1:1/f.mp4", "completed_at": 1_800_000_000}),
            ),
            LocalState::Completed,
            Next::Download,
            true,
        ),
        (
            "failed",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "failed", "error": {"message": "nsfw"}})),
            LocalState::Failed,
            Next::Stop,
            true,
        ),
        (
            "unknown status",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "processing"})),
            LocalState::Unrecognized,
            slow.clone(),
            true,
        ),
        (
            "completed without url: fetched from the file route",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "completed"})),
            LocalState::Completed,
            Next::Download,
            true,
        ),
        (
            "completed with url null, as OpenAI answers",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "completed", "url": null, "seconds": "4", "size": "1280x720"})),
            LocalState::Completed,
            Next::Download,
            true,
        ),
        (
            "cancelled by the service",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "cancelled"})),
            LocalState::Cancelled,
            Next::Stop,
            true,
        ),
        (
            "expired at the service",
            LocalState::Queued,
            task(json!({"id": "task_1", "status": "expired", "expires_at": 1_700_000_000})),
            LocalState::Expired,
            Next::Stop,
            true,
        ),
        (
            "a status spelled otherwise stays unrecognized",
            LocalState::InProgress,
            task(json!({"id": "task_1", "status": "Cancelled"})),
            LocalState::Unrecognized,
            slow.clone(),
            true,
        ),
        (
            "404",
            LocalState::InProgress,
            Err(ApiError::NotFound { status: 404, message: None, body: ErrorBody::Empty }),
            LocalState::Lost,
            Next::Stop,
            true,
        ),
        (
            "5xx backs off",
            LocalState::InProgress,
            Err(ApiError::Server { status: 502, message: None, retry_after: None }),
            LocalState::InProgress,
            Next::Poll(Duration::from_secs(2)),
            false,
        ),
        (
            "429 waits for Retry-After",
            LocalState::Queued,
            Err(ApiError::RateLimited { retry_after: Some(Duration::from_secs(7)), body: ErrorBody::Empty }),
            LocalState::Queued,
            Next::Poll(Duration::from_secs(7)),
            false,
        ),
    ];
    for (name, from, answer, state, next, event) in cases {
        let step = after_poll(&record(from), &answer, &ctx());
        assert_eq!(step.record.state, state, "{name}");
        assert_eq!(step.next, next, "{name}");
        assert_eq!(step.event.is_some(), event, "{name}: {:?}", step.event);
        assert_eq!(step.record.last_polled_at, Some(NOW), "{name}");
    }
}

#[test]
fn completion_records_url_and_deadline() {
    let with_expiry = task(
        json!({"id": "t", "status": "completed", "url": "http://127.0.0.1:1/f", "completed_at": 1_800_000_000, "expires_at": 1_800_000_600}),
    );
    let step = after_poll(&record(LocalState::InProgress), &with_expiry, &ctx());
    assert_eq!(step.record.url_deadline, Some(1_800_000_600_000), "expires_at wins");
    assert_eq!(step.record.remote_completed_at, Some(1_800_000_000));
    let without =
        task(json!({"id": "t", "status": "completed", "url": "http://127.0.0.1:1/f", "completed_at": 1_800_000_000}));
    let step = after_poll(&record(LocalState::InProgress), &without, &ctx());
    assert_eq!(step.record.url_deadline, Some((1_800_000_000 + 3600) * 1000), "completion plus the TTL");
}

#[test]
fn completed_answers_with_urls_reel_will_not_fetch_end_download_failed_with_the_reason() {
    let long = format!("https://cdn.example/{}", "a".repeat(5000));
    let cases = [
        ("/files/0.mp4", "it is a relative URL, with no server named to fetch it from"),
        ("http://[::1", "it is malformed (invalid IPv6 address)"),
        (long.as_str(), "it is 5020 characters long, more than the 4096 reel fetches"),
        ("file:///etc/passwd", "it is a file: URL; reel fetches only http and https"),
        ("javascript:alert(1)", "it is a javascript: URL; reel fetches only http and https"),
    ];
    for (url, why) in cases {
        let step = after_poll(
            &record(LocalState::InProgress),
            &task(json!({"id": "t", "status": "completed", "url": url})),
            &ctx(),
        );
        let r = &step.record;
        assert_eq!((r.state, &step.next), (LocalState::DownloadFailed, &Next::Stop), "{url:.40}");
        let message = r.error.as_ref().and_then(message_of).unwrap_or_default();
        assert!(message.contains(why) && message.ends_with("nothing was downloaded"), "{url:.40}: {message}");
        assert_eq!(step.event, Some(Entry::said(message)));
        assert!(r.finished_at.is_some() && r.url.is_none(), "{url:.40}");
    }
    let mut saved = record(LocalState::Downloaded);
    saved.file_path = Some("/videos/1.mp4".into());
    let step = after_poll(&saved, &task(json!({"id": "t", "status": "completed", "url": "/files/0.mp4"})), &ctx());
    assert_eq!((step.record.state, step.next), (LocalState::Downloaded, Next::Stop), "a saved file stays saved");
}

#[test]
fn failed_tasks_keep_error_details_and_unknown_statuses_are_shown() {
    let step = after_poll(
        &record(LocalState::InProgress),
        &task(json!({"id": "t", "status": "failed", "error": {"message": "nsfw"}})),
        &ctx(),
    );
    assert_eq!(step.record.error, Some(json!({"message": "nsfw"})));
    assert_eq!(step.event, Some(Entry::Said("nsfw".into())));
    let silent = after_poll(
        &record(LocalState::InProgress),
        &task(json!({"id": "t", "status": "failed", "error": {"message": ""}})),
        &ctx(),
    );
    assert_eq!(silent.event, Some(Entry::Bare), "an empty message is an event without detail");
    let step = after_poll(&record(LocalState::InProgress), &task(json!({"id": "t", "status": "Processing"})), &ctx());
    assert_eq!(step.record.remote_status.as_deref(), Some("Processing"));
    let again = after_poll(&step.record, &task(json!({"id": "t", "status": "Processing"})), &ctx());
    assert_eq!(again.event, None, "the same unknown status is recorded once");
}

#[test]
fn past_the_client_timeout_a_task_stalls_and_is_still_checked() {
    let mut old = record(LocalState::InProgress);
    old.submitted_at = Some(NOW - 601_000);
    let step = after_poll(&old, &task(json!({"id": "t", "status": "in_progress"})), &ctx());
    assert_eq!((step.record.state, step.next.clone()), (LocalState::Stalled, Next::Poll(PollPolicy::default().slow)));
    assert!(step.event.is_some());
    let later = after_poll(
        &step.record,
        &task(json!({"id": "t", "status": "completed", "url": "http://127.0.0.1:1/f"})),
        &ctx(),
    );
    assert_eq!(
        (later.record.state, later.next),
        (LocalState::Completed, Next::Download),
        "a stalled task can still finish"
    );
    let err = after_poll(&old, &Err(ApiError::Timeout { after: Duration::from_secs(30) }), &ctx());
    assert_eq!(err.record.state, LocalState::Stalled, "errors do not keep a task from stalling");
}

#[test]
fn submission_answers_table() {
    let refused = || ApiError::Connect { endpoint: "http://127.0.0.1:1".into(), detail: "refused".into() };
    let cases: Vec<SubmitCase> = vec![
        (
            "accepted",
            task(json!({"id": "task_9", "status": "queued", "created_at": 1_800_000_000})),
            1,
            LocalState::Queued,
            |n| *n == Next::Poll(Duration::from_secs(5)),
        ),
        ("refused, try again", Err(refused()), 1, LocalState::Waiting, |n| matches!(n, Next::Resend(_))),
        (
            "an outage is never a rejection, however long",
            Err(refused()),
            MAX_SEND_ATTEMPTS + 50,
            LocalState::Waiting,
            |n| matches!(n, Next::Resend(d) if *d <= OUTAGE_RETRY),
        ),
        (
            "429 resends after Retry-After, however often",
            Err(ApiError::RateLimited { retry_after: Some(Duration::from_secs(2)), body: ErrorBody::Empty }),
            MAX_SEND_ATTEMPTS + 5,
            LocalState::Waiting,
            |n| *n == Next::Resend(Duration::from_secs(2)),
        ),
        (
            "503 resends",
            Err(ApiError::Server { status: 503, message: None, retry_after: None }),
            1,
            LocalState::Waiting,
            |n| matches!(n, Next::Resend(_)),
        ),
        (
            "503 three times: the model has no channel",
            Err(ApiError::Server { status: 503, message: None, retry_after: None }),
            MAX_SEND_ATTEMPTS,
            LocalState::Rejected,
            |n| *n == Next::Stop,
        ),
        (
            "500 may have created it",
            Err(ApiError::Server { status: 500, message: None, retry_after: None }),
            1,
            LocalState::SubmitUnknown,
            |n| *n == Next::Stop,
        ),
        ("lost answer", Err(ApiError::Network { detail: "reset".into() }), 1, LocalState::SubmitUnknown, |n| {
            *n == Next::Stop
        }),
        ("timeout", Err(ApiError::Timeout { after: Duration::from_secs(30) }), 1, LocalState::SubmitUnknown, |n| {
            *n == Next::Stop
        }),
        (
            "garbled answer",
            Err(ApiError::Undecodable { status: 200, problem: "eof".into(), snippet: "{".into() }),
            1,
            LocalState::SubmitUnknown,
            |n| *n == Next::Stop,
        ),
        (
            "400",
            Err(ApiError::Rejected {
                status: 400,
                message: Some("bad seconds".into()),
                body: ErrorBody::Json(json!({"error": {"message": "bad seconds"}})),
            }),
            1,
            LocalState::Rejected,
            |n| *n == Next::Stop,
        ),
        (
            "401 waits for a key",
            Err(ApiError::Unauthorized { status: 401, message: None }),
            1,
            LocalState::Waiting,
            |n| *n == Next::Resend(KEY_WAIT),
        ),
        (
            "403 on a submission waits for a key",
            Err(ApiError::Rejected { status: 403, message: None, body: ErrorBody::Empty }),
            1,
            LocalState::Waiting,
            |n| *n == Next::Resend(KEY_WAIT),
        ),
    ];
    for (name, answer, attempts, state, next) in cases {
        let step = after_submit(&record(LocalState::Submitting), &answer, attempts, &ctx());
        assert_eq!(step.record.state, state, "{name}");
        assert!(next(&step.next), "{name}: {:?}", step.next);
        if matches!(state, LocalState::Rejected | LocalState::SubmitUnknown | LocalState::Waiting) {
            assert!(step.record.error.is_some() && step.event.is_some(), "{name}: the reason is shown");
        }
    }
    let ok =
        after_submit(&record(LocalState::Submitting), &task(json!({"id": "task_9", "status": "queued"})), 1, &ctx());
    assert_eq!((ok.record.remote_id.as_deref(), ok.record.submitted_at), (Some("task_9"), Some(NOW)));
    assert!(ok.event.is_some(), "acceptance is always an event");
    let rejected = after_submit(
        &record(LocalState::Submitting),
        &Err(ApiError::Rejected {
            status: 400,
            message: Some("m".into()),
            body: ErrorBody::Json(json!({"error": "m"})),
        }),
        1,
        &ctx(),
    );
    assert_eq!(
        rejected.record.error.expect("kept")["body"],
        json!({"error": "m"}),
        "the server's body is kept as it came"
    );
}

#[test]
fn download_outcomes_table() {
    use std::path::PathBuf;
    let saved = || Ok(Saved { path: PathBuf::from("/v/1.mp4"), size: 3, sha256: "abc".into(), tagged: None });
    let gone = || Err(FetchError::Gone(ApiError::UrlGone { status: 410 }));
    let retry = || Err(FetchError::Retry("reset".into()));
    let full = || {
        let source = std::io::Error::from_raw_os_error(libc::ENOSPC);
        Err(FetchError::DiskFull { dir: PathBuf::from("/v"), needed: Some(3), source })
    };
    use crate::disk::PROBE;
    // (name, url refreshes so far, attempts so far, outcome, state after, next)
    type Case = (&'static str, i64, i64, Result<Saved, FetchError>, LocalState, Next);
    let cases: Vec<Case> = vec![
        ("saved", 0, 0, saved(), LocalState::Downloaded, Next::Stop),
        ("url dead: refresh once", 0, 0, gone(), LocalState::Completed, Next::Poll(Duration::ZERO)),
        ("url dead again: the file route is tried once", 1, 0, gone(), LocalState::Completed, Next::Download),
        ("broken: retry later", 0, 0, retry(), LocalState::Downloading, Next::RetryDownload(Duration::from_secs(2))),
        ("broken too often: give up", 0, 2, retry(), LocalState::DownloadFailed, Next::Stop),
        ("disk full: waits, not an attempt", 0, 2, full(), LocalState::Downloading, Next::RetryDownload(PROBE)),
        (
            "cannot work: give up at once",
            0,
            0,
            Err(FetchError::Fatal("ftp".into())),
            LocalState::DownloadFailed,
            Next::Stop,
        ),
    ];
    for (name, refreshes, attempts, result, state, next) in cases {
        let mut r = record(LocalState::Downloading);
        r.url = Some("https://cdn.example/v.mp4?sig=1".into());
        r.url_refreshes = refreshes;
        r.download_attempts = attempts;
        let step = after_download(&r, &result, 3, &ctx());
        assert_eq!((step.record.state, step.next), (state, next), "{name}");
        if name.starts_with("disk full") {
            assert_eq!(step.record.download_attempts, attempts, "{name}");
        }
        assert_eq!(step.event.is_some(), state != LocalState::Downloading, "{name}: an event per state change");
        if state == LocalState::Downloaded {
            assert_eq!(step.record.sha256.as_deref(), Some("abc"));
            assert_eq!(step.record.file_size, Some(3));
        }
    }
}

/// What a gateway (new-api) answers, through the same transitions as the spec's shapes.
#[test]
fn gateway_answers_table() {
    let young = record(LocalState::Queued);
    let mut old = record(LocalState::Queued);
    old.submitted_at = Some(NOW - 601_000);
    let mut known_long_ago = record(LocalState::InProgress);
    known_long_ago.remote_status = Some("in_progress".into());
    known_long_ago.progress = Some(30.0);
    known_long_ago.submitted_at = Some(NOW - 25 * 3600 * 1000);
    let known_late = TaskRecord { submitted_at: Some(NOW - 700_000), ..known_long_ago.clone() };
    let mut unknown_again = known_late.clone();
    unknown_again.remote_status = Some("unknown".into());
    let url = "https://dashscope-result.example.com/v.mp4?Expires=9";
    let gateway = |status: &str, meta: serde_json::Value| {
        task(json!({"id": "t", "task_id": "t", "object": "video", "status": status, "progress": 30,
                    "completed_at": 1_800_000_000, "seconds": "5", "size": "720P", "metadata": meta}))
    };
    // (name, task before, answer, state after, what next)
    type Case = (&'static str, TaskRecord, Result<VideoTask, ApiError>, LocalState, fn(&Next) -> bool);
    let cases: Vec<Case> = vec![
        (
            "unknown while young is polled like queued",
            young.clone(),
            gateway("unknown", json!({"url": ""})),
            LocalState::Queued,
            |n| matches!(n, Next::Poll(d) if *d <= Duration::from_secs(90)),
        ),
        (
            "unknown right after the send",
            record(LocalState::Submitting),
            gateway("unknown", json!({"url": ""})),
            LocalState::Queued,
            |n| matches!(n, Next::Poll(_)),
        ),
        (
            "unknown past the client timeout: lost",
            old.clone(),
            gateway("unknown", json!({"url": ""})),
            LocalState::Lost,
            |n| *n == Next::Stop,
        ),
        (
            "a task it knew says unknown past the client timeout: stalled, still checked",
            known_late,
            gateway("unknown", json!({"url": ""})),
            LocalState::Stalled,
            |n| *n == Next::Poll(PollPolicy::default().slow),
        ),
        (
            "and again: still stalled, not lost",
            unknown_again,
            gateway("unknown", json!({"url": ""})),
            LocalState::Stalled,
            |n| *n == Next::Poll(PollPolicy::default().slow),
        ),
        (
            "unknown past the vendor's retention after in_progress: lost",
            known_long_ago,
            gateway("unknown", json!({"url": ""})),
            LocalState::Lost,
            |n| *n == Next::Stop,
        ),
        (
            "running with completed_at and an empty url",
            young.clone(),
            gateway("in_progress", json!({"url": ""})),
            LocalState::InProgress,
            |n| matches!(n, Next::Poll(_)),
        ),
        (
            "completed with the url in metadata.url",
            young.clone(),
            gateway("completed", json!({"url": url})),
            LocalState::Completed,
            |n| *n == Next::Download,
        ),
        (
            "completed with metadata.video_url",
            young.clone(),
            gateway("completed", json!({"url": "", "video_url": url})),
            LocalState::Completed,
            |n| *n == Next::Download,
        ),
        (
            "failed with its text in metadata.url",
            young.clone(),
            gateway("failed", json!({"url": "DataInspectionFailed"})),
            LocalState::Failed,
            |n| *n == Next::Stop,
        ),
        (
            "task_not_exist for an id it gave",
            young.clone(),
            Err(reel_api::error::error_for_status(
                reel_api::error::Endpoint::Api,
                400,
                None,
                br#"{"code":"task_not_exist","message":"task_not_exist","data":null}"#,
            )),
            LocalState::Lost,
            |n| *n == Next::Stop,
        ),
    ];
    for (name, before, answer, state, next) in cases {
        let step = after_poll(&before, &answer, &ctx());
        assert_eq!(step.record.state, state, "{name}");
        assert!(next(&step.next), "{name}: {:?}", step.next);
        assert_ne!(step.record.state, LocalState::Downloaded, "{name}");
        if state == LocalState::Lost {
            let message = step.record.error.as_ref().and_then(reel_api::types::message_of).unwrap_or_default();
            assert!(message.contains("lost") || message.contains("no task"), "{name}: {message}");
        }
    }
    let failed =
        after_poll(&young, &gateway("failed", json!({"url": "DataInspectionFailed (request id: 42)"})), &ctx());
    assert_eq!(
        failed.event,
        Some(Entry::said("DataInspectionFailed (request id: 42)")),
        "the failure text is the message"
    );
    let done = after_poll(&young, &gateway("completed", json!({"url": url})), &ctx());
    assert_eq!(done.record.url.as_deref(), Some(url));
    let running = after_poll(&young, &gateway("in_progress", json!({"url": ""})), &ctx());
    assert_eq!(running.record.remote_completed_at, None, "completed_at means nothing before completed");
}

/// Downloads from the service's own file route (`/v1/videos/{id}/content`), for a task the
/// service answered without a URL or whose URL died.
#[test]
fn file_route_outcomes_table() {
    let route = "http://127.0.0.1:1/v1/videos/task_1/content";
    let not_ready = || Err(FetchError::NotReady("the service's file is not ready yet (HTTP 404)".into()));
    let no_file =
        |status| Err(FetchError::NoFile { status, message: format!("the service serves no file (HTTP {status})") });
    let gone = || Err(FetchError::Gone(ApiError::UrlGone { status: 403 }));
    let later = NOW + 60_000;
    // (name, url refreshes so far, attempts so far, deadline, outcome, state after, next)
    type Case = (&'static str, i64, i64, i64, Result<Saved, FetchError>, LocalState, fn(&Next) -> bool);
    let cases: Vec<Case> = vec![
        ("not ready: again later", 0, 0, later, not_ready(), LocalState::Downloading, |n| {
            *n == Next::RetryDownload(Duration::from_secs(2))
        }),
        (
            "not ready for long: backs off",
            0,
            5,
            later,
            not_ready(),
            LocalState::Downloading,
            |n| matches!(n, Next::RetryDownload(d) if *d > Duration::from_secs(30)),
        ),
        ("not ready past the attempts of other errors", 0, 3, later, not_ready(), LocalState::Downloading, |n| {
            matches!(n, Next::RetryDownload(_))
        }),
        ("not ready too often: download_failed", 0, 11, later, not_ready(), LocalState::DownloadFailed, |n| {
            *n == Next::Stop
        }),
        ("not ready at the deadline: expired", 0, 0, NOW, not_ready(), LocalState::Expired, |n| *n == Next::Stop),
        ("no such route: download_failed", 0, 0, later, no_file(405), LocalState::DownloadFailed, |n| *n == Next::Stop),
        ("no file for good: download_failed", 0, 0, later, no_file(404), LocalState::DownloadFailed, |n| {
            *n == Next::Stop
        }),
        ("gone for good: expired", 0, 0, later, no_file(410), LocalState::Expired, |n| *n == Next::Stop),
        ("no file past the deadline: expired", 0, 0, NOW - 1, no_file(404), LocalState::Expired, |n| *n == Next::Stop),
        ("no file after the URL died: expired", 2, 0, later, no_file(404), LocalState::Expired, |n| *n == Next::Stop),
        ("refused by the route after the URL died: expired", 2, 0, later, gone(), LocalState::Expired, |n| {
            *n == Next::Stop
        }),
    ];
    for (name, refreshes, attempts, deadline, result, state, next) in cases {
        let mut r = record(LocalState::Downloading);
        r.url = Some(route.into());
        r.url_deadline = Some(deadline);
        r.url_refreshes = refreshes;
        r.download_attempts = attempts;
        let step = after_download(&r, &result, 3, &ctx());
        assert_eq!(step.record.state, state, "{name}");
        assert!(next(&step.next), "{name}: {:?}", step.next);
        if step.next == Next::Stop {
            let said = step.record.error.as_ref().and_then(message_of).unwrap_or_default();
            assert!(
                said.contains("HTTP") && said.contains("not saved")
                    || said.contains("nothing was downloaded")
                    || said.contains("not ready"),
                "{name}: {said}"
            );
        }
    }
    // The poll that says completed without a URL points the download at the route.
    let done = after_poll(
        &record(LocalState::InProgress),
        &task(json!({"id": "task_1", "status": "completed", "expires_at": 1_800_000_900, "usage": {"seconds": 4}})),
        &ctx(),
    );
    assert_eq!(done.record.url.as_deref(), Some(route));
    assert_eq!(done.record.url_deadline, Some(1_800_000_900_000), "expires_at is the deadline");
    // A plain URL that died twice is tried at the route once, which is recorded.
    let mut dead = record(LocalState::Downloading);
    dead.url = Some("https://cdn.example/v.mp4".into());
    dead.url_refreshes = 1;
    let step = after_download(&dead, &Err(FetchError::Gone(ApiError::UrlGone { status: 403 })), 3, &ctx());
    assert_eq!((step.record.url.as_deref(), step.record.url_refreshes), (Some(route), 2));
    // An id that cannot name a route is never fetched there.
    let mut odd = record(LocalState::InProgress);
    odd.remote_id = Some("..".into());
    let step = after_poll(&odd, &task(json!({"id": "..", "status": "completed"})), &ctx());
    assert_eq!(step.record.state, LocalState::Unrecognized);
}

#[test]
fn service_ends_without_a_video_say_why() {
    let cancelled = after_poll(
        &record(LocalState::InProgress),
        &task(json!({"id": "task_1", "status": "cancelled", "error": {"code": "cancelled", "message": "by the user"}})),
        &ctx(),
    );
    let said = cancelled.record.error.as_ref().and_then(message_of);
    assert_eq!(said.as_deref(), Some("the service cancelled this task (it said: by the user); no video was saved"));
    assert_eq!(cancelled.record.error.as_ref().map(|e| e["body"]["code"].clone()), Some(json!("cancelled")));
    assert_eq!(cancelled.record.finished_at, Some(NOW));
    let expired = after_poll(&record(LocalState::Queued), &task(json!({"id": "task_1", "status": "expired"})), &ctx());
    assert_eq!(
        expired.event.and_then(|e| e.detail().map(str::to_string)).as_deref(),
        Some("the service says this task's video expired before it was saved; no video was saved")
    );
}

#[test]
fn a_saved_file_keeps_the_service_sum_and_records_its_own_once_tagged() {
    use std::path::PathBuf;
    let saved = |tagged| Ok(Saved { path: PathBuf::from("/v/1.mp4"), size: 3, sha256: "abc".into(), tagged });
    let cases = [
        (None, None, "saved /v/1.mp4 (3 bytes)"),
        (Some(Ok("def".to_string())), Some("def"), "saved /v/1.mp4 (3 bytes); its provenance is written into it"),
        (
            Some(Err("ffmpeg is not installed".to_string())),
            None,
            "saved /v/1.mp4 (3 bytes); without provenance in it: ffmpeg is not installed",
        ),
    ];
    for (tagged, file_sha, detail) in cases {
        let step = after_download(&record(LocalState::Downloading), &saved(tagged), 3, &ctx());
        assert_eq!(step.record.sha256.as_deref(), Some("abc"), "the service's bytes");
        assert_eq!(step.record.file_sha256.as_deref(), file_sha);
        assert_eq!(step.event.and_then(|e| e.detail().map(str::to_string)).as_deref(), Some(detail));
    }
}

/// A gateway that dropped what was asked renders at its vendor's defaults and says so: the
/// task keeps what it says (a later answer without it keeps it), bills what was rendered, and
/// says once that it differs.
#[test]
fn what_the_service_says_it_rendered_is_kept_billed_and_said_once() {
    let mut r = record(LocalState::InProgress);
    (r.seconds, r.resolution, r.ratio, r.billed_seconds) = (5, "720P".into(), "16:9".into(), Some(5.0));
    let done = json!({
        "id": "task_1", "status": "completed", "url": "http://127.0.0.1:1/f.mp4", "seconds": "8.0",
        "size": "1920*1080", "usage": {"completion_tokens": 20}
    });
    let step = after_poll(&r, &task(done.clone()), &ctx());
    let t = &step.record;
    assert_eq!((t.rendered.size.as_deref(), t.rendered.seconds), (Some("1920x1080"), Some(8.0)));
    assert_eq!(t.rendered.usage, Some(json!({"completion_tokens": 20})));
    assert_eq!(t.billed_seconds, Some(8.0), "billed as rendered");
    assert_eq!(
        step.event.as_ref().and_then(Entry::detail),
        Some("the service says: asked 720P 16:9 5 s, rendered 1920x1080 8 s")
    );
    let again =
        after_poll(t, &task(json!({"id": "task_1", "status": "completed", "url": "http://127.0.0.1:1/f.mp4"})), &ctx());
    assert_eq!(again.record.rendered, t.rendered, "an answer that does not say keeps what was said");
    assert_eq!(again.event, None, "said once");
    let as_asked = json!({"id": "task_1", "status": "in_progress", "seconds": "5", "size": "1280x720"});
    let step = after_poll(&record(LocalState::InProgress), &task(as_asked), &ctx());
    assert!(step.event.is_none() && !step.record.rendered_otherwise(), "what was asked says nothing");
}
