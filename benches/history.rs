//! History with 1,000,000 tasks: time to the first frame of the history view, one-word search
//! latency, searches on ratings, picks and tags, frame time while scrolling, database size.
//!
//! Run: `cargo bench --bench history`. The first run builds the database it measures, at
//! `target/bench-history/reel.db` (1,000,000 tasks over a year, prompts of 8 to 15 words from a
//! 207-word vocabulary, 5 models, every state); later runs reuse it. `HISTORY_DB=path` measures
//! another database of the same data instead (an older schema, side by side).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use reel_engine::query;
use reel_store::LocalState;
use reel_store::history::HistoryQuery;
use reel_tui::app::{Action, App, Effect, Focus, Header};
use reel_tui::views;

#[path = "support/history_db.rs"]
mod history_db;
use history_db::{MODELS, NOW, TASKS, WORDS};

fn quantile(mut v: Vec<Duration>, q: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * q).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Runs the app's history effects synchronously (the event loop would run them on a thread).
fn serve(app: &mut App, db: &Path, effects: Vec<Effect>) {
    for e in effects {
        if let Effect::HistoryPage { ticket: generation, query, cursor } = e {
            let page = query::history(db, &query, cursor, reel_tui::history::PAGE).map_err(Into::into);
            let more = app.update(Action::HistoryPage(generation, page), NOW);
            serve(app, db, more);
        }
    }
}

fn main() {
    let db = history_db::ensure();
    let size: u64 = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();

    let header = Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: reel_engine::ServiceState::default(),
    };
    let open = || {
        let mut app = App::new(
            reel_rules::Catalog::builtin(),
            Default::default(),
            vec![],
            Default::default(),
            header.clone(),
            Default::default(),
            NOW,
            (160, 48),
        );
        app.focus_on(Focus::Table);
        app
    };
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");

    // Time from pressing H to the first frame of the history view.
    let mut first = Vec::new();
    for _ in 0..20 {
        let mut app = open();
        let t = Instant::now();
        let e = app.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
        serve(&mut app, &db, e);
        terminal.draw(|f| views::draw(f, &app)).expect("draw");
        first.push(t.elapsed());
        assert_eq!(app.history().rows().len(), reel_tui::history::PAGE);
    }

    // One-word searches (whole words and prefixes), first page of results.
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = fastrand::Rng::with_seed(9);
    let mut search = Vec::new();
    for i in 0..300 {
        let w = words[rng.usize(..words.len())];
        let text = if i % 3 == 0 { &w[..w.len().min(3)] } else { w };
        let q = HistoryQuery { text: text.to_string(), ..Default::default() };
        let t = Instant::now();
        let rows = query::history(&db, &q, None, reel_tui::history::PAGE).expect("search");
        search.push(t.elapsed());
        assert!(!rows.is_empty(), "{text}");
    }
    // A rare word (few matches across the whole year) is the slow case for a newest-first scan.
    let mut rare = Vec::new();
    for _ in 0..20 {
        let q = HistoryQuery {
            text: "scarf".into(),
            state: Some(LocalState::Rejected),
            model: Some(MODELS[4].into()),
            ..Default::default()
        };
        let t = Instant::now();
        query::history(&db, &q, None, reel_tui::history::PAGE).expect("search");
        rare.push(t.elapsed());
    }

    // Searches on reviews, alone and with words: the first page of each.
    let reviewed = [
        "rating:>=4",
        "rating:5",
        "rating:<2",
        "tag:keeper",
        "picked",
        "tag:night picked",
        "fox rating:>=4",
        "tag:keeper river",
    ];
    let mut reviews: Vec<(&str, Vec<Duration>)> = reviewed.iter().map(|t| (*t, Vec::new())).collect();
    for _ in 0..10 {
        for (text, times) in &mut reviews {
            let q = HistoryQuery { text: text.to_string(), ..Default::default() };
            let t = Instant::now();
            let rows = query::history(&db, &q, None, reel_tui::history::PAGE).expect("search");
            times.push(t.elapsed());
            assert!(!rows.is_empty(), "{text}");
        }
    }

    // Scrolling one row at a time through 2,000 rows: frame time, and the frames that waited
    // for a page (which the real loop reads on another thread).
    let mut app = open();
    let e = app.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    serve(&mut app, &db, e);
    let (mut frames, mut with_pages) = (Vec::new(), Vec::new());
    for _ in 0..2_000 {
        let t = Instant::now();
        let e = app.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
        let paged = e.iter().any(|x| matches!(x, Effect::HistoryPage { .. }));
        serve(&mut app, &db, e);
        let after_page = t.elapsed();
        let t = Instant::now();
        terminal.draw(|f| views::draw(f, &app)).expect("draw");
        frames.push(t.elapsed());
        if paged {
            with_pages.push(after_page);
        }
    }
    println!("tasks:                              {TASKS}");
    println!("database size:                      {:.0} MiB", size as f64 / 1048576.0);
    println!(
        "H to first history frame:           median {}  p95 {}",
        ms(quantile(first.clone(), 0.5)),
        ms(quantile(first, 0.95))
    );
    println!(
        "one-word search, first page:        median {}  p95 {}  max {}",
        ms(quantile(search.clone(), 0.5)),
        ms(quantile(search.clone(), 0.95)),
        ms(quantile(search, 1.0))
    );
    println!(
        "rare word with two filters:         median {}  p95 {}",
        ms(quantile(rare.clone(), 0.5)),
        ms(quantile(rare, 0.95))
    );
    for (text, times) in reviews {
        println!(
            "search {:<28} median {}  p95 {}",
            format!("{text:?}:"),
            ms(quantile(times.clone(), 0.5)),
            ms(quantile(times, 0.95))
        );
    }
    println!(
        "frame while scrolling (160x48):     median {}  p95 {}",
        ms(quantile(frames.clone(), 0.5)),
        ms(quantile(frames, 0.95))
    );
    println!(
        "reading the next page of 200:       median {} over {} pages",
        ms(quantile(with_pages.clone(), 0.5)),
        with_pages.len()
    );
}
