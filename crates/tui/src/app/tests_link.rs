//! Update tests for an engine process that goes away under the dashboard: the header says
//! so at once, attempts follow with back-off, the rows are read again once attached, and
//! commands made meanwhile are held or refused, never dropped unsaid.

use super::testkit::*;
use super::*;
use crate::link::{Link, Outage, RECENT_MS};
use reel_engine::{Activity, EngineError, Event, Health, TaskUpdate};
use reel_store::LocalState;

/// A dashboard attached and showing its rows: 1 rendering, 2 queued, 3 saved.
fn attached() -> App {
    let mut a = app();
    let e = a.update(Action::Reloaded(Ok(Reload::default())), NOW);
    assert!(acts(e).is_empty());
    assert_eq!(a.link, Link::Up);
    assert_eq!(a.status, None, "nothing to say at start");
    task(&mut a, 1, LocalState::InProgress);
    task(&mut a, 2, LocalState::Queued);
    task(&mut a, 3, LocalState::Downloaded);
    a
}

fn header(a: &App) -> Option<String> {
    a.link.describe(a.now_ms)
}

#[test]
fn news_waits_until_the_first_rows_are_read() {
    let mut a = app();
    assert_eq!(a.link, Link::Opening);
    assert!(!a.link.accepts_events() && a.link.attached());
    assert!(
        matches!(&a.initial_effects()[..], [Effect::Reload { since_ms, check }, Effect::LoadServiceModels] if *since_ms == NOW - RECENT_MS && check.is_empty())
    );
    a.update(Action::Reloaded(Ok(Reload { records: vec![rec(4, LocalState::Queued)], gone: vec![], mark: 0 })), NOW);
    assert_eq!(a.link, Link::Up);
    assert!(a.table.row(4).is_some());
    // A read that fails still lets the news flow, and says why the list may be short.
    let mut b = app();
    b.update(Action::Reloaded(Err(EngineError::Stopped.into())), NOW);
    assert_eq!(b.link, Link::Up);
    assert_eq!(status(&b), "Cannot read the earlier tasks: the engine has stopped");
    // The engine died before the first read was done: its rows are shown, the outage stays.
    let mut c = app();
    assert_eq!(c.update(Action::LinkLost, NOW), vec![Effect::Reattach { attempt: 1, after_ms: 200 }]);
    c.update(Action::Reloaded(Ok(Reload { records: vec![rec(5, LocalState::Queued)], gone: vec![], mark: 0 })), NOW);
    assert!(c.table.row(5).is_some() && !c.link.attached());
}

#[test]
fn a_lost_engine_is_said_at_once_and_attached_again_with_back_off() {
    let mut a = attached();
    let e = a.update(Action::LinkLost, NOW);
    assert_eq!(e, vec![Effect::Reattach { attempt: 1, after_ms: 200 }]);
    assert_eq!(header(&a).as_deref(), Some("engine lost · reconnecting in 0.2s"));
    assert!(!a.link.attached() && a.animating(), "the countdown ticks");
    assert!(status(&a).starts_with("The engine process stopped; reel starts it again"), "{}", status(&a));
    assert!(a.update(Action::LinkLost, NOW).is_empty(), "said once");

    a.update(Action::Reattaching(1), NOW + 200);
    assert_eq!(header(&a).as_deref(), Some("engine lost · reconnecting…"));
    let e = a.update(Action::ReattachFailed { attempt: 1, error: "no answer".into() }, NOW + 3_000);
    assert_eq!(e, vec![Effect::Reattach { attempt: 2, after_ms: 500 }]);
    assert_eq!(status(&a), "Cannot attach to the engine yet (reel keeps trying): no answer");
    assert_eq!(header(&a).as_deref(), Some("engine lost 0:03 ago · attempt 2 in 0.5s"));
    assert!(a.update(Action::ReattachFailed { attempt: 1, error: "late".into() }, NOW).is_empty(), "stale");
    for (attempt, wait) in [(2, 1_000), (3, 2_000), (4, 5_000), (5, 5_000)] {
        a.update(Action::Reattaching(attempt), NOW + 4_000);
        let e = a.update(Action::ReattachFailed { attempt, error: "no answer".into() }, NOW + 4_000);
        assert_eq!(e, vec![Effect::Reattach { attempt: attempt + 1, after_ms: wait }]);
    }
    assert_eq!(a.link, Link::Down(Outage { since_ms: NOW, attempt: 6, next_try_ms: Some(NOW + 9_000) }));
}

#[test]
fn once_attached_the_rows_are_read_again_and_spinners_tell_the_truth() {
    let mut a = attached();
    select(&mut a, 2);
    a.update(Action::LinkLost, NOW);
    let activity = Activity {
        unfinished: 1,
        requests_in_flight: 0,
        downloads: 0,
        service: reel_engine::ServiceState {
            health: Health::RateLimited,
            paused_until_ms: Some(NOW + 60_000),
            ..Default::default()
        },
        waiting_on_api: 1,
        unrecognized: 0,
    };
    let e = a.update(Action::Reattached { restarted: true, activity: Some(activity) }, NOW + 1_000);
    let Some(Effect::Reload { since_ms, check }) = e.first() else { panic!("{e:?}") };
    assert_eq!(*since_ms, NOW + 1_000 - RECENT_MS, "the recent past holds the outage");
    assert_eq!(check.iter().copied().collect::<BTreeSet<_>>(), BTreeSet::from([1, 2]), "the running rows");
    assert_eq!(a.link, Link::Reloading { restarted: true });
    assert!(!a.link.accepts_events(), "news waits for the read");
    assert_eq!(header(&a).as_deref(), Some("engine back · reloading"));
    let service = &a.header.service;
    assert_eq!(
        (service.health, service.paused_until_ms),
        (Health::RateLimited, Some(NOW + 60_000)),
        "as the engine said"
    );

    // Meanwhile 1 was saved, 2 deleted from another terminal, and 4 sent from another.
    let read =
        Reload { records: vec![rec(1, LocalState::Downloaded), rec(4, LocalState::Queued)], gone: vec![2], mark: 0 };
    let e = a.update(Action::Reloaded(Ok(read)), NOW + 1_100);
    assert_eq!(a.link, Link::Up);
    assert_eq!(header(&a), None);
    assert_eq!(status(&a), "Engine restarted; reloaded 2 tasks");
    assert_eq!(a.table.row(1).map(|r| r.record.state), Some(LocalState::Downloaded));
    assert!(a.table.row(2).is_none(), "the deleted task leaves");
    assert_eq!(a.table.len(), 3, "no row twice: {:?}", a.table.view());
    assert_eq!(a.table.running(), 1, "only 4 spins");
    assert!(e.iter().any(|e| matches!(e, Effect::LoadTimeline(_))), "the detail reads its timeline again: {e:?}");
    // A read that comes once news flows again never takes the news back.
    task(&mut a, 4, LocalState::Downloaded);
    a.update(Action::Reloaded(Ok(Reload { records: vec![rec(4, LocalState::Queued)], gone: vec![], mark: 0 })), NOW);
    assert_eq!(a.table.row(4).map(|r| r.record.state), Some(LocalState::Downloaded));
}

#[test]
fn a_submission_while_down_is_held_and_sent_once_attached() {
    let mut a = attached();
    a.update(Action::LinkLost, NOW);
    a.focus = Focus::Form(crate::compose::Field::Prompt);
    typed(&mut a, "a fox");
    let e = ctrl(&mut a, 's');
    assert!(acts(e).is_empty(), "nothing goes to an engine that is not there");
    assert_eq!(status(&a), "Held: the engine is not attached; the submission will be sent when it is back");
    assert!(matches!(&a.held[..], [Effect::Submit { .. }]));
    ctrl(&mut a, 's');
    assert_eq!(status(&a), "Held: the engine is not attached; 2 held submissions will be sent when it is back");

    // Quitting now would drop them: asked first.
    a.focus = Focus::Table;
    task_free(&mut a);
    ch(&mut a, 'q');
    assert_eq!(a.overlay, Some(Overlay::Confirm(Question::Quit { unfinished: 0, held: 2 })));
    ch(&mut a, 'n');

    a.update(Action::Reattached { restarted: false, activity: None }, NOW);
    assert!(a.held.len() == 2, "held until the rows are read");
    let e = a.update(Action::Reloaded(Ok(Reload::default())), NOW);
    let sent = e.iter().filter(|e| matches!(e, Effect::Submit { .. })).count();
    assert_eq!(sent, 2, "{e:?}");
    assert!(a.held.is_empty());
    assert_eq!(status(&a), "Engine attached again; reloaded 0 tasks; sending 2 submissions held meanwhile");
}

/// Over SSH a send while the link is down is refused, said, and not kept for later; the
/// form keeps the prompt; repeated failures to reconnect do not hide that; the rows are read
/// back from the engine's own mark (its clock may be behind this one's).
#[test]
fn over_ssh_a_send_while_the_link_is_down_is_refused_and_said() {
    let mut a = app();
    a.update(Action::Reloaded(Ok(Reload::default())), NOW);
    a.header.far = Some("me@box".into());
    // The engine's clock is hours behind this one's.
    for (id, state) in [(1, LocalState::InProgress), (2, LocalState::Queued), (3, LocalState::Downloaded)] {
        let mut behind = rec(id, state);
        behind.updated_at = NOW - 3 * RECENT_MS - id;
        put(&mut a, behind);
    }
    a.update(Action::LinkLost, NOW);
    assert_eq!(status(&a), "The link to me@box dropped; reel reconnects (the engine there goes on working)");
    let failed = |a: &mut App, attempt| {
        let error = "ssh: connect to host box port 22: Connection refused".to_string();
        a.update(Action::ReattachFailed { attempt, error }, NOW)
    };
    failed(&mut a, 1);
    a.focus = Focus::Form(crate::compose::Field::Prompt);
    typed(&mut a, "a fox");
    let e = ctrl(&mut a, 's');
    assert!(acts(e).is_empty(), "nothing goes to an engine that is not there");
    assert!(a.held.is_empty(), "nothing is kept to be sent later");
    let refused = "Not sent: the link to me@box is down (reconnecting); try again once it is back";
    assert_eq!(status(&a), refused);
    failed(&mut a, 2);
    assert_eq!(status(&a), refused, "the same failure again is not said over it");
    assert_eq!(a.form.prompt_text(), "a fox", "the form keeps the prompt");
    let e = a.update(Action::Reattached { restarted: false, activity: None }, NOW);
    assert!(
        matches!(&e[..], [Effect::Reload { since_ms, .. }] if *since_ms == NOW - 3 * RECENT_MS - 1),
        "read back from the newest change the engine reported: {e:?}"
    );
    a.update(Action::Reloaded(Ok(Reload::default())), NOW);
    assert_eq!(status(&a), "Reconnected to me@box; reloaded 0 tasks");
}

/// Without any news before the link drops, the journal's mark read with the rows is where
/// catching up starts (the host's clock hours behind this one's).
#[test]
fn over_ssh_the_first_reads_mark_bounds_the_catch_up() {
    let mut a = app();
    a.header.far = Some("me@box".into());
    let mark = NOW - 4 * RECENT_MS;
    a.update(Action::Reloaded(Ok(Reload { records: vec![], gone: vec![], mark })), NOW);
    a.update(Action::LinkLost, NOW);
    let e = a.update(Action::Reattached { restarted: false, activity: None }, NOW);
    assert!(matches!(&e[..], [Effect::Reload { since_ms, .. }] if *since_ms == mark), "{e:?}");
}

/// Every task finished, so that quitting asks only about what is held.
fn task_free(a: &mut App) {
    for id in [1, 2] {
        task(a, id, LocalState::Downloaded);
    }
}

#[test]
fn actions_on_tasks_while_down_are_refused_with_a_message() {
    let mut a = attached();
    a.update(Action::LinkLost, NOW);
    select(&mut a, 3);
    assert!(acts(ch(&mut a, 'd')).is_empty());
    assert_eq!(status(&a), "Not done: the engine is not attached (reconnecting); try again once it is back");
    a.status = None;
    ch(&mut a, 'H');
    a.history.add_page(
        a.history.ticket(),
        vec![reel_engine::query::HistoryRow { record: rec(3, LocalState::Downloaded), file_present: Some(true) }],
    );
    ch(&mut a, 'x');
    assert!(acts(ch(&mut a, 'y')).is_empty(), "no delete is sent");
    assert_eq!(status(&a), "Not done: the engine is not attached (reconnecting); try again once it is back");

    // Attached again with the history open: its page is read again.
    a.update(Action::Reattached { restarted: true, activity: None }, NOW);
    let g = a.history.ticket();
    let e = a.update(Action::Reloaded(Ok(Reload::default())), NOW);
    assert!(e.iter().any(|e| matches!(e, Effect::HistoryPage { ticket, cursor: None, .. } if *ticket != g)), "{e:?}");
}

#[test]
fn a_read_that_fails_after_a_loss_is_said_and_news_flows_again() {
    let mut a = attached();
    a.update(Action::LinkLost, NOW);
    a.update(Action::Reattached { restarted: true, activity: None }, NOW);
    a.update(Action::Reloaded(Err(EngineError::Stopped.into())), NOW);
    assert_eq!(a.link, Link::Up);
    assert_eq!(status(&a), "Engine restarted; the tasks could not be read again: the engine has stopped");
    assert_eq!(a.status.as_ref().map(|s| s.level), Some(Level::Error));
}

#[test]
fn missed_news_reads_the_rows_again_and_holds_news_until_then() {
    let mut a = attached();
    let e = a.update(Action::Engine(Event::Missed), NOW);
    let Some(Effect::Reload { since_ms, check }) = e.first() else { panic!("{e:?}") };
    assert_eq!(*since_ms, NOW - RECENT_MS);
    let mut check = check.clone();
    check.sort_unstable();
    assert_eq!(check, vec![1, 2], "the running rows are asked about by id");
    assert_eq!(a.link, Link::CatchingUp);
    assert!(!a.link.accepts_events() && a.link.attached(), "news waits; commands still go");
    assert_eq!(header(&a).as_deref(), Some("catching up"));
    // A second loss of news while the read is under way asks nothing more.
    assert!(a.update(Action::Engine(Event::Missed), NOW).is_empty());
    // The read is the truth: task 2 ended meanwhile, task 1 was deleted, task 9 is new.
    let read =
        Reload { records: vec![rec(2, LocalState::Downloaded), rec(9, LocalState::Queued)], gone: vec![1], mark: 0 };
    let e = a.update(Action::Reloaded(Ok(read)), NOW);
    assert!(acts(e).is_empty());
    assert_eq!(a.link, Link::Up);
    assert_eq!(a.table.row(2).map(|r| r.record.state), Some(LocalState::Downloaded));
    assert!(a.table.row(1).is_none() && a.table.row(9).is_some());
    assert_eq!(a.status, None, "nothing to alarm anyone about");
}

#[test]
fn a_batch_arrives_as_one_event_and_a_task_that_ends_in_it_rings_once() {
    let mut a = attached();
    let mut updates: Vec<TaskUpdate> =
        (10..2_010).map(|id| TaskUpdate { record: rec(id, LocalState::Waiting), eta_ms: None }).collect();
    updates.push(TaskUpdate { record: rec(1, LocalState::Downloaded), eta_ms: None });
    let e = a.update(Action::Engine(Event::Tasks(updates)), NOW);
    assert_eq!(a.table.len(), 2_003);
    assert!(matches!(&e[..], [Effect::Bell, Effect::Notify(t)] if t == "Task 1 downloaded"), "{e:?}");
}
