//! Previews drawn on ratatui's TestBackend: a known frame in half blocks (a snapshot of the
//! characters and of the colours), the strip, the stand-in while frames are made, the note
//! without ffmpeg, and the history grid and its detail, at 80x24 (where the task table's pane
//! is too narrow for a poster), 100x30 and 160x48.

use crate::common::screen::{draw, text};
use image::{Rgb, RgbImage};
use ratatui::buffer::Buffer;
use ratatui::layout::{Margin, Rect};
use ratatui::style::Color;
use reel_engine::config::{Budget, Pricing};
use reel_engine::preview::Stills;
use reel_engine::query::HistoryRow;
use reel_engine::{Event, ServiceState, TaskUpdate};
use reel_rules::Catalog;
use reel_store::LocalState;
use reel_store::fixtures::record;
use reel_tui::app::{Action, App, Focus, Header};
use reel_tui::layout;
use reel_tui::prefs::Prefs;
use reel_tui::preview::PreviewFailure;

const NOW: i64 = 1_800_000_100_000;
const SHA: &str = "5ca1ab1e00000000000000000000000000000000000000000000000000000001";
const RED: [u8; 3] = [220, 20, 20];
const BLUE: [u8; 3] = [20, 20, 220];
const WHITE: [u8; 3] = [250, 250, 250];
const GREEN: [u8; 3] = [20, 200, 20];

fn app(width: u16, height: u16) -> App {
    crate::common::utc();
    let header = Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: ServiceState::default(),
    };
    let mut a = App::new(
        Catalog::builtin(),
        Pricing::default(),
        vec![],
        Budget::default(),
        header,
        Prefs::default(),
        NOW,
        (width, height),
    );
    a.focus_on(Focus::Table);
    a
}

fn saved(id: i64, sha: &str) -> reel_store::TaskRecord {
    let mut r = record(id, LocalState::Downloaded);
    r.created_at = NOW - 60_000;
    r.prompt = format!("a lighthouse at dusk, waves, take {id}");
    r.file_path = Some(format!("/videos/{id}.mp4"));
    r.file_size = Some(1_000_000);
    r.sha256 = Some(sha.to_string());
    r
}

/// A poster in four colours: red above blue on the left, white above green on the right.
fn quadrants(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        Rgb(match (x < w / 2, y < h / 2) {
            (true, true) => RED,
            (true, false) => BLUE,
            (false, true) => WHITE,
            (false, false) => GREEN,
        })
    })
}

fn stills() -> Stills {
    let frame = |c: [u8; 3]| RgbImage::from_pixel(160, 90, Rgb(c));
    Stills { poster: quadrants(480, 270), strip: vec![frame(RED), frame(BLUE), frame(WHITE), frame(GREEN), frame(RED)] }
}

/// One letter per colour, `.` for anything else (the edges a scaler blends).
fn letter(c: Color) -> char {
    match c {
        Color::Rgb(r, g, b) => match [r, g, b] {
            RED => 'R',
            BLUE => 'B',
            WHITE => 'W',
            GREEN => 'G',
            _ => '.',
        },
        _ => ' ',
    }
}

/// The colours of the half blocks in `area`, as two lines of letters (upper, lower halves)
/// per row of cells.
fn colours(b: &Buffer, area: Rect) -> String {
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let (mut top, mut bottom) = (String::new(), String::new());
        for x in area.left()..area.right() {
            let cell = &b[(x, y)];
            // `▀` is fg over bg, `▄` bg over fg, and a space one colour (bg) in both halves.
            let (upper, lower) = match cell.symbol() {
                "▀" => (cell.fg, cell.bg),
                "▄" => (cell.bg, cell.fg),
                " " => (cell.bg, cell.bg),
                other => panic!("{other:?} at {x},{y} is not a half block"),
            };
            top.push(letter(upper));
            bottom.push(letter(lower));
        }
        out.push_str(&format!("{top}\n{bottom}\n"));
    }
    out
}

fn detail_inner(app: &App) -> Rect {
    layout::areas(Rect::new(0, 0, app.size().0, app.size().1), app.form()).detail.inner(Margin::new(1, 1))
}

#[test]
fn a_known_frame_in_half_blocks_beside_the_text_with_the_strip_under_it() {
    for (w, h) in [(160, 48), (100, 30)] {
        let mut a = app(w, h);
        a.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: saved(1, SHA), eta_ms: None }))), NOW);
        let before = text(&draw(&a));
        assert!(before.contains("preview…"), "a stand-in until the frames come:\n{before}");
        a.update(Action::Stills(SHA.into(), Ok(stills())), NOW);
        let (_, fit) = a.preview_fit(detail_inner(&a)).expect("room for a poster");
        let b = draw(&a);
        let screen = text(&b);
        insta::assert_snapshot!(format!("poster_{w}x{h}"), screen);
        let map = colours(&b, fit.poster);
        insta::assert_snapshot!(format!("poster_colours_{w}x{h}"), map);
        // Whatever the scaler does at the seams, each quadrant keeps its colour.
        let rows: Vec<&str> = map.lines().collect();
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        assert!(first.starts_with('R') && first.ends_with('W'), "{map}");
        assert!(last.starts_with('B') && last.ends_with('G'), "{map}");
        for (i, area) in fit.strip.iter().enumerate() {
            let want = ['R', 'B', 'W', 'G', 'R'][i];
            assert!(colours(&b, *area).chars().filter(|c| *c != '\n').all(|c| c == want), "strip frame {i}");
        }
        assert_eq!(fit.strip.is_empty(), h <= 30, "{w}x{h}: the strip only where there is room");
    }
}

#[test]
fn without_ffmpeg_the_detail_says_how_to_get_previews() {
    let mut a = app(120, 32);
    a.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: saved(1, SHA), eta_ms: None }))), NOW);
    let why =
        "previews need ffmpeg: install it (apt install ffmpeg, brew install ffmpeg) or set REEL_FFMPEG to its path";
    a.update(Action::Stills(SHA.into(), Err(PreviewFailure { message: why.into(), no_ffmpeg: true })), NOW);
    let screen = text(&draw(&a));
    assert!(!screen.contains("making preview"), "{screen}");
    insta::assert_snapshot!("no_ffmpeg_120x32", screen);
}

#[test]
fn the_history_grid_shows_posters_with_their_prompts() {
    for (w, h) in [(160, 48), (80, 24)] {
        let mut a = app(w, h);
        a.update(Action::Key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('H'))), NOW);
        let rows: Vec<HistoryRow> = (1..=30)
            .rev()
            .map(|id| {
                let mut r = saved(id, &format!("{id:064x}"));
                if id % 7 == 0 {
                    r.state = LocalState::Failed;
                    r.file_path = None;
                    r.sha256 = None;
                }
                HistoryRow { record: r, file_present: Some(true) }
            })
            .collect();
        let ticket = a.history().ticket();
        a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
        a.update(Action::Key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('g'))), NOW);
        for id in [30, 29, 27] {
            a.update(Action::Thumb(format!("{id:064x}"), Ok(quadrants(180, 100))), NOW);
        }
        insta::assert_snapshot!(format!("history_grid_{w}x{h}"), text(&draw(&a)));
    }
}
