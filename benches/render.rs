//! The dashboard's cost with 100,000 tasks in the table: one full frame at 160x48, and one
//! engine event applied to that state (the work between two frames); and one frame of the
//! history screen with 10,000 rows loaded.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

#[path = "support/app.rs"]
mod app;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use reel_engine::query::HistoryRow;
use reel_engine::{Event, TaskUpdate};
use reel_store::fixtures::record;
use reel_store::{LocalState, TaskRecord};
use reel_tui::app::{Action, App, Focus};
use reel_tui::views;

const TASKS: i64 = 100_000;
const NOW: i64 = 1_800_000_100_000;

fn task(id: i64) -> TaskRecord {
    let state = match id % 5 {
        0 => LocalState::Downloaded,
        1 => LocalState::InProgress,
        2 => LocalState::Queued,
        3 => LocalState::Failed,
        _ => LocalState::Downloading,
    };
    let mut r = record(id, state);
    r.created_at = NOW - (TASKS - id) * 1000;
    r.prompt = format!("task {id}: a red fox running through fresh snow at dawn, cinematic, golden light");
    r.progress = Some((id % 100) as f64);
    r
}

fn loaded_app() -> App {
    let mut app = app::empty(NOW);
    app.update(Action::Loaded((1..=TASKS).map(task).collect()), NOW);
    app.focus_on(Focus::Table);
    app.select_row(50_000);
    app
}

/// The history screen with `rows` rows loaded, the selection in the middle.
fn history_app(rows: i64) -> App {
    let mut app = loaded_app();
    app.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    let page: Vec<HistoryRow> =
        (1..=rows).map(|id| HistoryRow { record: task(id), file_present: Some(true) }).collect();
    app.update(Action::HistoryPage(app.history().ticket(), Ok(page)), NOW);
    for _ in 0..rows / 2 {
        app.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
    }
    app
}

fn bench(c: &mut Criterion) {
    let mut app = loaded_app();
    assert_eq!(app.table().view().len(), TASKS as usize);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");

    c.bench_function("render: full frame 160x48, 100k tasks", |b| {
        b.iter(|| {
            terminal.draw(|f| views::draw(f, black_box(&app))).expect("draw");
        })
    });

    let history = history_app(10_000);
    c.bench_function("render: history frame 160x48, 10k rows", |b| {
        b.iter(|| {
            terminal.draw(|f| views::draw(f, black_box(&history))).expect("draw");
        })
    });
    drop(history);

    let mut n = 0i64;
    c.bench_function("update: one engine event (progress), 100k tasks", |b| {
        b.iter(|| {
            n += 1;
            let mut r = task(1 + 5 * (n % 20_000));
            r.progress = Some((n % 100) as f64);
            black_box(app.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: r, eta_ms: None }))), NOW));
        })
    });

    c.bench_function("update: one engine event (state change), 100k tasks", |b| {
        b.iter(|| {
            n += 1;
            let id = 2 + 5 * (n % 20_000);
            let mut r = task(id);
            r.state = if n % 2 == 0 { LocalState::InProgress } else { LocalState::Queued };
            black_box(app.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: r, eta_ms: None }))), NOW));
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
