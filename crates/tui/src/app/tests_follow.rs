//! Every view stays true while the world changes: the history follows the engine's news like
//! the table does, and a start opens the table at its newest task.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::testkit::*;
use super::*;
use reel_engine::query::HistoryRow;
use reel_store::LocalState;

fn open_history(a: &mut App) -> Vec<Effect> {
    a.focus = Focus::Table;
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW)
}

fn page(a: &mut App, ids: &[i64], state: LocalState) {
    let rows = ids.iter().map(|&i| HistoryRow { record: rec(i, state), file_present: None }).collect();
    a.update(Action::HistoryPage(a.history.ticket(), Ok(rows)), NOW);
}

fn shown(a: &App) -> Vec<(i64, LocalState)> {
    a.history.rows().iter().map(|r| (r.record.id, r.record.state)).collect()
}

#[test]
fn the_history_follows_the_engine_while_it_is_open() {
    let mut a = app();
    open_history(&mut a);
    page(&mut a, &[3, 2, 1], LocalState::Queued);
    // A row shown changes state as the engine reports it: never frozen at `queued`.
    task(&mut a, 2, LocalState::Downloaded);
    assert_eq!(shown(&a), vec![(3, LocalState::Queued), (2, LocalState::Downloaded), (1, LocalState::Queued)]);
    assert_eq!(a.history.rows()[1].state, "downloaded", "the label is worked out again");
    assert_eq!(a.history.rows()[1].file_present, Some(true), "the engine just saved its file");
    // A task sent now comes in on top, and the selection stays on the task it was on.
    a.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
    assert_eq!(a.history.selected_row().map(|r| r.record.id), Some(2));
    task(&mut a, 4, LocalState::Submitting);
    assert_eq!(shown(&a)[0], (4, LocalState::Submitting));
    assert_eq!(a.history.selected_row().map(|r| r.record.id), Some(2));
    // A task the query does not admit stays out.
    key(&mut a, KeyCode::Char('/'));
    typed(&mut a, "zebra");
    a.update(Action::Tick, NOW + crate::history::SEARCH_SETTLE_MS);
    key(&mut a, KeyCode::Enter);
    page(&mut a, &[], LocalState::Queued);
    task(&mut a, 5, LocalState::Queued);
    assert!(shown(&a).is_empty(), "{:?}", shown(&a));
    let mut zebra = rec(6, LocalState::Queued);
    zebra.prompt = "a zebra at dawn".into();
    put(&mut a, zebra);
    assert_eq!(shown(&a), vec![(6, LocalState::Queued)]);
}

#[test]
fn reopening_the_history_reads_what_happened_while_it_was_away() {
    let mut a = app();
    open_history(&mut a);
    page(&mut a, &[2, 1], LocalState::Queued);
    key(&mut a, KeyCode::Char('H'));
    assert_eq!(a.screen, Screen::Dashboard);
    // Nothing new: the rows are kept, already true (their states follow the engine).
    task(&mut a, 1, LocalState::Downloaded);
    let e = open_history(&mut a);
    assert!(!e.iter().any(|e| matches!(e, Effect::HistoryPage { .. })), "{e:?}");
    assert_eq!(shown(&a), vec![(2, LocalState::Queued), (1, LocalState::Downloaded)]);
    // A task sent while away: opening reads the history again.
    key(&mut a, KeyCode::Char('H'));
    task(&mut a, 3, LocalState::Submitting);
    let e = open_history(&mut a);
    assert!(e.iter().any(|e| matches!(e, Effect::HistoryPage { cursor: None, .. })), "{e:?}");
}

#[test]
fn a_start_selects_the_newest_task_at_the_top() {
    let mut a = app();
    a.update(Action::Loaded((1..=100).map(|i| rec(i, LocalState::Downloaded)).collect()), NOW);
    assert_eq!(a.table.selected_id(), Some(100));
    assert_eq!(a.table.selected(), 0, "the table opens at its top");
    // Later reads keep the selection where the user put it.
    a.table.select(40);
    a.update(Action::Loaded(vec![rec(101, LocalState::Queued)]), NOW);
    assert_eq!(a.table.selected_id(), Some(40));
}

/// What the form holds now, shortly.
fn form_of(a: &App) -> (String, Option<i64>) {
    (a.form.prompt_text(), a.form.parent())
}

#[test]
fn a_draft_is_never_lost_to_vary_n_or_quitting() {
    let mut a = app();
    task(&mut a, 15, LocalState::Downloaded);
    typed(&mut a, "my own idea");
    // Vary with an unsent draft asks first; keeping it changes nothing.
    select(&mut a, 15);
    key(&mut a, KeyCode::Char('e'));
    assert!(matches!(&a.overlay, Some(Overlay::Confirm(Question::Vary(t))) if t.id == 15), "{:?}", a.overlay);
    key(&mut a, KeyCode::Char('n'));
    assert_eq!(form_of(&a), ("my own idea".to_string(), None));
    // Quitting keeps the draft for the next start.
    let e = ctrl(&mut a, 'c');
    let kept = e.iter().find_map(|e| match e {
        Effect::SaveDraft(Some(saved)) => Some(saved.clone()),
        _ => None,
    });
    assert_eq!(kept.as_ref().map(|s| s.draft.prompt.as_str()), Some("my own idea"), "{e:?}");
    let mut next = app();
    next.restore_draft(&kept.unwrap_or_default());
    assert_eq!(form_of(&next), ("my own idea".to_string(), None));
    assert!(status(&next).contains("unsent draft"), "{}", status(&next));
    // Replacing it is a yes away, and the next send records the task as parent.
    select(&mut a, 15);
    key(&mut a, KeyCode::Char('e'));
    key(&mut a, KeyCode::Char('y'));
    assert_eq!(form_of(&a), (rec(15, LocalState::Downloaded).prompt, Some(15)));
    // `n` starts a fresh form that varies nothing.
    select(&mut a, 15);
    key(&mut a, KeyCode::Char('n'));
    assert_eq!(form_of(&a), (String::new(), None));
    assert_eq!(a.focus, Focus::Form(crate::compose::Field::Prompt));
    assert!(status(&a).contains("no longer varies task 15"), "{}", status(&a));
    // A sent form is not a draft: quitting clears the one kept.
    typed(&mut a, "sent as is");
    a.update(Action::Submitted { again: false, result: Ok(vec![rec(16, LocalState::Downloaded)]) }, NOW);
    let e = ctrl(&mut a, 'c');
    assert!(e.contains(&Effect::SaveDraft(None)), "{e:?}");
}
