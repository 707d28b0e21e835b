//! Update tests for one truth in every view: deleted tasks and parents, files moved while the
//! dashboard runs, quitting with unfinished tasks, the rate-limit pause, billed seconds.

use crossterm::event::KeyCode;

use super::testkit::*;
use super::*;
use crate::compose::Field;
use reel_engine::Event;
use reel_engine::query::HistoryRow;
use reel_store::LocalState;

#[test]
fn deleting_the_parent_the_form_varies_never_breaks_the_next_submission() {
    let mut a = app();
    task(&mut a, 29, LocalState::Downloaded);
    select(&mut a, 29);
    ch(&mut a, 'e');
    assert_eq!(a.form.parent(), Some(29));
    key(&mut a, KeyCode::Esc);
    ch(&mut a, 'H');
    let g = a.history.ticket();
    a.update(
        Action::HistoryPage(
            g,
            Ok(vec![HistoryRow { record: rec(29, LocalState::Downloaded), file_present: Some(true) }]),
        ),
        NOW,
    );
    ch(&mut a, 'x');
    assert_eq!(acts(ch(&mut a, 'y')), vec![Effect::Delete { id: 29, remove_file: false }]);
    a.update(Action::Deleted(Ok(rec(29, LocalState::Downloaded))), NOW);
    assert_eq!(a.form.parent(), None, "the form no longer names the deleted task");
    assert_eq!(status(&a), "Deleted the record of task 29; the form keeps its text but no longer records it as parent");
    assert!(a.table.row(29).is_none() && a.table.view().is_empty(), "the table forgets it too");
    key(&mut a, KeyCode::Esc);
    a.focus = Focus::Form(Field::Prompt);
    let e = ctrl(&mut a, 's');
    assert!(matches!(&e[..], [Effect::Submit { parent: None, .. }]), "{e:?}");
}

#[test]
fn files_on_screen_are_looked_at_and_a_missing_one_is_said() {
    let mut a = app();
    let e = task(&mut a, 5, LocalState::Downloaded);
    assert!(e.contains(&Effect::CheckFiles(vec![(5, "/videos/5.mp4".into())])), "looked at when selected: {e:?}");
    assert!(a.watches_files());
    assert_eq!(a.update(Action::CheckFiles, NOW), vec![Effect::CheckFiles(vec![(5, "/videos/5.mp4".into())])]);
    a.update(Action::FilesChecked(vec![(5, false)]), NOW);
    assert_eq!(a.table.row(5).and_then(|r| r.file_present), Some(false));
    select(&mut a, 5);
    assert!(acts(ch(&mut a, 'o')).is_empty(), "nothing is started for a missing file");
    assert_eq!(status(&a), "The file of task 5 is missing: /videos/5.mp4 (moved or deleted)");
    // A new report of the same task keeps what the disk said; a new file is looked at again.
    task(&mut a, 5, LocalState::Downloaded);
    assert_eq!(a.table.row(5).and_then(|r| r.file_present), Some(false));
    a.update(Action::FilesChecked(vec![(5, true)]), NOW);
    assert_eq!(acts(ch(&mut a, 'o')), vec![Effect::Open { path: "/videos/5.mp4".into(), sha256: None }]);
    ch(&mut a, 'H');
    assert!(!a.watches_files(), "not while the history is shown");
}

#[test]
fn opening_without_a_player_says_how_to_set_one() {
    let mut a = app();
    let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
    a.update(Action::Report(Err(EffectError::Player { program: "xdg-open".into(), source: missing })), NOW);
    let s = status(&a);
    assert!(s.starts_with("Cannot play the video with xdg-open: No such file or directory; set $REEL_PLAYER"), "{s}");
    assert!(s.contains("[[actions]]"), "{s}");
    a.update(Action::Report(Err(EffectError::FileMissing("/v/1.mp4".into()))), NOW);
    assert!(status(&a).starts_with("The file /v/1.mp4 is missing"), "{}", status(&a));
}

#[test]
fn quitting_with_unfinished_tasks_asks_and_says_what_happens_to_them() {
    for (after, fate) in [
        (AfterQuit::Continue, "2 tasks go on in the background; `reel` or `reel wait --all` shows them again"),
        (AfterQuit::Pause, "2 tasks pause until reel starts again"),
        (AfterQuit::Lost, "2 tasks are lost: the demo simulator stops with reel"),
    ] {
        let mut a = app();
        a.after_quit = after;
        task(&mut a, 1, LocalState::InProgress);
        task(&mut a, 2, LocalState::Queued);
        task(&mut a, 3, LocalState::Downloaded);
        a.focus = Focus::Table;
        assert!(ch(&mut a, 'q').is_empty(), "{after:?}: asks first");
        assert_eq!(a.overlay, Some(Overlay::Confirm(Question::Quit { unfinished: 2, held: 0 })));
        assert_eq!(a.after_quit.fate(2), fate);
        ch(&mut a, 'n');
        assert!(!a.quit && a.overlay.is_none(), "n stays");
        ctrl(&mut a, 'c');
        assert_eq!(ctrl(&mut a, 'c'), vec![Effect::Quit], "a second Ctrl-C quits");
        assert!(a.quit);
        assert_eq!(a.summary().unfinished, 2);
    }
    let mut a = app();
    a.update(
        Action::Submitted { again: false, result: Ok(vec![rec(1, LocalState::Waiting), rec(2, LocalState::Waiting)]) },
        NOW,
    );
    task(&mut a, 1, LocalState::Downloaded);
    task(&mut a, 2, LocalState::Failed);
    let s = a.summary();
    assert_eq!((s.sent, s.saved, s.problems, s.unfinished), (2, 1, 1, 0));
    assert_eq!(s.farewell(a.after_quit).as_deref(), Some("reel: sent 2 tasks this run (1 saved, 1 with a problem)."));
    assert_eq!(ch(&mut a, 'q'), Vec::<Effect>::new(), "q is typed in the prompt");
    a.focus = Focus::Table;
    let e = ch(&mut a, 'q');
    assert_eq!(e.last(), Some(&Effect::Quit), "nothing unfinished: no question");
    assert!(matches!(&e[0], Effect::SaveDraft(Some(s)) if s.draft.prompt == "q"), "the typed q is a draft: {e:?}");
}

#[test]
fn a_rate_limit_pause_is_shown_until_it_ends() {
    let mut a = app();
    let paused = |until: Option<i64>| {
        let s = reel_engine::ServiceState {
            health: reel_engine::Health::RateLimited,
            paused_until_ms: until,
            ..Default::default()
        };
        Action::Engine(Event::Service(s))
    };
    a.update(paused(Some(NOW + 12_000)), NOW);
    assert_eq!(a.header.service.paused_until_ms, Some(NOW + 12_000));
    assert!(a.animating(), "the countdown ticks");
    a.update(Action::Tick, NOW + 12_000);
    assert_eq!(a.header.service.paused_until_ms, None);
    a.update(paused(Some(NOW + 5_000)), NOW);
    a.update(paused(None), NOW);
    assert!(!a.animating());
}

#[test]
fn a_redownload_keeps_the_render_time() {
    let mut a = app();
    let mut r = rec(1, LocalState::Downloaded);
    r.remote_created_at = Some(NOW / 1000 - 100);
    r.remote_completed_at = Some(NOW / 1000 - 40);
    r.finished_at = Some(NOW - 30_000);
    put(&mut a, r.clone());
    let elapsed = |a: &App| a.table.row(1).map(|r| crate::labels::elapsed_ms(&r.record, a.now_ms));
    assert_eq!(elapsed(&a), Some(60_000));
    // Downloading again: the engine clears finished_at; the render time stays.
    r.state = LocalState::Completed;
    r.finished_at = None;
    put(&mut a, r);
    a.update(Action::Tick, NOW + 600_000);
    assert_eq!(elapsed(&a), Some(60_000));
}

#[test]
fn a_fresh_copy_that_could_not_be_had_is_said_instead_of_the_redownload_started() {
    let mut a = app();
    let mut r = rec(1, LocalState::Downloaded);
    r.remote_id = Some("r1".into());
    put(&mut a, r.clone());
    select(&mut a, 1);
    ch(&mut a, 'd');
    a.update(Action::BulkDone { op: Op::Download, done: vec![1], failed: vec![], skipped: vec![] }, NOW);
    assert_eq!(status(&a), "1 re-download started");
    r.state = LocalState::Downloading;
    put(&mut a, r.clone());
    assert_eq!(status(&a), "1 re-download started");
    r.state = LocalState::Downloaded;
    let why = "the service no longer has this task; the saved file is still missing";
    r.error = Some(serde_json::json!({ "message": why }));
    put(&mut a, r);
    assert_eq!(status(&a), format!("Task 1: {why}"));
    assert_eq!(a.status.as_ref().map(|s| s.level), Some(Level::Warn));
}

#[test]
fn the_reply_to_a_send_never_takes_back_newer_news_of_the_same_task() {
    let mut a = app();
    task(&mut a, 1, LocalState::Queued);
    a.update(
        Action::Submitted { again: false, result: Ok(vec![rec(1, LocalState::Waiting), rec(2, LocalState::Waiting)]) },
        NOW,
    );
    let state = |a: &App, id: i64| a.table.row(id).map(|r| r.record.state);
    assert_eq!(state(&a, 1), Some(LocalState::Queued), "the engine's news came first and stays");
    assert_eq!(state(&a, 2), Some(LocalState::Waiting), "a task not heard of yet is shown as sent");
    assert_eq!(a.table.selected_id(), Some(2), "the selection follows the newest");
}
