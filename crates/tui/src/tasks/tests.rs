//! Tests of the task table: its view, selection and counts under every sort and filter.

use super::*;
use reel_store::LocalState;
use reel_store::fixtures::record;

fn update(id: i64, state: LocalState, created: i64, prompt: &str) -> TaskUpdate {
    let mut r = record(id, state);
    r.created_at = created;
    r.prompt = prompt.into();
    TaskUpdate { record: r, eta_ms: None }
}

fn table() -> Table {
    let mut t = Table::new(Sort::default(), Filter::default());
    t.upsert(update(1, LocalState::Downloaded, 100, "a red fox"));
    t.upsert(update(2, LocalState::InProgress, 200, "a blue whale"));
    t.upsert(update(3, LocalState::Failed, 300, "a green frog"));
    t
}

#[test]
fn a_timeline_never_shows_a_state_twice_in_a_row() {
    let ev = |at: i64, state: &str, detail: Option<&str>| EventRecord {
        at,
        state: state.into(),
        detail: detail.map(str::to_string),
    };
    let mut t = table();
    let journal = vec![
        ev(1, "submitting", None),
        ev(2, "in_progress", None),
        ev(3, "lost", Some("no answer")),
        ev(4, "lost", Some("given up")),
        ev(5, "lost", None),
    ];
    t.set_timeline(2, journal);
    let states = |t: &Table| t.timeline(2).map(|e| e.iter().map(|e| (e.at, e.state.clone())).collect::<Vec<_>>());
    let want = vec![(1, "submitting".to_string()), (2, "in_progress".to_string()), (3, "lost".to_string())];
    assert_eq!(states(&t), Some(want.clone()));
    assert_eq!(t.timeline(2).and_then(|e| e[2].detail.clone()).as_deref(), Some("given up"), "the latest word");
    // The engine's news of a state the journal already had adds nothing.
    t.upsert(update(2, LocalState::Lost, 200, "a blue whale"));
    assert_eq!(states(&t), Some(want.clone()));
    // A new state is added.
    t.upsert(update(2, LocalState::Failed, 200, "a blue whale"));
    assert_eq!(states(&t).map(|s| s.len()), Some(4));
}

#[test]
fn newest_first_and_incremental_updates_keep_order_and_selection() {
    let mut t = table();
    assert_eq!(t.view, vec![3, 2, 1]);
    t.select_at(1);
    t.upsert(update(4, LocalState::Submitting, 400, "new"));
    assert_eq!(t.view, vec![4, 3, 2, 1]);
    assert_eq!(t.selected_id(), Some(2), "the selection follows its task");
    t.upsert(update(2, LocalState::Completed, 200, "a blue whale"));
    assert_eq!(t.view, vec![4, 3, 2, 1]);
}

#[test]
fn filters_search_and_sorts() {
    let mut t = table();
    t.set_filter(Filter::Active);
    assert_eq!(t.view, vec![2]);
    t.upsert(update(2, LocalState::Downloaded, 200, "a blue whale"));
    assert!(t.view.is_empty(), "it left the running filter");
    t.set_filter(Filter::Problems);
    assert_eq!(t.view, vec![3]);
    t.set_filter(Filter::All);
    t.edit_search(|s| s.push_str("FOX"));
    assert_eq!(t.view, vec![1], "search ignores case");
    t.clear_search();
    t.set_sort(Sort::Oldest);
    assert_eq!(t.view, vec![1, 2, 3]);
    t.set_sort(Sort::State);
    assert_eq!(t.view, vec![2, 1, 3], "downloaded sorts after in_progress, failed last");
}

#[test]
fn the_tables_search_reads_as_the_historys() {
    let mut t = table();
    t.upsert(update(4, LocalState::Downloaded, 400, "a swan at midday"));
    let mut rated = update(5, LocalState::Downloaded, 500, "a swan at dusk");
    rated.record.review.rating = Some(5);
    t.upsert(rated);
    // (typed, ids shown, newest first)
    let cases: [(&str, &[i64]); 6] = [
        ("swan mid", &[4]),
        ("SWAN", &[5, 4]),
        ("wan", &[]),
        ("swan rating:>=4", &[5]),
        ("fo", &[1]),
        ("red fox picked", &[]),
    ];
    for (typed, want) in cases {
        t.clear_search();
        t.edit_search(|s| s.push_str(typed));
        assert_eq!(t.view, want.to_vec(), "{typed:?}");
    }
}

#[test]
fn marks_are_targets_and_moves_are_clamped() {
    let mut t = table();
    assert_eq!(t.targets(), vec![1], "the first task stays selected as newer ones arrive above it");
    t.select_at(0);
    assert_eq!(t.targets(), vec![3]);
    t.toggle_mark();
    t.move_by(5);
    t.toggle_mark();
    assert_eq!(t.targets(), vec![1, 3]);
    t.move_by(-10);
    assert_eq!(t.selected(), 0);
    assert_eq!(t.running(), 1);
}

#[test]
fn rows_sent_together_form_a_group_and_deleted_ones_leave() {
    let mut t = table();
    let sent = |id: i64, created: i64, prompt: &str, batch: Option<i64>| {
        let mut u = update(id, LocalState::Queued, created, prompt);
        u.record.batch_id = batch;
        u
    };
    // A bulk re-run of different prompts is one batch; two separate sends of one prompt,
    // a second apart, are not.
    t.upsert(sent(4, 1_000, "a grid", Some(4)));
    t.upsert(sent(5, 1_000, "another prompt", Some(4)));
    t.upsert(sent(6, 1_000, "a third", Some(4)));
    t.upsert(sent(7, 2_000, "same text", None));
    t.upsert(sent(8, 3_000, "same text", None));
    let groups: Vec<i64> = (4..=8).map(|id| t.row(id).map_or(0, |r| r.group)).collect();
    assert_eq!(groups, vec![4, 4, 4, 7, 8], "what the engine recorded, not a guess");
    t.set_sort(Sort::Oldest);
    let at = |t: &Table, id: i64| t.view.iter().position(|v| *v == id).unwrap_or(usize::MAX);
    assert!(t.grouped_with_next(at(&t, 4)) && t.grouped_with_next(at(&t, 5)));
    assert!(!t.grouped_with_next(at(&t, 6)) && !t.grouped_with_next(at(&t, 7)));
    t.select(5);
    t.toggle_mark();
    assert!(t.remove(5));
    assert!(t.row(5).is_none() && !t.view.contains(&5) && t.marks().is_empty());
    assert!(t.selected_id().is_some(), "a neighbour is selected");
    assert!(!t.remove(5), "only once");
}

#[test]
fn many_at_once_show_what_one_by_one_shows_under_every_sort_and_filter() {
    let states = [LocalState::Waiting, LocalState::Queued, LocalState::InProgress, LocalState::Downloaded];
    let batch: Vec<TaskUpdate> = (10..400)
        .map(|id| update(id, states[id as usize % states.len()], 1_000 + (id * 7919) % 500, "a wave"))
        .collect();
    let sorts = [Sort::Newest, Sort::Oldest, Sort::State, Sort::Model];
    let filters = Filter::ALL;
    for (sort, filter) in sorts.into_iter().flat_map(|s| filters.map(|f| (s, f))) {
        let (mut one, mut all) = (table(), table());
        for t in [&mut one, &mut all] {
            t.set_sort(sort);
            t.set_filter(filter);
            t.select(2);
        }
        batch.iter().cloned().for_each(|u| one.upsert(u));
        all.upsert_all(batch.clone());
        assert_eq!(all.view(), one.view(), "{sort:?} {filter:?}");
        assert_eq!(all.selected_id(), one.selected_id(), "{sort:?} {filter:?}: the selection stays");
        assert_eq!(all.running(), one.running(), "{sort:?} {filter:?}");
    }
}

#[test]
fn whether_any_task_is_reviewed_follows_every_change() {
    let rated = reel_store::Review { rating: Some(4), ..Default::default() };
    let mut t = table();
    assert!(!t.any_reviewed());
    let mut u = update(4, LocalState::Downloaded, 400, "a rated fox");
    u.record.review = rated.clone();
    t.upsert(u.clone());
    assert!(t.any_reviewed(), "a rated task arrives");
    u.record.review = reel_store::Review::default();
    t.upsert(u);
    assert!(!t.any_reviewed(), "its rating is taken back");
    t.set_review(1, &rated);
    assert!(t.any_reviewed(), "rated on screen");
    t.remove(1);
    assert!(!t.any_reviewed(), "deleted");
}
