//! The pure core without a runtime or a network: time is a value, answers are made up.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::recover;
use reel_api::ErrorBody;
use reel_store::fixtures::record;

const T0: i64 = 1_800_000_010_000;

fn limits() -> Limits {
    Limits {
        policy: PollPolicy::default(),
        url_ttl: Duration::from_secs(3600),
        max_in_flight: 16,
        max_downloads: 4,
        download_attempts: 3,
    }
}

fn queue(limits: Limits) -> (Queue, Now) {
    learned(limits, &[])
}

/// A queue that has learned these total times (seconds) for the fixtures' model.
fn learned(limits: Limits, samples: &[f64]) -> (Queue, Now) {
    let stats = if samples.is_empty() {
        RenderStats::default()
    } else {
        RenderStats::new(HashMap::from([(record(0, LocalState::Waiting).model, samples.to_vec())]))
    };
    (Queue::new(limits, stats, fastrand::Rng::with_seed(7)), Now { at: Instant::now(), ms: T0 })
}

/// `n` total times spread evenly from `from` to `to` seconds.
fn spread(from: f64, to: f64, n: usize) -> Vec<f64> {
    (0..n).map(|i| from + (to - from) * i as f64 / (n - 1) as f64).collect()
}

/// A running task `age` seconds old.
fn aged(id: i64, age: i64) -> TaskRecord {
    let r = record(id, LocalState::InProgress);
    TaskRecord { submitted_at: Some(T0 - age * 1000), remote_created_at: Some(T0 / 1000 - age), ..r }
}

/// The wait the queue plans after task 1 answers `status` at `now`.
fn wait_after(q: &mut Queue, status: &str, now: Now) -> Option<i64> {
    q.next(now);
    q.polled(1, &answer("task_00000001", status), now);
    q.get(1).and_then(|r| r.next_poll_at).map(|at| at - now.ms)
}

fn answer(id: &str, status: &str) -> Result<VideoTask, ApiError> {
    let mut body = json!({"id": id, "object": "video", "status": status, "created_at": T0 / 1000 - 10});
    if status == "completed" {
        body["url"] = json!("http://127.0.0.1:1/f.mp4");
        body["completed_at"] = json!(T0 / 1000);
    }
    Ok(VideoTask::from_json(body).expect("decodes"))
}

/// A running task two minutes old.
fn polled(id: i64) -> TaskRecord {
    let r = record(id, LocalState::InProgress);
    TaskRecord { remote_created_at: r.remote_created_at.map(|c| c - 110), ..r }
}

fn completed(id: i64, deadline: i64) -> TaskRecord {
    TaskRecord {
        url: Some(format!("http://127.0.0.1:1/{id}.mp4")),
        url_deadline: Some(deadline),
        ..record(id, LocalState::Completed)
    }
}

fn ids(plan: &Plan) -> Vec<i64> {
    plan.starts
        .iter()
        .map(|s| match s {
            Start::Send { id, .. } | Start::Poll { id, .. } | Start::Download { id, .. } => *id,
        })
        .collect()
}

fn kinds(plan: &Plan) -> Vec<&'static str> {
    plan.starts
        .iter()
        .map(|s| match s {
            Start::Send { .. } => "send",
            Start::Poll { .. } => "poll",
            Start::Download { .. } => "download",
        })
        .collect()
}

fn saved(id: i64) -> Result<Saved, FetchError> {
    Ok(Saved { path: PathBuf::from(format!("/v/{id}.mp4")), size: 10, sha256: "ab".into(), tagged: None })
}

#[test]
fn nothing_to_do_means_no_wake_up() {
    let (mut q, now) = queue(limits());
    assert_eq!(q.next(now), Plan::default());
}

#[test]
fn due_work_starts_and_future_work_sets_the_wake_up() {
    let (mut q, now) = queue(limits());
    q.track(polled(1), Job::Poll, now.at);
    q.track(polled(2), Job::Poll, now.at + Duration::from_secs(3));
    q.track(TaskRecord { remote_id: None, ..record(3, LocalState::Submitting) }, Job::Send, now.at);
    let plan = q.next(now);
    assert_eq!((ids(&plan), kinds(&plan)), (vec![1, 3], vec!["poll", "send"]));
    assert_eq!(plan.wake, Some(now.at + Duration::from_secs(3)));
    assert!(q.is_busy(1) && !q.is_busy(2));
    assert_eq!(q.running(), (2, 0));
    let later = q.next(now.after(Duration::from_secs(3)));
    assert_eq!(ids(&later), vec![2]);
}

#[test]
fn a_rescheduled_task_leaves_only_stale_entries_behind() {
    let (mut q, now) = queue(limits());
    // Tracked twice (a re-check while it waits): only the newer schedule may start it.
    q.track(polled(1), Job::Poll, now.at + Duration::from_secs(10));
    q.track(polled(1), Job::Poll, now.at + Duration::from_secs(1));
    assert_eq!(q.next(now).wake, Some(now.at + Duration::from_secs(1)));
    assert_eq!(ids(&q.next(now.after(Duration::from_secs(1)))), vec![1]);
    // The stale entry at 10 s never starts it a second time, even once it is due.
    assert!(q.next(now.after(Duration::from_secs(10))).starts.is_empty());
    // A busy task is not started again whatever is due.
    q.track(polled(2), Job::Poll, now.at);
    let first = q.next(now);
    assert_eq!(ids(&first), vec![2]);
    assert!(q.next(now).starts.is_empty());
}

#[test]
fn the_request_budget_and_the_in_flight_limit_hold() {
    let cases = [
        // (tasks due, budget per second, in-flight limit, started now)
        (5, 10, 16, 5),
        (30, 10, 16, 10),
        (30, 10, 4, 4),
        (30, 100, 16, 16),
        (3, 1, 16, 1),
    ];
    for (n, budget, in_flight, want) in cases {
        let mut l = limits();
        l.policy.budget_per_sec = budget;
        l.max_in_flight = in_flight;
        let (mut q, now) = queue(l);
        for id in 0..n {
            q.track(polled(id), Job::Poll, now.at);
        }
        let plan = q.next(now);
        assert_eq!(plan.starts.len(), want, "{n} due, budget {budget}, in flight {in_flight}");
        if (budget as usize) < in_flight && n > i64::from(budget) {
            assert!(plan.wake.is_some_and(|w| w > now.at), "says when the budget frees");
        }
    }
}

#[test]
fn the_budget_frees_after_its_window_and_never_more_in_any_window() {
    let (mut q, now) = queue(limits());
    for id in 0..100 {
        q.track(polled(id), Job::Poll, now.at);
    }
    let mut started = Vec::new();
    let mut t = now;
    while t.at < now.at + Duration::from_secs(5) {
        let plan = q.next(t);
        for id in ids(&plan) {
            started.push(t.at);
            // Answer at once so the in-flight limit never binds.
            q.polled(id, &answer("x", "in_progress"), t);
        }
        t = t.after(Duration::from_millis(50));
    }
    for (i, a) in started.iter().enumerate() {
        let in_window = started[i..].iter().take_while(|b| b.duration_since(*a) < Duration::from_secs(1)).count();
        assert!(in_window <= 10, "{in_window} requests in one second");
    }
    assert!(started.len() >= 40, "the budget is used: {}", started.len());
}

#[test]
fn downloads_start_by_url_deadline_within_the_download_limit() {
    let (mut q, now) = queue(limits());
    for (id, deadline) in [(1, 9_000), (2, 3_000), (3, 7_000), (4, 1_000), (5, 5_000), (6, 2_000)] {
        q.track(completed(id, T0 + deadline), Job::Download, now.at);
    }
    let plan = q.next(now);
    assert_eq!(ids(&plan), vec![4, 6, 2, 5], "most urgent first, four at once");
    assert_eq!(plan.writes.len(), 4, "each is journaled as downloading before it starts");
    assert!(plan.writes.iter().all(|w| w.record.state == LocalState::Downloading));
    assert!(q.next(now).starts.is_empty(), "the limit holds");
    let done = q.fetched(2, &saved(2), now);
    assert_eq!(done.writes.len(), 1);
    assert!(done.writes[0].sidecar && done.writes[0].record.state == LocalState::Downloaded);
    assert_eq!(ids(&q.next(now)), vec![3], "a freed slot goes to the next deadline");
}

#[test]
fn a_download_without_url_asks_the_service_again() {
    let (mut q, now) = queue(limits());
    q.track(TaskRecord { url: None, ..record(1, LocalState::Completed) }, Job::Download, now.at);
    let plan = q.next(now);
    assert_eq!(kinds(&plan), vec!["poll"]);
}

#[test]
fn failed_downloads_back_off_then_give_up_and_dead_urls_are_refreshed_once() {
    let (mut q, now) = queue(limits());
    q.track(completed(1, T0 + 60_000), Job::Download, now.at);
    let mut t = now;
    for attempt in 1..=3 {
        let plan = q.next(t);
        assert_eq!(ids(&plan), vec![1], "attempt {attempt}");
        let after = q.fetched(1, &Err(FetchError::Retry("reset".into())), t);
        assert_eq!(after.writes.len(), 1, "the attempt count is journaled");
        let r = &after.writes[0].record;
        assert_eq!(r.download_attempts, attempt);
        if attempt < 3 {
            assert_eq!(r.state, LocalState::Downloading);
            assert!(q.next(t).starts.is_empty(), "it waits before the next attempt");
        } else {
            assert_eq!(r.state, LocalState::DownloadFailed);
        }
        t = t.after(Duration::from_secs(300));
    }
    assert_eq!(q.tracked(), 0);

    let gone = || Err(FetchError::Gone(ApiError::UrlGone { status: 403 }));
    q.track(completed(2, T0 + 60_000), Job::Download, now.at);
    q.next(now);
    let refreshed = q.fetched(2, &gone(), now);
    assert_eq!(refreshed.writes[0].record.state, LocalState::Completed);
    assert_eq!(kinds(&q.next(now)), vec!["poll"], "a fresh URL is asked for at once");
    let again = q.polled(2, &answer("task_00000002", "completed"), now);
    assert_eq!(again.writes[0].record.state, LocalState::Completed);
    q.next(now);
    // The service may still serve the file itself: its route is tried once before giving up.
    let routed = q.fetched(2, &gone(), now);
    let r = &routed.writes[0].record;
    assert_eq!(r.state, LocalState::Completed);
    assert!(r.url.as_deref().is_some_and(|u| u.ends_with("/v1/videos/task_00000002/content")), "{:?}", r.url);
    assert_eq!(kinds(&q.next(now)), vec!["download"], "fetched from the route at once");
    let expired = q.fetched(2, &gone(), now);
    assert_eq!(expired.writes[0].record.state, LocalState::Expired);
}

#[test]
fn a_429_pauses_every_request_until_retry_after() {
    let (mut q, now) = queue(limits());
    for id in 0..3 {
        q.track(polled(id), Job::Poll, now.at);
    }
    q.next(now);
    let limited = Err(ApiError::RateLimited { retry_after: Some(Duration::from_secs(30)), body: ErrorBody::Empty });
    let plan = q.polled(0, &limited, now);
    assert!(plan.writes.is_empty());
    assert_eq!(q.health(), Health::RateLimited);
    q.polled(1, &answer("a", "in_progress"), now);
    q.polled(2, &answer("b", "in_progress"), now);
    // Task 1 and 2 are due again in 5 s; nothing may go out before the pause ends.
    let during = q.next(now.after(Duration::from_secs(10)));
    assert!(during.starts.is_empty());
    assert_eq!(during.wake, Some(now.at + Duration::from_secs(30)));
    let after = q.next(now.after(Duration::from_secs(30)));
    assert_eq!(after.starts.len(), 3);
}

#[test]
fn an_api_pause_holds_requests_but_not_downloads_of_known_urls() {
    let mut l = limits();
    l.max_downloads = 1;
    let (mut q, now) = queue(l);
    q.track(polled(1), Job::Poll, now.at);
    for id in 2..=4 {
        q.track(completed(id, T0 + 60_000), Job::Download, now.at);
    }
    assert_eq!(kinds(&q.next(now)), vec!["download", "poll"]);
    let limited = Err(ApiError::RateLimited { retry_after: Some(Duration::from_secs(60)), body: ErrorBody::Empty });
    q.polled(1, &limited, now);
    assert!(q.paused_until(now.at).is_some(), "the API is paused");
    // The files keep coming, one slot after another, while no request may go out.
    let mut t = now;
    let mut fetched = Vec::new();
    for id in 2..=4 {
        q.fetched(id, &saved(id), t);
        t = t.after(Duration::from_secs(1));
        let plan = q.next(t);
        assert!(kinds(&plan).iter().all(|k| *k == "download"), "{:?}", kinds(&plan));
        fetched.extend(ids(&plan));
    }
    assert_eq!(fetched, vec![3, 4]);
    assert_eq!(q.running(), (0, 0));
    assert_eq!(ids(&q.next(now.after(Duration::from_secs(60)))), vec![1], "the poll waits for the pause's end");
}

#[test]
fn a_fresh_copy_the_service_cannot_give_leaves_a_saved_task_saved() {
    let gone = || Err(FetchError::Gone(ApiError::UrlGone { status: 404 }));
    let forgotten = || Err(ApiError::NotFound { status: 404, message: None, body: ErrorBody::Empty });
    for on_disk in [true, false] {
        let (mut q, now) = queue(limits());
        let saved_before = TaskRecord {
            file_path: Some("/v/1.mp4".into()),
            finished_at: Some(T0 - 3_600_000),
            ..completed(1, T0 + 60_000)
        };
        q.track(saved_before, Job::Download, now.at);
        q.file_on_disk(1, on_disk);
        assert_eq!(kinds(&q.next(now)), vec!["download"]);
        q.fetched(1, &gone(), now);
        assert_eq!(kinds(&q.next(now)), vec!["poll"], "a fresh URL is asked for");
        let plan = q.polled(1, &forgotten(), now);
        let r = &plan.writes[0].record;
        assert_eq!(r.state, LocalState::Downloaded, "never lost: the render was saved");
        assert_eq!((r.finished_at, r.file_path.as_deref()), (Some(T0 - 3_600_000), Some("/v/1.mp4")));
        let said = plan.writes[0].event.as_ref().and_then(Entry::detail).unwrap_or_default().to_string();
        assert!(said.starts_with("the service no longer has this task"), "{said}");
        assert_eq!(said.ends_with("still missing"), !on_disk, "{said}");
        assert_eq!(q.tracked(), 0);
    }
}

#[test]
fn polls_that_change_nothing_visible_are_not_written() {
    let (mut q, now) = queue(limits());
    q.track(polled(1), Job::Poll, now.at);
    q.next(now);
    let same = q.polled(1, &answer("task_00000001", "in_progress"), now);
    // The first answer records the remote status; the second changes nothing anyone sees.
    assert_eq!(same.writes.len(), 1);
    let t = now.after(Duration::from_secs(6));
    q.next(t);
    assert!(q.polled(1, &answer("task_00000001", "in_progress"), t).writes.is_empty());
    assert_eq!(q.get(1).map(|r| r.poll_count), Some(2), "the count is kept in memory");
}

#[test]
fn a_send_is_repeated_only_when_it_provably_did_not_take_effect() {
    let refused = || Err(ApiError::Connect { endpoint: "x".into(), detail: "refused".into() });
    let reset = || Err(ApiError::Network { detail: "reset".into() });
    type Case = (&'static str, Vec<Result<VideoTask, ApiError>>, LocalState);
    let cases: [Case; 3] = [
        ("accepted", vec![answer("r1", "queued")], LocalState::Queued),
        ("refused three times: it waits", vec![refused(), refused(), refused()], LocalState::Waiting),
        ("answer lost", vec![reset()], LocalState::SubmitUnknown),
    ];
    for (name, answers, want) in cases {
        let (mut q, now) = queue(limits());
        q.track(TaskRecord { remote_id: None, ..record(1, LocalState::Submitting) }, Job::Send, now.at);
        let mut t = now;
        let mut last = None;
        for a in answers {
            let plan = q.next(t);
            assert_eq!(kinds(&plan), vec!["send"], "{name}");
            last = q.sent(1, &a, None, t).writes.pop();
            t = t.after(Duration::from_secs(600));
        }
        assert_eq!(last.map(|w| w.record.state), Some(want), "{name}");
    }
}

#[test]
fn restart_recovery_resumes_polls_and_downloads_and_settles_the_rest() {
    let (mut q, now) = queue(limits());
    let here = "http://127.0.0.1:1/";
    let rows = vec![
        record(1, LocalState::Submitting),
        polled(2),
        completed(3, T0 + 1_000),
        TaskRecord { state: LocalState::Downloading, ..completed(4, T0 + 500) },
        record(5, LocalState::Downloaded),
        TaskRecord { base_url: "http://127.0.0.1:2/".into(), ..polled(6) },
    ];
    let plans = rows.into_iter().map(|r| recover::plan(r, here, now.ms)).collect();
    let writes = q.recover(plans, now);
    assert_eq!(writes.len(), 1);
    assert_eq!((writes[0].record.id, writes[0].record.state), (1, LocalState::SubmitUnknown));
    let plan = q.next(now);
    assert_eq!((ids(&plan), kinds(&plan)), (vec![4, 3, 2], vec!["download", "download", "poll"]));
    assert_eq!(plan.writes.len(), 1, "only the one not yet downloading is journaled again");
    assert_eq!(q.tracked(), 3, "another service's task waits for its profile");
}

#[test]
fn a_batch_is_submitting_only_as_far_as_its_posts_have_left() {
    let mut l = limits();
    l.policy.budget_per_sec = 4;
    let (mut q, now) = queue(l);
    for id in 1..=10 {
        q.track(TaskRecord { remote_id: None, ..record(id, LocalState::Waiting) }, Job::Send, now.at);
    }
    let plan = q.next(now);
    assert_eq!(ids(&plan), vec![1, 2, 3, 4]);
    let journaled: Vec<(i64, LocalState)> = plan.writes.iter().map(|w| (w.record.id, w.record.state)).collect();
    assert_eq!(journaled, (1..=4).map(|id| (id, LocalState::Submitting)).collect::<Vec<_>>());
    assert!((5..=10).all(|id| q.get(id).map(|r| r.state) == Some(LocalState::Waiting)));
    // A send whose row could not be journaled does not leave, and is tried again later.
    q.not_started(4, now.at + Duration::from_secs(2));
    assert_eq!(q.running(), (3, 0));
    assert!(q.next(now.after(Duration::from_secs(1))).starts.iter().all(|s| s.id() != 4), "not before its time");
    let started: Vec<i64> = (2..6).flat_map(|s| ids(&q.next(now.after(Duration::from_millis(1100 * s))))).collect();
    assert!(started.contains(&4), "{started:?}");
}

#[test]
fn unusable_or_duplicate_ids_are_reported_on_the_task_and_never_polled() {
    let long = "x".repeat(100_000);
    for (name, id, dup) in [
        ("dot dot", "..", None),
        ("dot", ".", None),
        ("too long", long.as_str(), None),
        ("escape", "t\u{1b}]0;title\u{7}", None),
        ("duplicate", "task_same", Some(9)),
    ] {
        let (mut q, now) = queue(limits());
        q.track(TaskRecord { remote_id: None, ..record(1, LocalState::Waiting) }, Job::Send, now.at);
        q.next(now);
        let plan = q.sent(1, &answer(id, "queued"), dup, now);
        let w = plan.writes.last().expect("journaled");
        assert_eq!(w.record.state, LocalState::Lost, "{name}");
        assert!(w.event.as_ref().and_then(Entry::detail).is_some_and(|e| e.contains("id")), "{name}: {:?}", w.event);
        assert_eq!(q.tracked(), 0, "{name}: never polled");
        assert!(w.record.remote_id.as_deref() != Some(id) || dup.is_some(), "{name}");
        assert_eq!(w.record.duplicate_of(), dup, "{name}: the task holding its id");
    }
}

#[test]
fn when_the_budget_binds_the_likeliest_finishes_are_polled_soonest() {
    let mut l = limits();
    l.policy.budget_per_sec = 2;
    // Render times learned: 250 to 300 s.
    let (mut q, now) = learned(l, &spread(250.0, 300.0, 50));
    // 60 running tasks want more than 2 polls/s. One 70 s old is far less likely to finish in
    // the next seconds than one 250 s old.
    for id in 0..60 {
        let r = record(id, LocalState::InProgress);
        let older = if id % 2 == 0 { 60 } else { 240 };
        q.track(TaskRecord { remote_created_at: r.remote_created_at.map(|c| c - older), ..r }, Job::Poll, now.at);
    }
    let mut waits: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
    let mut t = now;
    while t.at < now.at + Duration::from_secs(10) {
        for id in ids(&q.next(t)) {
            q.polled(id, &answer("x", "in_progress"), t);
            let next = q.get(id).and_then(|r| r.next_poll_at).expect("scheduled");
            waits[(id % 2) as usize].push(next - t.ms);
        }
        t = t.after(Duration::from_millis(500));
    }
    let mean = |w: &[i64]| w.iter().sum::<i64>() as f64 / w.len().max(1) as f64;
    let (young, old) = (mean(&waits[0]), mean(&waits[1]));
    assert!(!waits[0].is_empty() && !waits[1].is_empty());
    assert!(old < young, "older tasks wait {old} ms, younger {young} ms");
    assert!(old > 5_000.0, "every wait is stretched while the budget binds: {old} ms");
}

#[test]
fn the_first_progress_after_a_send_dates_the_finish() {
    // Learned: finishes come at 100 to 110 s, so without progress the next poll would wait.
    let (mut q, now) = learned(limits(), &spread(100.0, 110.0, 50));
    let sent = TaskRecord {
        submitted_at: Some(T0),
        last_polled_at: None,
        remote_created_at: Some(T0 / 1000),
        progress: None,
        ..record(1, LocalState::Queued)
    };
    q.track(sent, Job::Poll, now.at);
    let t = now.after(Duration::from_secs(5));
    q.next(t);
    let mut body = json!({"id": "task_00000001", "object": "video", "status": "in_progress", "created_at": T0 / 1000});
    body["progress"] = json!(35);
    q.polled(1, &Ok(VideoTask::from_json(body).expect("decodes")), t);
    // 35% in 5 s: done within about 9.3 s more, long before what was learned.
    let wake = q.next(t).wake.map(|w| w.duration_since(t.at));
    assert!(wake.is_some_and(|w| w <= Duration::from_secs_f64(9.5)), "{wake:?}");
}

#[test]
fn a_first_run_polls_at_the_spec_interval_at_any_age() {
    for age in [5, 12, 30, 45, 61, 70, 150, 300, 420, 590] {
        let (mut q, now) = queue(limits());
        q.track(aged(1, age), Job::Poll, now.at);
        assert_eq!(wait_after(&mut q, "in_progress", now), Some(5_000), "{age} s old");
    }
}

#[test]
fn learned_render_times_skip_where_no_finish_comes_and_not_past_them() {
    // The spec's workload learned: totals 65 to 210 s.
    let times = spread(65.0, 210.0, 50);
    let cases = [
        // (age s, lowest wait s, highest wait s)
        (5, 50, 90),
        (100, 5, 5),
        (190, 5, 5),
        // Outlived every finish learned: the outlook was wrong, dense again.
        (230, 5, 5),
        (400, 5, 5),
    ];
    for (age, lo, hi) in cases {
        let (mut q, now) = learned(limits(), &times);
        q.track(aged(1, age), Job::Poll, now.at);
        let wait = wait_after(&mut q, "in_progress", now).expect("polled again");
        assert!((lo * 1000..=hi * 1000).contains(&wait), "{age} s old: {wait} ms");
    }
}

#[test]
fn a_stalled_task_is_rechecked_within_20_s() {
    for status in ["in_progress", "queued", "finished"] {
        let (mut q, now) = queue(limits());
        q.track(aged(1, 700), Job::Poll, now.at);
        let wait = wait_after(&mut q, status, now).expect("still polled");
        assert!(q.get(1).is_some_and(|r| matches!(r.state, LocalState::Stalled)), "{status}");
        assert!((1..=20_000).contains(&wait), "{status}: {wait} ms");
    }
}
