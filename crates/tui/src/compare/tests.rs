use super::*;
use reel_store::fixtures::record;

fn saved(id: i64, batch: Option<i64>) -> TaskRecord {
    let mut t = record(id, LocalState::Downloaded);
    t.batch_id = batch;
    t.file_path = Some(format!("/videos/{id}.mp4"));
    t.sha256 = Some(format!("{id:064}"));
    t
}

fn ids(takes: &Result<Vec<Take>, Refusal>) -> Result<Vec<i64>, Refusal> {
    takes.as_ref().map(|t| t.iter().map(|t| t.record.id).collect()).map_err(Clone::clone)
}

#[test]
fn the_takes_are_the_marks_or_the_selected_batch() {
    let rows = vec![
        saved(1, Some(1)),
        saved(2, Some(1)),
        saved(3, Some(1)),
        record(4, LocalState::InProgress),
        saved(5, None),
        saved(6, Some(6)),
        record(7, LocalState::Failed),
    ];
    let mut batch = rows.clone();
    batch[3].batch_id = Some(1);
    batch[6].batch_id = Some(6);
    let all = |rs: &'static [TaskRecord]| rs.iter().map(|t| (t, None));
    let rows: &'static [TaskRecord] = Box::leak(batch.into_boxed_slice());
    let r = |i: usize| &rows[i];
    // (marked, selected, what is compared)
    type Case = (Vec<usize>, Option<usize>, Result<Vec<i64>, Refusal>);
    let cases: Vec<Case> = vec![
        (vec![4, 0], None, Ok(vec![1, 5])),
        (vec![0, 3, 5], Some(1), Ok(vec![1, 4, 6])),
        (vec![], Some(1), Ok(vec![1, 2, 3])),
        (vec![4], Some(2), Ok(vec![1, 2, 3])),
        (vec![4], Some(4), Err(Refusal::OneMarked)),
        (vec![], Some(4), Err(Refusal::Nothing)),
        (vec![], None, Err(Refusal::Nothing)),
        (vec![], Some(5), Err(Refusal::SmallBatch(1))),
    ];
    for (marked, selected, want) in cases {
        let m = marked.iter().map(|i| (r(*i), None)).collect();
        let got = choose_takes(m, selected.map(r), all(rows));
        assert_eq!(ids(&got), want, "marked {marked:?}, selected {selected:?}");
    }
    let gone = choose_takes(vec![(r(0), Some(false)), (r(1), Some(true))], None, all(rows)).expect("two");
    assert_eq!(gone[0].file, None, "a file missing on disk is not played");
    assert!(gone[1].file.is_some());
    assert!(Refusal::SmallBatch(1).message().contains("1 saved video:"));
}

fn three() -> Compare {
    Compare::new(vec![1, 2, 3].into_iter().map(|id| Take::new(saved(id, Some(1)), None)).collect())
}

#[test]
fn focus_and_pages_go_round() {
    let mut c = three();
    c.step(false);
    assert_eq!(c.focus(), 2);
    c.step(true);
    assert_eq!(c.focus(), 0);
    c.page(true, 2);
    assert_eq!(c.focus(), 2, "the second page starts at the third take");
    c.page(true, 2);
    assert_eq!(c.focus(), 0, "and round");
    c.page(false, 2);
    assert_eq!(c.focus(), 2);
}

#[test]
fn ratings_and_the_pick_are_of_the_focused_take() {
    let mut c = three();
    c.step(true);
    assert_eq!(c.rate(9), Some(2), "clamped to 5");
    assert_eq!(c.rating(2), Some(5));
    assert_eq!(c.pick(), Some((2, vec![])));
    assert_eq!(c.picked(), Some(2));
    assert_eq!(c.name(1), "#2");
    assert!(c.revealed(), "nothing hidden outside blind mode");
}

#[test]
fn blind_mode_shuffles_hides_and_reveals_once_all_are_rated() {
    let mut c = three();
    c.rate(4);
    c.toggle_blind(1_732_000_000_123);
    assert!(c.blind() && !c.revealed());
    assert_eq!(c.rating(1), None, "ratings given before are given again, blind");
    let mut order: Vec<i64> = c.takes().iter().map(|t| t.record.id).collect();
    assert_eq!(order, blind::order(3, 1_732_000_000_123).into_iter().map(|i| i as i64 + 1).collect::<Vec<_>>());
    assert_eq!((c.name(0), c.name(2)), ("A".to_string(), "C".to_string()));
    for r in [3, 5] {
        c.rate(r);
        c.step(true);
        assert!(!c.revealed());
    }
    c.rate(1);
    assert!(c.revealed(), "every take rated");
    assert_eq!(c.name(0), "A", "the letters stay, the names are shown beside them");
    order.sort_unstable();
    assert_eq!(order, [1, 2, 3]);
    c.toggle_blind(0);
    assert!(!c.blind());
    assert_eq!(c.name(0).chars().next(), Some('#'));
}

#[test]
fn the_clock_starts_once_every_clip_is_in_and_old_starts_are_dropped() {
    let mut c = three();
    let old = c.play();
    let now = c.play();
    let frames = |n: usize| Ok(Arc::new(vec![RgbImage::new(2, 2); n]));
    c.clip_arrived(old, 0, frames(10), 1_000);
    assert!(c.playback().is_some_and(|p| p.clips[0].is_none()), "an older start's clip is dropped");
    c.clip_arrived(now, 0, frames(20), 1_000);
    c.clip_arrived(now, 1, Err("no saved video".into()), 1_000);
    assert_eq!(c.frames_at(1_500, 10), None, "not yet: one clip is still decoded");
    assert!(!c.running());
    c.clip_arrived(now, 2, frames(5), 2_000);
    assert!(c.running());
    assert_eq!(c.frames_at(2_700, 10), Some(vec![Some(7), None, Some(4)]));
    assert_eq!(c.toggle_pause(2_700), Some(true));
    assert_eq!(c.frames_at(9_000, 10), Some(vec![Some(7), None, Some(4)]), "paused");
    assert!(c.stop());
    assert!(!c.stop());
    assert_eq!(c.toggle_pause(0), None);
}

#[test]
fn a_comparison_shows_the_reviews_the_takes_have_and_keeps_them_after_blind_mode() {
    let mut a = saved(1, Some(1));
    a.review = reel_store::Review { rating: Some(4), ..Default::default() };
    let mut b = saved(2, Some(1));
    b.review = reel_store::Review { picked: true, ..Default::default() };
    let c3 = saved(3, Some(1));
    let mut c = Compare::new([a, b, c3].into_iter().map(|t| Take::new(t, Some(true))).collect());
    assert_eq!((c.rating(1), c.picked()), (Some(4), Some(2)), "opened with what they have");
    c.toggle_blind(7);
    assert_eq!((c.rating(1), c.picked()), (None, None), "rated blind, afresh");
    c.toggle_blind(7);
    let order: Vec<i64> = c.takes().iter().map(|t| t.record.id).collect();
    assert_eq!(order, vec![1, 2, 3], "the order they were opened in");
    assert_eq!((c.rating(1), c.picked()), (Some(4), Some(2)), "and their reviews again");
    // A review reported from elsewhere is shown.
    c.reviewed(3, &reel_store::Review { rating: Some(2), picked: true, tags: vec![] });
    assert_eq!((c.rating(3), c.picked()), (Some(2), Some(3)));
    c.reviewed(3, &reel_store::Review::default());
    assert_eq!((c.rating(3), c.picked()), (None, None));
}

#[test]
fn a_take_with_no_video_is_neither_rated_nor_picked_and_says_why() {
    let failed = record(4, LocalState::Failed);
    let mut gone = saved(5, None);
    gone.file_path = Some("/videos/5.mp4".into());
    let takes = vec![Take::new(saved(1, None), Some(true)), Take::new(failed, None), Take::new(gone, Some(false))];
    let mut c = Compare::new(takes);
    assert_eq!(c.no_video(), None);
    c.step(true);
    assert_eq!(c.no_video().as_deref(), Some("#4 has no video to judge: it ended failed"));
    assert_eq!((c.rate(5), c.pick()), (None, None), "refused");
    c.step(true);
    assert_eq!(c.no_video().as_deref(), Some("#5 has no video to judge: its saved file is missing"));
    c.step(true);
    assert!(c.rate(3).is_some() && c.pick().is_some(), "the saved one");
}

#[test]
fn blind_mode_reveals_once_every_take_with_a_video_is_rated() {
    let takes = vec![
        Take::new(saved(1, None), Some(true)),
        Take::new(saved(2, None), Some(true)),
        Take::new(record(3, LocalState::Failed), None),
    ];
    let mut c = Compare::new(takes);
    c.toggle_blind(1);
    for _ in 0..3 {
        if c.no_video().is_none() {
            assert!(c.rate(3).is_some());
        }
        c.step(true);
    }
    assert!(c.revealed(), "the take with no video does not hold the reveal back");
}
