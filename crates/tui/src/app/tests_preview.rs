//! Previews in `update`: what is asked for, when pictures are made, the player's keys and its
//! stops, the grid's thumbnails, and what the panes say without ffmpeg.

use crossterm::event::KeyCode;
use image::{Rgb, RgbImage};
use ratatui::layout::Rect;

use super::testkit::*;
use super::*;
use crate::preview::PreviewFailure;
use reel_engine::preview::Stills;
use reel_store::LocalState;

const SHA: &str = "aa00000000000000000000000000000000000000000000000000000000000001";

fn saved(app: &mut App, id: i64, sha: &str) -> Vec<Effect> {
    let mut r = rec(id, LocalState::Downloaded);
    r.sha256 = Some(sha.to_string());
    put(app, r)
}

fn stills() -> Stills {
    Stills {
        poster: RgbImage::from_pixel(64, 36, Rgb([200, 30, 30])),
        strip: vec![RgbImage::from_pixel(32, 18, Rgb([30, 200, 30])); 5],
    }
}

fn loads(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::LoadStills { sha256, .. } => Some(sha256.clone()),
            _ => None,
        })
        .collect()
}

/// A dashboard at 160x48 with task 1 saved and selected.
fn with_saved() -> App {
    let mut a = app();
    a.update(Action::Resize(160, 48), NOW);
    saved(&mut a, 1, SHA);
    select(&mut a, 1);
    a
}

#[test]
fn the_selected_saved_task_has_its_stills_asked_for_once_and_drawn_when_they_come() {
    let mut a = app();
    a.update(Action::Resize(160, 48), NOW);
    let e = saved(&mut a, 1, SHA);
    assert_eq!(loads(&e), [SHA], "the new task is selected: its stills are wanted");
    assert!(loads(&a.update(Action::Tick, NOW)).is_empty(), "asked once");
    assert!(a.previews.shown().is_none());
    a.update(Action::Stills(SHA.into(), Ok(stills())), NOW);
    let shown = a.previews.shown().expect("pictures made");
    assert_eq!(shown.strip.len(), 5, "a strip under the poster at 160x48");
    // At 100x30 the pane is small: a poster, no strip; at 80x24 too narrow for a poster.
    a.update(Action::Resize(100, 30), NOW);
    assert_eq!(a.previews.shown().map(|s| s.strip.len()), Some(0));
    a.update(Action::Resize(80, 24), NOW);
    assert!(a.previews.shown().is_none());
    // Tasks without a verified file ask for nothing.
    let e = task(&mut a, 2, LocalState::InProgress);
    select(&mut a, 2);
    assert!(loads(&e).is_empty() && loads(&a.update(Action::Tick, NOW)).is_empty());
    assert!(a.previews.shown().is_none(), "nothing shown for a task without a file");
}

#[test]
fn without_ffmpeg_the_pane_says_how_to_get_previews_and_nothing_is_asked_again() {
    let mut a = with_saved();
    let why = "previews need ffmpeg: install it";
    a.update(Action::Stills(SHA.into(), Err(PreviewFailure { message: why.into(), no_ffmpeg: true })), NOW);
    assert_eq!(a.previews.no_ffmpeg(), Some(why));
    assert!(a.preview_fit(Rect::new(0, 0, 100, 14)).is_none(), "no picture area: the text keeps the pane");
    assert!(loads(&a.update(Action::Tick, NOW)).is_empty(), "this file is not asked for again");
    saved(&mut a, 2, "bb");
    select(&mut a, 2);
    assert_eq!(loads(&a.update(Action::Tick, NOW)), ["bb"], "another may be in the cache, which needs no ffmpeg");
    select(&mut a, 1);
    ch(&mut a, 'p');
    assert!(status(&a).starts_with("Previews need ffmpeg"), "{}", status(&a));
    assert!(a.previews.playing().is_none());
}

#[test]
fn p_plays_in_the_poster_space_pauses_esc_stops_and_moving_away_stops() {
    let mut a = with_saved();
    a.update(Action::Stills(SHA.into(), Ok(stills())), NOW);
    let e = acts(ch(&mut a, 'p'));
    let Some(Effect::Play { ticket, width, height, fps, path, .. }) = e.first().cloned() else {
        panic!("{e:?}");
    };
    assert_eq!((path.as_str(), fps), ("/videos/1.mp4", crate::preview::PLAY_FPS));
    let poster = a.preview_fit(a.detail_inner()).expect("fit").1.poster;
    assert_eq!((width, height), (u32::from(poster.width) * 10, u32::from(poster.height) * 20), "the poster, in pixels");
    assert!(a.playing());
    // A frame becomes the picture; a frame of an older start does not.
    a.update(Action::PlayFrame(ticket, RgbImage::from_pixel(16, 9, Rgb([0, 0, 255]))), NOW);
    assert!(a.previews.playing().is_some_and(|p| p.frame.is_some()));
    assert_eq!(acts(key(&mut a, KeyCode::Char(' '))), [Effect::PlayPause(true)], "Space pauses, not marks");
    assert!(a.table.marks().is_empty());
    assert_eq!(acts(key(&mut a, KeyCode::Char(' '))), [Effect::PlayPause(false)]);
    // The help over the pane holds it back; closing the help lets it go on.
    assert!(acts(key(&mut a, KeyCode::F(1))).contains(&Effect::PlayPause(true)));
    assert!(acts(key(&mut a, KeyCode::Esc)).contains(&Effect::PlayPause(false)), "Esc closes the help first");
    assert_eq!(acts(key(&mut a, KeyCode::Esc)), [Effect::PlayStop]);
    assert!(!a.playing());
    assert_eq!(acts(key(&mut a, KeyCode::Esc)), [], "Esc is the table's again");
    // Another task selected stops it.
    acts(ch(&mut a, 'p'));
    saved(&mut a, 2, "bb");
    select(&mut a, 2);
    assert!(a.update(Action::Tick, NOW).contains(&Effect::PlayStop));
    assert!(a.previews.playing().is_none());
}

#[test]
fn p_says_why_it_cannot_play() {
    let mut a = app();
    task(&mut a, 1, LocalState::InProgress);
    select(&mut a, 1);
    assert!(acts(ch(&mut a, 'p')).is_empty());
    assert_eq!(status(&a), "This task has no saved video to play yet");
    let mut a = with_saved();
    a.update(Action::Resize(40, 12), NOW);
    assert!(acts(ch(&mut a, 'p')).is_empty());
    assert!(status(&a).starts_with("No room to play here"), "{}", status(&a));
}

#[test]
fn a_player_that_cannot_start_says_why() {
    let mut a = with_saved();
    let Some(Effect::Play { ticket, .. }) = acts(ch(&mut a, 'p')).first().cloned() else { panic!() };
    a.update(Action::PlayFailed(crate::latest::Ticket::default(), "stale".into()), NOW);
    assert!(a.playing(), "an older start's failure is not this one's");
    a.update(Action::PlayFailed(ticket, "ffmpeg could not read /videos/1.mp4: Invalid data".into()), NOW);
    assert!(!a.playing());
    assert_eq!(
        status(&a),
        "Cannot play the preview: ffmpeg could not read 1.mp4: Invalid data",
        "the name, not the path"
    );
}

#[test]
fn the_history_grid_asks_for_the_posters_on_screen() {
    let mut a = app();
    a.update(Action::Resize(160, 48), NOW);
    a.focus = Focus::Table;
    ch(&mut a, 'H');
    assert_eq!(a.screen, Screen::History);
    let ticket = a.history.ticket();
    let rows: Vec<_> = (1..=100)
        .map(|id| {
            let mut r = rec(id, if id % 10 == 0 { LocalState::Failed } else { LocalState::Downloaded });
            r.sha256 = (id % 10 != 0).then(|| format!("{id:064}"));
            reel_engine::query::HistoryRow { record: r, file_present: Some(true) }
        })
        .collect();
    a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
    let e = ch(&mut a, 'g');
    assert!(a.history.grid());
    let Some(Effect::LoadThumbs { files, width, height }) =
        e.into_iter().find(|e| matches!(e, Effect::LoadThumbs { .. }))
    else {
        panic!("no thumbnails asked for");
    };
    let (_, g) = a.grid();
    let on_screen = g.cells();
    assert_eq!(files.len(), on_screen - on_screen / 10, "every cell with a file, no failed task");
    assert_eq!((width, height), (u32::from(g.poster.0) * 10, u32::from(g.poster.1) * 20));
    let (sha, _) = files[0].clone();
    a.update(Action::Thumb(sha.clone(), Ok(RgbImage::from_pixel(40, 22, Rgb([9, 9, 9])))), NOW);
    assert!(a.previews.thumb_picture(&sha).is_some());
    // Moving down a screen asks for the next posters only.
    let e = key(&mut a, KeyCode::PageDown);
    let more: Vec<_> = e
        .iter()
        .filter_map(|e| if let Effect::LoadThumbs { files, .. } = e { Some(files.clone()) } else { None })
        .flatten()
        .collect();
    assert!(!more.is_empty() && more.iter().all(|f| !files.contains(f)), "{more:?}");
    // Down goes a row of posters, right one poster.
    key(&mut a, KeyCode::Home);
    key(&mut a, KeyCode::Down);
    assert_eq!(a.history.selected(), usize::from(g.cols));
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Left);
    assert_eq!(a.history.selected(), usize::from(g.cols) + 1);
    ch(&mut a, 'g');
    assert!(!a.history.grid(), "g goes back to the list");
    key(&mut a, KeyCode::Down);
    assert_eq!(a.history.selected(), usize::from(g.cols) + 2, "the list goes one by one");
}
