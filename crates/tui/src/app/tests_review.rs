//! Rating, picking and tagging from the keyboard: the effects the keys ask for, the tag line,
//! and the rows once the engine reports the task reviewed.

use crossterm::event::KeyCode;

use super::testkit::*;
use super::*;
use crate::keymap::Scope;
use reel_store::review::Change;
use reel_store::{LocalState, Review};

fn reviewed(id: i64, review: Review) -> reel_store::TaskRecord {
    reel_store::TaskRecord { review, ..rec(id, LocalState::Downloaded) }
}

fn shown(a: &App, id: i64) -> Review {
    a.table.row(id).map(|r| r.record.review.clone()).unwrap_or_default()
}

#[test]
fn plus_minus_and_star_ask_the_engine_and_count_from_what_is_shown() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    assert_eq!(ch(&mut a, '+'), vec![Effect::Review { id: 1, change: Change::Rate(Some(1)) }]);
    // Before the engine's news: the next key counts from what is shown.
    assert_eq!(ch(&mut a, '+'), vec![Effect::Review { id: 1, change: Change::Rate(Some(2)) }]);
    assert_eq!(ch(&mut a, '*'), vec![Effect::Review { id: 1, change: Change::Pick(true) }]);
    assert_eq!(shown(&a, 1), Review { rating: Some(2), picked: true, tags: vec![] });
    // The news of the first change comes while the others are on their way: it does not undo
    // them, and the next key still counts from what is shown.
    put(&mut a, reviewed(1, Review { rating: Some(1), ..Review::default() }));
    assert_eq!(shown(&a, 1), Review { rating: Some(2), picked: true, tags: vec![] });
    assert_eq!(ch(&mut a, '+'), vec![Effect::Review { id: 1, change: Change::Rate(Some(3)) }]);
    let journal = reviewed(1, Review { rating: Some(3), picked: true, tags: vec![] });
    for _ in 0..4 {
        answered(&mut a, 1, Ok(()), Some(journal.clone()));
    }
    assert_eq!(shown(&a, 1), journal.review);
    assert!(status(&a).contains("Task 1: rated 3, picked"), "{}", status(&a));
    // With nothing on its way, the engine's news (another dashboard rated it 4) is what the
    // next key counts from.
    put(&mut a, reviewed(1, Review { rating: Some(4), picked: true, tags: vec![] }));
    assert_eq!(ch(&mut a, '+'), vec![Effect::Review { id: 1, change: Change::Rate(Some(5)) }]);
    assert_eq!(ch(&mut a, '+'), vec![], "5 is the most");
    assert!(status(&a).contains("the most"), "{}", status(&a));
    assert_eq!(ch(&mut a, '-'), vec![Effect::Review { id: 1, change: Change::Rate(Some(4)) }]);
    assert_eq!(ch(&mut a, '*'), vec![Effect::Review { id: 1, change: Change::Pick(false) }]);
    task(&mut a, 2, LocalState::Failed);
    select(&mut a, 2);
    let e = acts(ch(&mut a, '-'));
    assert!(e.is_empty(), "nothing to take off: {e:?}");
    assert!(status(&a).contains("Task 2 has no rating"), "{}", status(&a));
}

#[test]
fn the_history_reviews_its_selected_row() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    ch(&mut a, 'H');
    let page = vec![reel_engine::query::HistoryRow { record: rec(7, LocalState::Downloaded), file_present: None }];
    let ticket = a.history.ticket();
    a.update(Action::HistoryPage(ticket, Ok(page)), NOW);
    assert_eq!(a.history.selected_row().map(|r| r.record.id), Some(7));
    assert_eq!(acts(ch(&mut a, '+')), vec![Effect::Review { id: 7, change: Change::Rate(Some(1)) }]);
    ch(&mut a, 'T');
    assert_eq!(a.scope(), Scope::Tagging);
    typed(&mut a, "keeper");
    assert_eq!(key(&mut a, KeyCode::Enter), vec![Effect::Review { id: 7, change: Change::Tag(vec!["keeper".into()]) }]);
}

#[test]
fn the_tag_line_adds_takes_off_and_keeps_a_bad_line_open() {
    let mut a = app();
    put(&mut a, reviewed(1, Review { tags: vec!["draft".into()], ..Review::default() }));
    select(&mut a, 1);
    assert!(ch(&mut a, 't').is_empty());
    assert_eq!(a.scope(), Scope::Tagging);
    assert!(matches!(&a.overlay, Some(Overlay::Tags(t)) if t.tags == ["draft"]), "shows the tags it has");
    typed(&mut a, "Keeper -draft");
    let want = vec![
        Effect::Review { id: 1, change: Change::Tag(vec!["keeper".into()]) },
        Effect::Review { id: 1, change: Change::Untag(vec!["draft".into()]) },
    ];
    assert_eq!(key(&mut a, KeyCode::Enter), want);
    assert!(a.overlay.is_none());

    ch(&mut a, 't');
    typed(&mut a, "-");
    assert!(key(&mut a, KeyCode::Enter).is_empty(), "an empty tag is not sent");
    assert_eq!(a.scope(), Scope::Tagging, "the line stays open to be corrected");
    assert!(status(&a).contains("empty"), "{}", status(&a));
    ctrl(&mut a, 'u');
    assert!(matches!(&a.overlay, Some(Overlay::Tags(t)) if t.text.is_empty()));
    typed(&mut a, "q");
    assert!(matches!(&a.overlay, Some(Overlay::Tags(t)) if t.text == "q"), "q is typed, it does not quit");
    assert!(key(&mut a, KeyCode::Esc).is_empty());
    assert!(a.overlay.is_none(), "Esc leaves the tags as they were");
}

#[test]
fn a_review_reported_by_the_engine_reloads_the_timeline_shown() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    a.update(Action::Timeline(1, vec![]), NOW);
    // Another client's review.
    let e = put(&mut a, reviewed(1, Review { rating: Some(3), ..Review::default() }));
    assert!(e.contains(&Effect::LoadTimeline(1)), "{e:?}");
    let e = put(&mut a, reviewed(1, Review { rating: Some(3), ..Review::default() }));
    assert!(!e.contains(&Effect::LoadTimeline(1)), "nothing changed: {e:?}");
    // This dashboard's own, shown before the news that confirms it.
    ch(&mut a, '+');
    let e = put(&mut a, reviewed(1, Review { rating: Some(4), ..Review::default() }));
    assert!(e.contains(&Effect::LoadTimeline(1)), "{e:?}");
}

/// The engine's answer to one review change, as the effect reports it.
fn answered(a: &mut App, id: i64, result: Result<(), EffectError>, truth: Option<reel_store::TaskRecord>) {
    a.update(Action::Reviewed { id, quiet: false, result, truth }, NOW);
}

#[test]
fn a_refused_review_goes_back_to_what_the_journal_holds() {
    let mut a = app();
    put(&mut a, reviewed(1, Review { rating: Some(2), ..Review::default() }));
    select(&mut a, 1);
    ch(&mut a, '+');
    ch(&mut a, '*');
    assert_eq!(shown(&a, 1), Review { rating: Some(3), picked: true, tags: vec![] });
    let journal = reviewed(1, Review { rating: Some(3), ..Review::default() });
    answered(&mut a, 1, Ok(()), Some(journal.clone()));
    assert!(shown(&a, 1).picked, "one change is still on its way");
    answered(
        &mut a,
        1,
        Err(reel_engine::EngineError::from(reel_engine::Refused::NoTask { id: 1 }).into()),
        Some(journal.clone()),
    );
    assert_eq!(shown(&a, 1), journal.review, "the refused pick is not shown");
    assert!(status(&a).to_lowercase().contains("no task 1"), "{}", status(&a));
}

#[test]
fn review_keys_wait_for_an_engine() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    a.update(Action::LinkLost, NOW);
    let e = ch(&mut a, '+');
    assert!(!e.iter().any(|x| matches!(x, Effect::Review { .. })), "{e:?}");
    assert_eq!(shown(&a, 1), Review::default(), "nothing shown that was not asked");
}

#[test]
fn a_pick_that_moves_within_its_batch_says_from_where() {
    let mut a = app();
    let take = |id: i64, picked: bool| reel_store::TaskRecord {
        batch_id: Some(1),
        review: Review { picked, ..Review::default() },
        ..rec(id, LocalState::Downloaded)
    };
    for (id, picked) in [(1, true), (2, false), (3, false)] {
        put(&mut a, take(id, picked));
    }
    select(&mut a, 2);
    assert_eq!(ch(&mut a, '*')[0], Effect::Review { id: 2, change: Change::Pick(true) });
    answered(&mut a, 2, Ok(()), Some(take(2, true)));
    assert!(status(&a).contains("#2 is now the pick of batch 1; #1 was"), "{}", status(&a));
    // Taking a pick back moves nothing.
    assert_eq!(ch(&mut a, '*')[0], Effect::Review { id: 2, change: Change::Pick(false) });
    answered(&mut a, 2, Ok(()), Some(take(2, false)));
    assert!(status(&a).contains("Task 2:"), "{}", status(&a));
}
