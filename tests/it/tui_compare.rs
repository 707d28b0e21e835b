//! The compare view drawn on ratatui's TestBackend: takes side by side with their posters in
//! half blocks, the words and settings that differ, blind mode before and after its reveal,
//! at 80x24 (two takes, the others a page away) and 160x48 (four).

use crate::common::screen::{draw, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use image::{Rgb, RgbImage};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use reel_engine::config::Pricing;
use reel_engine::preview::Stills;
use reel_engine::{Event, TaskUpdate};
use reel_store::fixtures::record;
use reel_store::{LocalState, TaskRecord};
use reel_tui::app::{Action, App, Focus};

const NOW: i64 = 1_800_000_100_000;
const MODEL: &str = "acme/aurora-3.0/text-to-video";

fn sha(id: i64) -> String {
    format!("c0ffee{id:058}")
}

fn app(width: u16, height: u16) -> App {
    crate::common::utc();
    let pricing = Pricing { currency: "$".into(), per_second: [(MODEL.to_string(), 0.08)].into_iter().collect() };
    let mut a = crate::common::dashboard(pricing, NOW);
    a.update(Action::Resize(width, height), NOW);
    a.focus_on(Focus::Table);
    a
}

/// Take `id` of batch 1: a saved video rendered in `took` seconds, billed its seconds.
fn take(id: i64, prompt: &str, tweak: impl Fn(&mut TaskRecord)) -> TaskRecord {
    let mut r = record(id, LocalState::Downloaded);
    r.batch_id = Some(1);
    r.model = MODEL.into();
    r.prompt = prompt.into();
    r.created_at = NOW - 600_000 + id * 1000;
    r.remote_created_at = Some(r.created_at / 1000);
    r.remote_completed_at = Some(r.created_at / 1000 + 60 + id * 7);
    r.billed_seconds = Some(r.seconds as f64);
    r.file_path = Some(format!("/videos/{id}.mp4"));
    r.file_size = Some(1_000_000);
    r.sha256 = Some(sha(id));
    tweak(&mut r);
    r
}

/// Four takes of one batch: two wordings, two durations, a portrait one, another model.
fn takes() -> Vec<TaskRecord> {
    vec![
        take(1, "a lighthouse at dusk, waves crashing on the rocks", |_| {}),
        take(2, "a lighthouse at dawn, calm sea and gulls", |_| {}),
        take(3, "a lighthouse at dusk, waves crashing on the rocks", |r| {
            r.seconds = 10;
            r.billed_seconds = Some(10.0);
        }),
        take(4, "a lighthouse at dusk in heavy fog", |r| {
            r.model = "nimbus/v2".into();
            r.ratio = "9:16".into();
        }),
    ]
}

const SEA: [u8; 3] = [10, 10, 60];

/// A poster in one colour per take above a dark sea, so each take is told apart.
fn stills(id: i64) -> Stills {
    let colour = [[220, 20, 20], [20, 20, 220], [20, 200, 20], [250, 250, 250]][(id as usize - 1) % 4];
    let poster = RgbImage::from_fn(480, 270, |_, y| Rgb(if y < 135 { colour } else { SEA }));
    Stills { poster, strip: Vec::new() }
}

fn press(a: &mut App, c: char) {
    let mods = if c.is_uppercase() { KeyModifiers::SHIFT } else { KeyModifiers::NONE };
    a.update(Action::Key(KeyEvent::new(KeyCode::Char(c), mods)), NOW);
}

/// The batch in the table, its first take selected, `C` pressed, and the posters of the takes
/// in `with_posters` made (the others still "making preview").
fn comparing(width: u16, height: u16, with_posters: &[i64]) -> App {
    let mut a = app(width, height);
    for r in takes() {
        a.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: r, eta_ms: None }))), NOW);
    }
    a.focus_on(Focus::Table);
    a.select_row(0);
    press(&mut a, 'C');
    assert!(a.compare().is_some(), "open: {:?}", a.status());
    for id in with_posters {
        a.update(Action::Stills(sha(*id), Ok(stills(*id))), NOW);
    }
    a
}

/// The colour a quarter of the way down take `index`'s poster, in the middle: the upper half
/// of a half block (a space is one colour, its background).
fn poster_colour(a: &App, b: &Buffer, index: usize) -> Option<Color> {
    let areas = a.compare_areas()?;
    let p = areas.takes.iter().find(|t| t.index == index)?.poster?;
    let cell = &b[(p.x + p.width / 2, p.y + p.height / 4)];
    match cell.symbol() {
        "▀" => Some(cell.fg),
        "▄" | " " => Some(cell.bg).filter(|c| *c != Color::Reset),
        _ => None,
    }
}

/// The words drawn underlined (the words only this take has) in take `index`'s text.
fn marked_words(a: &App, b: &Buffer, index: usize) -> Vec<String> {
    let areas = a.compare_areas().expect("open");
    let r = areas.takes.iter().find(|t| t.index == index).expect("on screen").text;
    let mut words = Vec::new();
    for y in r.top()..r.bottom() {
        let mut word = String::new();
        for x in r.left()..r.right() {
            let cell = &b[(x, y)];
            if cell.modifier.contains(Modifier::UNDERLINED) && cell.symbol() != " " {
                word.push_str(cell.symbol());
            } else if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

#[test]
fn two_takes_side_by_side_at_80x24() {
    let a = comparing(80, 24, &[1, 2, 3, 4]);
    let b = draw(&a);
    insta::assert_snapshot!("compare_80x24", text(&b));
    assert_eq!(poster_colour(&a, &b, 0), Some(Color::Rgb(220, 20, 20)), "take 1's poster, in half blocks");
    assert_eq!(poster_colour(&a, &b, 1), Some(Color::Rgb(20, 20, 220)), "take 2's");
    assert_eq!(marked_words(&a, &b, 0), Vec::<String>::new(), "take 3 has every word of take 1");
    assert_eq!(marked_words(&a, &b, 1), ["dawn,", "calm", "sea", "and", "gulls"]);
    let mut a = a;
    a.update(Action::Key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE)), NOW);
    insta::assert_snapshot!("compare_80x24_page_2", text(&draw(&a)));
    // The smallest terminal reel draws in: one take, text only.
    a.update(Action::Resize(40, 10), NOW);
    let small = text(&draw(&a));
    assert!(small.contains("┌ #3 ") && !small.contains("┌ #4 "), "{small}");
}

#[test]
fn four_takes_at_160x48() {
    let a = comparing(160, 48, &[1, 2, 4]);
    let b = draw(&a);
    insta::assert_snapshot!("compare_160x48", text(&b));
    assert_eq!(poster_colour(&a, &b, 3), Some(Color::Rgb(250, 250, 250)), "take 4's poster");
    assert_eq!(poster_colour(&a, &b, 2), None, "take 3's is still being made");
    assert_eq!(marked_words(&a, &b, 3), ["in", "heavy", "fog"]);
}

#[test]
fn blind_mode_hides_the_models_until_every_take_is_rated() {
    let mut a = comparing(160, 48, &[1, 2, 3, 4]);
    press(&mut a, 'b');
    let hidden = text(&draw(&a));
    insta::assert_snapshot!("compare_blind_160x48", hidden);
    assert!(!hidden.contains("nimbus") && !hidden.contains("aurora"), "no model is named");
    for r in ['4', '2', '5', '3'] {
        press(&mut a, r);
        press(&mut a, 'l');
    }
    let shown = text(&draw(&a));
    insta::assert_snapshot!("compare_blind_revealed_160x48", shown);
    assert!(shown.contains("nimbus"), "revealed");
}

#[test]
fn playing_together_shows_each_takes_frame_of_one_clock() {
    use reel_tui::app::Effect;
    let mut a = comparing(80, 24, &[1, 2]);
    let effects = a.update(Action::Key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::NONE)), NOW);
    let Some(Effect::LoadClips { ticket, files, .. }) =
        effects.into_iter().find(|e| matches!(e, Effect::LoadClips { .. }))
    else {
        panic!("no clips asked for")
    };
    assert_eq!(
        files.iter().map(|(i, ..)| *i).collect::<Vec<_>>(),
        [0, 1],
        "the takes on screen, not the two on the next page"
    );
    insta::assert_snapshot!("compare_decoding_80x24", text(&draw(&a)).lines().nth(1).unwrap_or_default());
    // Take 1 lasts 3 frames, take 2 ten: frame n of each is a shade of its own colour.
    let clip = |n: u8, base: [u8; 3]| {
        let frames = (0..n).map(|i| RgbImage::from_pixel(64, 36, Rgb([base[0], base[1] + i * 10, base[2]]))).collect();
        Ok(frames)
    };
    a.update(Action::Clip(ticket, 0, clip(3, [200, 0, 0])), NOW);
    a.update(Action::Clip(ticket, 1, clip(10, [0, 0, 200])), NOW);
    // The clock starts once the takes on screen are in.
    a.update(Action::Tick, NOW + 550);
    let b = draw(&a);
    assert!(text(&b).contains("▶ playing together"), "{}", text(&b));
    // 0.55 s at 10 frames a second: frame 5; take 1 has ended and holds its last frame (2).
    assert_eq!(poster_colour(&a, &b, 0), Some(Color::Rgb(200, 20, 0)));
    assert_eq!(poster_colour(&a, &b, 1), Some(Color::Rgb(0, 50, 200)));
    a.update(Action::Key(KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE)), NOW + 550);
    a.update(Action::Tick, NOW + 5_000);
    let b = draw(&a);
    assert!(text(&b).contains("❚❚ paused"));
    assert_eq!(poster_colour(&a, &b, 1), Some(Color::Rgb(0, 50, 200)), "the clock stands still");
}
