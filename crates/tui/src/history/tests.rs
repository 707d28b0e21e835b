use super::*;
use reel_store::LocalState;
use reel_store::fixtures::record;

#[test]
fn word_diffs() {
    use Piece::*;
    let s = |x: &str| x.to_string();
    let cases: Vec<(&str, &str, Vec<Piece>)> = vec![
        ("a red fox", "a red fox", vec![Same(s("a")), Same(s("red")), Same(s("fox"))]),
        ("a red fox", "a blue fox", vec![Same(s("a")), Added(s("blue")), Removed(s("red")), Same(s("fox"))]),
        ("a fox", "a fox in snow", vec![Same(s("a")), Same(s("fox")), Added(s("in")), Added(s("snow"))]),
        ("slow a fox", "a fox", vec![Removed(s("slow")), Same(s("a")), Same(s("fox"))]),
        ("", "new", vec![Added(s("new"))]),
    ];
    for (old, new, want) in cases {
        assert_eq!(word_diff(old, new), want, "{old} → {new}");
    }
}

#[test]
fn settings_diffs_name_what_changed() {
    let parent = record(1, LocalState::Downloaded);
    let mut child = record(2, LocalState::Downloaded);
    child.seconds = 10;
    child.ratio = "9:16".into();
    assert_eq!(settings_diff(&parent, &child), vec!["seconds 5 → 10", "ratio 16:9 → 9:16"]);
}

#[test]
fn a_lineage_is_worked_out_once_and_cleaned() {
    let mut parent = record(1, LocalState::Downloaded);
    parent.prompt = "a red fox".into();
    let mut child = record(2, LocalState::Downloaded);
    child.prompt = "a \u{1b}[31mblue fox".into();
    child.seconds = 10;
    let l = Lineage::new(2, Some(&child), Some(parent.clone()), vec![]);
    let s = |x: &str| x.to_string();
    assert_eq!(
        l.prompt_diff,
        vec![Piece::Same(s("a")), Piece::Added(s("[31mblue")), Piece::Removed(s("red")), Piece::Same(s("fox"))]
    );
    assert_eq!(l.settings_diff, "seconds 5 → 10");
    let unknown = Lineage::new(2, None, Some(parent), vec![]);
    assert!(unknown.prompt_diff.is_empty() && unknown.settings_diff.is_empty(), "no child row, no diff");
}

#[test]
fn pages_and_generations() {
    let mut h = History::default();
    let (g, _) = h.restart(0);
    assert_eq!(h.next_page(0), None, "a page is on its way");
    let page: Vec<HistoryRow> = (0..PAGE as i64)
        .map(|i| HistoryRow { record: record(1000 - i, LocalState::Downloaded), file_present: Some(true) })
        .collect();
    let mut newer = History::default();
    newer.restart(0);
    let (stale, _) = newer.restart(0);
    assert!(!newer.add_page(Ticket::default(), page.clone()) && newer.add_page(stale, vec![]));
    assert!(h.add_page(g, page));
    assert_eq!(h.next_page(0), None, "far from the end");
    h.move_by(PAGE as isize);
    assert_eq!(h.next_page(0).map(|(t, _, c)| (t, c)), Some((g, Some(1000 - PAGE as i64 + 1))));
    assert!(h.add_page(g, vec![]));
    assert!(h.done());
}

#[test]
fn spans_and_cycles() {
    assert_eq!(Span::Week.since(700_000_000), Some(700_000_000 - 6 * 86_400_000));
    assert_eq!(Span::All.since(1), None);
    let models = vec!["a".to_string(), "b".to_string()];
    assert_eq!(cycle(&None, &models), Some("a".to_string()));
    assert_eq!(cycle(&Some("a".to_string()), &models), Some("b".to_string()));
    assert_eq!(cycle(&Some("b".to_string()), &models), None);
}

#[test]
fn a_grid_has_captions_that_tell_its_tasks_apart() {
    let mut captions = Vec::new();
    for (id, (ratio, seconds)) in [("16:9", 5), ("16:9", 10), ("9:16", 5), ("9:16", 10)].into_iter().enumerate() {
        let mut t = record(10 + id as i64, LocalState::Downloaded);
        (t.ratio, t.seconds, t.batch_id) = (ratio.into(), seconds, Some(10));
        captions.push(Entry::from(HistoryRow { record: t, file_present: Some(true) }).caption);
    }
    assert_eq!(captions[0], format!("#10 16:9 5 s · {}", record(10, LocalState::Downloaded).prompt));
    captions.sort();
    captions.dedup();
    assert_eq!(captions.len(), 4, "{captions:?}");
    let alone = Entry::from(HistoryRow { record: record(3, LocalState::Queued), file_present: None });
    assert_eq!(alone.caption, alone.prompt, "a task sent alone is its prompt");
}

#[test]
fn whether_a_loaded_row_is_reviewed_follows_pages_news_and_deletions() {
    let rated = reel_store::Review { rating: Some(5), ..Default::default() };
    let row = |id, review: &reel_store::Review| {
        let mut r = record(id, LocalState::Downloaded);
        r.review = review.clone();
        HistoryRow { record: r, file_present: Some(true) }
    };
    let mut h = History::default();
    let (g, _) = h.restart(0);
    h.add_page(g, vec![row(3, &Default::default()), row(2, &rated), row(1, &Default::default())]);
    assert!(h.any_reviewed(), "a page with a rated row");
    h.apply(&row(2, &Default::default()).record, true);
    assert!(!h.any_reviewed(), "its rating taken back by the engine");
    h.set_review(1, &rated);
    assert!(h.any_reviewed(), "rated on screen");
    h.remove(1);
    assert!(!h.any_reviewed(), "deleted");
    h.set_review(3, &rated);
    h.restart(0);
    assert!(!h.any_reviewed(), "a new query starts with nothing loaded");
}
