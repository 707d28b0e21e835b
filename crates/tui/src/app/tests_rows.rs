//! Update tests for rows you can tell apart: batches and grids as groups, the selection
//! following the newest task, actions on marked tasks reported as one, sending several paid
//! tasks again, and the real state of unrecognized and duplicate tasks.

use crossterm::event::KeyCode;

use super::testkit::*;
use super::*;
use crate::labels::state_label;
use reel_store::LocalState;

/// A grid of 24 tasks as the engine journals it: one prompt, ratios × seconds, one batch.
pub fn grid(a: &mut App, first: i64) -> Vec<i64> {
    let ratios = ["16:9", "9:16", "1:1", "4:3", "3:4", "adaptive"];
    let seconds = [4, 5, 8, 10];
    let mut ids = Vec::new();
    for (i, (ratio, secs)) in ratios.iter().flat_map(|r| seconds.iter().map(move |s| (r, s))).enumerate() {
        let id = first + i as i64;
        let mut r = rec(id, LocalState::Queued);
        r.prompt = "a lighthouse in a storm, waves crashing on the rocks".into();
        r.ratio = ratio.to_string();
        r.seconds = *secs;
        r.created_at = NOW + i as i64 * 10;
        r.batch_id = Some(first);
        put(a, r);
        ids.push(id);
    }
    ids
}

#[test]
fn a_grid_is_one_group_and_the_selection_follows_the_newest_task() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    a.focus = Focus::Form(crate::compose::Field::Prompt);
    let records: Vec<_> = (2..=25).map(|id| rec(id, LocalState::Waiting)).collect();
    a.update(Action::Submitted { again: false, result: Ok(records) }, NOW);
    assert_eq!(a.table.selected_id(), Some(25), "the newest task is selected, so the table scrolls to it");
    assert_eq!(status(&a), "Sent 24 tasks; the form keeps its text for the next variation");
    assert_eq!(a.sent.len(), 24);
    let mut a = app();
    let ids = grid(&mut a, 100);
    let groups: Vec<i64> = ids.iter().filter_map(|id| a.table.row(*id)).map(|r| r.group).collect();
    assert!(groups.iter().all(|g| *g == 100), "{groups:?}");
    assert!((0..23).all(|i| a.table.grouped_with_next(i)) && !a.table.grouped_with_next(23));
}

#[test]
fn actions_on_marked_tasks_report_what_they_did_to_all_of_them() {
    let mut a = app();
    task(&mut a, 25, LocalState::Downloaded);
    task(&mut a, 26, LocalState::Expired);
    task(&mut a, 27, LocalState::InProgress);
    for id in [25, 26, 27] {
        select(&mut a, id);
        ch(&mut a, ' ');
    }
    let e = acts(ch(&mut a, 'd'));
    let skipped = vec!["task 27 is still rendering".to_string()];
    assert_eq!(e, vec![Effect::Bulk { op: Op::Download, ids: vec![25, 26], skipped: skipped.clone() }]);
    assert!(a.table.marks().is_empty(), "marks are used up");
    a.update(Action::BulkDone { op: Op::Download, done: vec![25, 26], failed: vec![], skipped }, NOW);
    assert_eq!(status(&a), "2 re-downloads started; task 27 is still rendering");
    // Nothing applies: said at once, nothing asked of the engine.
    select(&mut a, 27);
    assert!(acts(ch(&mut a, 'd')).is_empty());
    assert_eq!(status(&a), "No re-download started; task 27 is still rendering");
    a.update(Action::Submitted { again: true, result: Ok(vec![rec(30, LocalState::Waiting)]) }, NOW);
    assert_eq!(status(&a), "Sent 1 task again");
}

#[test]
fn sending_several_paid_tasks_again_asks_with_the_count_and_the_cost() {
    let mut a = paid(Default::default());
    for id in 1..=3 {
        let mut r = rec(id, LocalState::Downloaded);
        r.seconds = 10;
        put(&mut a, r);
        select(&mut a, id);
        ch(&mut a, ' ');
    }
    assert!(acts(ch(&mut a, 'r')).is_empty(), "nothing is sent before the answer");
    match &a.overlay {
        Some(Overlay::Confirm(Question::Again { count, billed, cost, .. })) => {
            assert_eq!((*count, billed.as_str(), cost.as_str()), (3, "30 s", "$15.00"));
        }
        other => panic!("{other:?}"),
    }
    ch(&mut a, 'x');
    assert!(matches!(a.overlay, Some(Overlay::Confirm(_))), "a key that answers nothing leaves the question");
    let e = acts(ch(&mut a, 'y'));
    assert!(
        matches!(&e[..], [Effect::SubmitAgain(items)] if items.iter().map(|(id, _)| *id).collect::<Vec<_>>() == vec![1, 2, 3])
    );
    // One paid task, or any number in demo mode, goes without a question.
    select(&mut a, 1);
    assert!(matches!(&acts(ch(&mut a, 'r'))[..], [Effect::SubmitAgain(items)] if items.len() == 1));
    let mut demo = app();
    for id in 1..=2 {
        task(&mut demo, id, LocalState::Downloaded);
        select(&mut demo, id);
        ch(&mut demo, ' ');
    }
    assert!(matches!(&acts(ch(&mut demo, 'r'))[..], [Effect::SubmitAgain(items)] if items.len() == 2));
    // n keeps them.
    for id in 1..=2 {
        select(&mut a, id);
        ch(&mut a, ' ');
    }
    ch(&mut a, 'r');
    assert!(acts(key(&mut a, KeyCode::Esc)).is_empty());
    assert_eq!((a.overlay.clone(), status(&a)), (None, "Nothing was done".to_string()));
}

#[test]
fn unrecognized_and_duplicate_tasks_show_what_they_are() {
    let mut a = app();
    let mut r = rec(1, LocalState::Unrecognized);
    r.remote_status = Some(" Queued ".into());
    put(&mut a, r);
    let mut d = rec(2, LocalState::Lost);
    d.error = Some(serde_json::json!({"message": "same id as task 1", "duplicate_of": 1}));
    put(&mut a, d);
    assert_eq!(a.table.row(1).map(|r| r.state_label.as_str()), Some("\"Queued\""));
    assert_eq!(a.table.row(2).map(|r| r.state_label.as_str()), Some("lost: dup of 1"));
    assert_eq!(state_label(&rec(3, LocalState::Queued)), "queued");
}
