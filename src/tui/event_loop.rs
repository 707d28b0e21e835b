//! The dashboard's loop: terminal input, engine events and effect results in; `update`; a
//! redraw only when something changed and the queue is drained. A timer exists only while
//! something animates, so an idle dashboard sleeps.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{Event as Input, EventStream};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::app::{Action, App, Header};
use super::effects::{self, Context};
use super::{terminal, views};
use crate::config::{Settings, Target};
use crate::engine::{Health, now_ms, query};
use crate::session::{self, db_path};

/// Spinners and clocks move at most this often, and engine news is drawn at most this often.
const TICK: Duration = Duration::from_millis(100);

fn action_of(input: Input) -> Option<Action> {
    match input {
        Input::Key(k) => Some(Action::Key(k)),
        Input::Mouse(m) => Some(Action::Mouse(m)),
        Input::Paste(p) => Some(Action::Paste(p)),
        Input::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

pub async fn run(settings: Settings) -> anyhow::Result<ExitCode> {
    let session = session::open(&settings).await?;
    let (engine, mut events) = session.start_engine().await?;
    let engine = Arc::new(engine);
    let db = db_path(&settings);
    let (tx, mut results) = mpsc::unbounded_channel::<Action>();
    let cx = Context {
        engine: engine.clone(),
        pricing: settings.pricing.clone(),
        db: db.clone(),
        data_dir: settings.data_dir.clone(),
        actions: tx.clone(),
    };

    let demo = settings.target == Target::Demo;
    let header = Header {
        profile: settings.profile.clone(),
        base_url: session.client.base_url().to_string(),
        demo,
        health: Health::Ok,
    };
    let mut term = terminal::open()?;
    let size = term.size()?;
    let mut app = App::new(
        settings.catalog.clone(),
        settings.pricing.clone(),
        settings.actions.clone(),
        settings.budget,
        header,
        effects::load_prefs(&settings.data_dir),
        now_ms(),
        (size.width, size.height),
    );
    {
        let tx = tx.clone();
        tokio::task::spawn_blocking(move || {
            if let Ok(records) = query::unfinished(&db) {
                let _ = tx.send(Action::Loaded(records));
            }
        });
    }

    for effect in app.initial_effects() {
        effects::perform(effect, &cx, &mut term).await?;
    }
    let mut input = EventStream::new();
    // Whether the screen is out of date, and whether it must be redrawn at once (the user did
    // something) or may wait for the next frame slot (the engine reported something).
    let (mut dirty, mut urgent) = (true, true);
    let mut last_draw = tokio::time::Instant::now();
    let outcome: std::io::Result<()> = loop {
        if dirty && (urgent || last_draw.elapsed() >= TICK) {
            if let Err(e) = term.draw(|f| views::draw(f, &app)) {
                break Err(e);
            }
            (dirty, urgent) = (false, false);
            last_draw = tokio::time::Instant::now();
        }
        let animating = app.animating();
        let next_frame = last_draw + TICK;
        let first = tokio::select! {
            Some(Ok(ev)) = input.next() => {
                urgent = true;
                action_of(ev)
            }
            Some(ev) = events.recv() => Some(Action::Engine(ev)),
            Some(a) = results.recv() => {
                urgent = true;
                Some(a)
            }
            () = tokio::time::sleep_until(next_frame), if animating || dirty => Some(Action::Tick),
        };
        // Take everything already waiting before drawing again.
        let mut batch: Vec<Action> = first.into_iter().collect();
        while let Ok(ev) = events.try_recv() {
            batch.push(Action::Engine(ev));
        }
        while let Ok(a) = results.try_recv() {
            batch.push(a);
        }
        let mut failed = None;
        for action in batch {
            for effect in app.update(action, now_ms()) {
                if let Err(e) = effects::perform(effect, &cx, &mut term).await {
                    failed = Some(e);
                }
            }
            dirty = true;
        }
        if let Some(e) = failed {
            break Err(e);
        }
        if app.quit {
            break Ok(());
        }
    };
    terminal::leave();
    let running = app.table.running();
    drop(cx);
    if let Ok(engine) = Arc::try_unwrap(engine) {
        engine.shutdown().await;
    }
    outcome?;
    if running > 0 {
        let (n, it) =
            if running == 1 { ("1 task is".to_string(), "it") } else { (format!("{running} tasks are"), "them") };
        if demo {
            println!(
                "{n} still running in the demo simulator, which stops with reel: the next start shows {it} as lost."
            );
        } else {
            println!("{n} still running; reel picks {it} up the next time it starts (or run: reel wait --all).");
        }
    }
    Ok(ExitCode::SUCCESS)
}
