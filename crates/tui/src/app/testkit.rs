//! Helpers for the update tests: an app at a fixed time, keys, tasks from the engine.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::keymap::UserAction;
use crate::prefs::Prefs;
use reel_engine::{Event, ServiceState, TaskUpdate};
use reel_rules::{Budget, Catalog, Pricing};
use reel_store::fixtures::record;
use reel_store::{LocalState, TaskRecord};

pub const NOW: i64 = 1_800_000_010_000;

pub fn header(demo: bool) -> Header {
    Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo,
        far: None,
        service: ServiceState::default(),
    }
}

/// A demo dashboard at 120x32 with one user action (`m` runs mpv).
pub fn app() -> App {
    let actions =
        vec![UserAction { key: 'm', name: "mpv".into(), command: vec!["mpv".into(), "--fs".into(), "{path}".into()] }];
    App::new(
        Catalog::builtin(),
        Pricing::default(),
        actions,
        Budget::default(),
        header(true),
        Prefs::default(),
        NOW,
        (120, 32),
    )
}

/// A dashboard on a real provider, its text-to-video model priced at $0.50 a second.
pub fn paid(budget: Budget) -> App {
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.5)].into_iter().collect(),
    };
    App::new(Catalog::builtin(), pricing, vec![], budget, header(false), Prefs::default(), NOW, (120, 32))
}

pub fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)), NOW)
}

pub fn ch(app: &mut App, c: char) -> Vec<Effect> {
    let mods = if c.is_uppercase() { KeyModifiers::SHIFT } else { KeyModifiers::NONE };
    app.update(Action::Key(KeyEvent::new(KeyCode::Char(c), mods)), NOW)
}

pub fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.update(Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)), NOW)
}

pub fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// A task as the engine reports it, created `100 - id` seconds before `NOW`.
pub fn rec(id: i64, state: LocalState) -> TaskRecord {
    let mut r = record(id, state);
    r.created_at = NOW - 1000 * (100 - id);
    if state == LocalState::Downloaded {
        r.file_path = Some(format!("/videos/{id}.mp4"));
        r.url = Some(format!("http://127.0.0.1:1/{id}.mp4"));
    }
    r
}

pub fn put(app: &mut App, r: TaskRecord) -> Vec<Effect> {
    app.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: r, eta_ms: None }))), NOW)
}

pub fn task(app: &mut App, id: i64, state: LocalState) -> Vec<Effect> {
    put(app, rec(id, state))
}

/// The effects of an action, without the timeline loads and file looks a changed selection brings.
pub fn acts(effects: Vec<Effect>) -> Vec<Effect> {
    effects.into_iter().filter(|e| !matches!(e, Effect::LoadTimeline(_) | Effect::CheckFiles(_))).collect()
}

pub fn status(app: &App) -> String {
    app.status.as_ref().map(|s| s.text.clone()).unwrap_or_default()
}

/// Selects a task in the table and gives the table the focus.
pub fn select(app: &mut App, id: i64) {
    app.focus = Focus::Table;
    app.table.select(id);
}
