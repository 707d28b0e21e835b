//! The compare view in `update`: opening it from marks or a batch, its keys, blind mode and
//! its reveal, playing the takes together on one clock.

use crossterm::event::KeyCode;
use image::{Rgb, RgbImage};

use super::testkit::*;
use super::*;
use crate::keymap::Scope;
use reel_engine::preview::Stills;
use reel_store::LocalState;
use reel_store::review::Change;

fn sha(id: i64) -> String {
    format!("{id:064}")
}

fn saved(app: &mut App, id: i64, batch: Option<i64>) {
    let mut r = rec(id, LocalState::Downloaded);
    r.sha256 = Some(sha(id));
    r.batch_id = batch;
    put(app, r);
}

fn ids(app: &App) -> Vec<i64> {
    app.compare().map(|c| c.takes().iter().map(|t| t.record.id).collect()).unwrap_or_default()
}

fn status(app: &App) -> String {
    app.status().map(|s| s.text.clone()).unwrap_or_default()
}

/// Three saved tasks of one batch and one sent alone, in the table.
fn tasks() -> App {
    let mut a = app();
    for id in 1..=3 {
        saved(&mut a, id, Some(1));
    }
    saved(&mut a, 4, None);
    key(&mut a, KeyCode::Esc);
    a
}

#[test]
fn c_compares_the_marked_tasks() {
    let mut a = tasks();
    for id in [4, 2] {
        select(&mut a, id);
        ch(&mut a, ' ');
    }
    let effects: Vec<Effect> =
        ch(&mut a, 'C').into_iter().filter(|e| !matches!(e, Effect::LoadStills { .. })).collect();
    assert_eq!(ids(&a), [2, 4], "oldest first");
    assert_eq!(a.scope(), Scope::Comparing);
    assert!(effects.is_empty(), "{effects:?}");
    for id in [2, 4] {
        assert!(!a.previews.want_stills(&sha(id)), "take {id}'s poster is asked for (once)");
    }
    assert!(status(&a).starts_with("Comparing 2 takes"), "{}", status(&a));
    key(&mut a, KeyCode::Esc);
    assert!(a.compare().is_none(), "Esc closes it");
    assert_eq!(a.scope(), Scope::Table);
}

#[test]
fn c_on_a_task_of_a_batch_compares_the_batch() {
    let mut a = tasks();
    select(&mut a, 2);
    ch(&mut a, 'C');
    assert_eq!(ids(&a), [1, 2, 3]);
    ch(&mut a, 'q');
    assert!(a.compare().is_none(), "q closes it (and does not quit)");
    assert!(!a.quitting());
    // A task sent alone, with one mark: nothing to compare, and the status says what to do.
    select(&mut a, 4);
    ch(&mut a, ' ');
    ch(&mut a, 'C');
    assert!(a.compare().is_none());
    assert!(status(&a).contains("Mark one more task"), "{}", status(&a));
    ch(&mut a, ' ');
    ch(&mut a, 'C');
    assert!(status(&a).starts_with("Mark 2 to 4 tasks"), "{}", status(&a));
}

#[test]
fn keys_move_between_takes_rate_them_and_pick_one() {
    let mut a = tasks();
    select(&mut a, 1);
    ch(&mut a, 'C');
    key(&mut a, KeyCode::Right);
    assert_eq!(a.compare().map(|c| c.focus()), Some(1));
    assert_eq!(ch(&mut a, '4'), [Effect::ReviewTake { id: 2, change: Change::Rate(Some(4)) }]);
    assert_eq!(a.compare().and_then(|c| c.rating(2)), Some(4));
    assert_eq!(key(&mut a, KeyCode::Enter), [Effect::ReviewTake { id: 2, change: Change::Pick(true) }]);
    assert_eq!(a.compare().and_then(|c| c.picked()), Some(2));
    assert!(status(&a).contains("Picked #2"), "{}", status(&a));
    key(&mut a, KeyCode::Left);
    key(&mut a, KeyCode::Left);
    assert_eq!(a.compare().map(|c| c.focus()), Some(2), "round the end");
    // A comparison has one winner: picking another takes the first pick back.
    let id = a.compare().and_then(|c| c.focused().map(|t| t.record.id)).expect("a take");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [
            Effect::ReviewTake { id, change: Change::Pick(true) },
            Effect::ReviewTake { id: 2, change: Change::Pick(false) }
        ]
    );
    assert!(status(&a).contains(&format!("#{id} is now the pick; #2 was")), "{}", status(&a));
    assert!(ch(&mut a, '9').is_empty(), "9 is no rating");
}

#[test]
fn at_80x24_two_takes_show_and_a_key_pages_to_the_others() {
    let mut a = tasks();
    a.update(Action::Resize(80, 24), NOW);
    select(&mut a, 1);
    ch(&mut a, 'C');
    let areas = a.compare_areas().expect("open");
    assert_eq!(areas.takes.iter().map(|t| t.index).collect::<Vec<_>>(), [0, 1]);
    assert!(status(&a).contains("PgDn"), "{}", status(&a));
    key(&mut a, KeyCode::PageDown);
    let areas = a.compare_areas().expect("open");
    assert_eq!(areas.takes.iter().map(|t| t.index).collect::<Vec<_>>(), [2]);
    a.update(Action::Resize(160, 48), NOW);
    let areas = a.compare_areas().expect("open");
    assert_eq!(areas.takes.len(), 3, "all three at 160x48");
}

#[test]
fn blind_mode_hides_until_every_take_is_rated() {
    let mut a = tasks();
    select(&mut a, 1);
    ch(&mut a, 'C');
    ch(&mut a, 'b');
    let c = a.compare().expect("open");
    assert!(c.blind() && !c.revealed());
    assert_eq!(c.name(0), "A");
    let mut seen = ids(&a);
    seen.sort_unstable();
    assert_eq!(seen, [1, 2, 3], "the same takes, shuffled");
    for (i, r) in ['5', '3', '1'].into_iter().enumerate() {
        assert!(!a.compare().is_some_and(Compare::revealed), "not before rating {i}");
        ch(&mut a, r);
        key(&mut a, KeyCode::Right);
    }
    assert!(a.compare().is_some_and(Compare::revealed));
    assert!(status(&a).contains("which is which"), "{}", status(&a));
    ch(&mut a, '2');
    assert!(!status(&a).contains("which is which"), "said once: {}", status(&a));
    key(&mut a, KeyCode::Esc);
    assert!(a.status().is_none(), "closing takes the comparison's words away");
}

#[test]
fn p_plays_every_take_on_one_clock() {
    let mut a = tasks();
    select(&mut a, 1);
    ch(&mut a, 'C');
    ch(&mut a, 'l');
    ch(&mut a, 'l');
    let effects = ch(&mut a, 'p');
    let Some(Effect::LoadClips { ticket, files, fps, width, height, frames }) = effects.first().cloned() else {
        panic!("clips asked for: {effects:?}")
    };
    let poster = a.compare_areas().and_then(|c| c.takes[0].poster).expect("a poster");
    let (w, h) = (u32::from(poster.width), u32::from(poster.height));
    assert_eq!((width, height), (w * 2, h * 4), "half blocks: two pixels a cell, decoded at twice that");
    assert_eq!(frames, CLIP_FRAMES);
    assert_eq!(files.iter().map(|(i, ..)| *i).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(fps, crate::preview::PLAY_FPS);
    assert!(!a.animating(), "nothing runs until every clip is in");
    let clip = |n: usize, shade: u8| Ok(vec![RgbImage::from_pixel(16, 9, Rgb([shade, 0, 0])); n]);
    a.update(Action::Clip(ticket, 0, clip(30, 30)), NOW);
    a.update(Action::Clip(ticket, 1, clip(10, 90)), NOW);
    assert_eq!(status(&a), "Decoding the takes to play them together…");
    a.update(Action::Clip(ticket, 2, clip(20, 180)), NOW);
    assert!(a.animating(), "the clock runs: the loop ticks");
    assert_eq!(status(&a), "Playing 3 takes together: Space pauses, Esc stops", "no longer decoding");
    a.update(Action::Tick, NOW + 1_500);
    assert_eq!(a.compare().and_then(|c| c.frames_at(NOW + 1_500, 10)), Some(vec![Some(15), Some(9), Some(15)]));
    let areas = a.compare_areas().expect("open");
    for t in &areas.takes {
        let poster = t.poster.expect("room for a poster at 120x32");
        assert!(a.compare().and_then(|c| c.picture(t.index, poster.as_size())).is_some(), "take {}", t.index);
    }
    // Space pauses and Esc stops, before the view's own keys.
    ch(&mut a, ' ');
    assert!(!a.animating());
    key(&mut a, KeyCode::Esc);
    assert!(a.compare().is_some_and(|c| c.playback().is_none()), "stopped, still comparing");
    key(&mut a, KeyCode::Esc);
    assert!(a.compare().is_none());
}

#[test]
fn posters_come_from_the_previews_stills() {
    let mut a = tasks();
    select(&mut a, 1);
    ch(&mut a, 'C');
    assert!(a.compare().is_some_and(|c| c.playback().is_none()));
    let stills = Stills { poster: RgbImage::from_pixel(64, 36, Rgb([10, 200, 10])), strip: Vec::new() };
    a.update(Action::Stills(sha(1), Ok(stills)), NOW);
    let areas = a.compare_areas().expect("open");
    let first = &areas.takes[0];
    let poster = first.poster.expect("room");
    assert!(a.compare().and_then(|c| c.picture(0, poster.as_size())).is_some(), "take 1's poster made");
    assert!(a.compare().and_then(|c| c.picture(1, poster.as_size())).is_none(), "take 2's still loading");
}

#[test]
fn c_in_the_history_compares_the_selected_tasks_batch() {
    use reel_engine::query::HistoryRow;
    let mut a = app();
    a.focus = Focus::Table;
    ch(&mut a, 'H');
    let ticket = a.history.ticket();
    let rows: Vec<HistoryRow> = [(3, Some(9)), (2, Some(9)), (1, None)]
        .into_iter()
        .map(|(id, batch)| {
            let mut r = rec(id, LocalState::Downloaded);
            r.sha256 = Some(sha(id));
            r.batch_id = batch;
            HistoryRow { record: r, file_present: Some(true) }
        })
        .collect();
    a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
    ch(&mut a, 'C');
    assert_eq!(ids(&a), [2, 3], "the batch of the selected (newest) task");
    assert_eq!(a.scope(), Scope::Comparing);
    key(&mut a, KeyCode::Esc);
    assert_eq!((a.screen(), a.scope()), (Screen::History, Scope::History), "back where it was opened");
}

#[test]
fn the_compare_view_opens_with_the_takes_reviews_and_refuses_a_take_without_video() {
    let mut a = tasks();
    let mut rated = rec(2, LocalState::Downloaded);
    rated.sha256 = Some(sha(2));
    rated.batch_id = Some(1);
    rated.review = reel_store::Review { rating: Some(5), picked: true, tags: vec![] };
    put(&mut a, rated);
    put(&mut a, reel_store::TaskRecord { batch_id: Some(9), ..rec(5, LocalState::Failed) });
    select(&mut a, 2);
    ch(&mut a, 'C');
    let c = a.compare().expect("open");
    assert_eq!((c.rating(2), c.picked()), (Some(5), Some(2)), "what the take already has");
    key(&mut a, KeyCode::Esc);
    // Marked with a failed task: that one cannot be judged, and says why.
    for id in [1, 5] {
        select(&mut a, id);
        ch(&mut a, ' ');
    }
    ch(&mut a, 'C');
    key(&mut a, KeyCode::Right);
    assert!(key(&mut a, KeyCode::Enter).is_empty(), "no pick of a take with no video");
    assert!(status(&a).contains("#5 has no video to judge: it ended failed"), "{}", status(&a));
    assert!(ch(&mut a, '4').is_empty());
}
