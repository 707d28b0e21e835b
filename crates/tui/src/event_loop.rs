//! The dashboard's loop: terminal input, engine events and effect results in; `update`; a
//! redraw only when something changed and the queue is drained. A timer exists only while
//! something animates, so an idle dashboard sleeps. The loop runs on any [`Console`] and any
//! stream of terminal events, so tests drive the whole dashboard on `TestBackend`.

use std::io;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{Event as Input, EventStream};
use futures_util::future::LocalBoxFuture;
use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc;

use super::app::{Action, AfterQuit, App, Header, Summary};
use super::effects::{self, Context, EngineSlot, Relink};
use super::keymap::Keymap;
use super::preview::Previews;
use super::preview::work::PreviewWork;
use super::terminal::{self, Console};
use ratatui_image::picker::Picker;
use reel_engine::config::{Settings, Target};
use reel_engine::preview::Previewer;
use reel_engine::session::{self, Attached, Reach, Session, db_path};
use reel_engine::{Engine, Event, ServiceState, now_ms};

/// Spinners and clocks move at most this often, and engine news is drawn at most this often.
const TICK: Duration = Duration::from_millis(100);
/// How often the saved files on screen are looked for on disk (moved or deleted meanwhile).
const FILE_CHECK: Duration = Duration::from_secs(5);

fn action_of(input: Input) -> Option<Action> {
    match input {
        Input::Key(k) => Some(Action::Key(k)),
        Input::Mouse(m) => Some(Action::Mouse(m)),
        Input::Paste(p) => Some(Action::Paste(p)),
        Input::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

/// The dashboard with its engine running, before it has a screen.
pub struct Dashboard {
    settings: Settings,
    // Kept for as long as an engine in this process runs: in demo mode it holds the simulator.
    session: Option<Session>,
    base_url: Option<String>,
    engine: Arc<Engine>,
    events: mpsc::UnboundedReceiver<Event>,
    keymap: Keymap,
    /// How pictures are drawn: the terminal's protocol, else half blocks.
    picker: Picker,
    /// How the engine was reached, to reach it again if its process goes away.
    reach: Reach,
}

/// How the dashboard ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// What this run did, and what is unfinished.
    pub summary: Summary,
    /// What becomes of the unfinished tasks.
    pub after: AfterQuit,
}

impl Finished {
    /// The line to print on the way out, if anything happened.
    pub fn farewell(&self) -> Option<String> {
        self.summary.farewell(self.after)
    }
}

impl Dashboard {
    /// Opens the store and starts the engine (and, in demo mode, the simulator).
    /// The config's keys are checked first, so a mistake there is said before anything starts.
    pub async fn start(settings: &Settings, reach: &Reach) -> anyhow::Result<Dashboard> {
        let keymap = Keymap::with_keys(&settings.actions, &settings.keys)?;
        let attached = session::attach(settings, reach).await?;
        Ok(Dashboard {
            settings: settings.clone(),
            session: attached.session,
            base_url: attached.base_url,
            engine: Arc::new(attached.engine),
            events: attached.events,
            keymap,
            picker: Picker::halfblocks(),
            reach: reach.clone(),
        })
    }

    /// Draws pictures with `picker` (found by asking the terminal) instead of half blocks.
    pub fn with_picker(self, picker: Picker) -> Dashboard {
        Dashboard { picker, ..self }
    }

    /// Runs until the user quits or `input` ends, then stops the engine.
    pub async fn run<C, S>(self, console: &mut C, input: S) -> anyhow::Result<Finished>
    where
        C: Console,
        S: Stream<Item = io::Result<Input>> + Unpin,
    {
        let Dashboard { settings, session, base_url, engine, events, keymap, picker, reach } = self;
        let welcomed: ServiceState = engine.welcome().map(|w| w.service.clone()).unwrap_or_default();
        let far = engine.far().map(String::from);
        // An engine on another machine serves what that machine is configured for.
        let demo = if far.is_some() { base_url.is_none() } else { settings.target == Target::Demo };
        let after = AfterQuit::of(engine.outlives_this_process(), demo);
        let (tx, results) = mpsc::unbounded_channel::<Action>();
        let (found, attached) = mpsc::unbounded_channel::<Attached>();
        // Only an engine process can go away under the dashboard and be reached again.
        let relink = matches!(reach, Reach::Service(_) | Reach::Ssh(_)).then(|| Relink {
            settings: settings.clone(),
            reach,
            found,
            attempt: std::sync::Mutex::new(None),
        });
        let cx = Context {
            engine: EngineSlot::new(engine),
            relink,
            pricing: settings.pricing.clone(),
            programs: settings.programs.clone(),
            db: db_path(&settings),
            data_dir: settings.data_dir.clone(),
            actions: tx,
            media: std::sync::Arc::new(crate::compose::media::MediaContext {
                storage: settings.storage.clone(),
                home: settings.home.clone(),
                client_timeout: std::time::Duration::try_from_secs_f64(settings.engine.client_timeout_secs)
                    .unwrap_or(std::time::Duration::MAX),
                catalog: settings.catalog.clone(),
            }),
            previews: Arc::new(PreviewWork::new(Previewer::from_settings(&settings))),
            fetched: reel_engine::fetched::cache_dir(&settings.data_dir),
            reviews: Default::default(),
            batch: settings.batch,
        };
        let header = Header {
            profile: settings.profile.clone(),
            base_url: base_url.unwrap_or_else(|| "the demo simulator".into()),
            demo,
            far,
            // As the engine process said when this dashboard attached (a pause, a refused key).
            service: welcomed,
        };
        let (prefs, prefs_failed) = super::kept::load_prefs(&settings.data_dir);
        let draft = super::kept::load_draft(&settings.data_dir);
        let outcome = async {
            let mut app = App::new(
                settings.catalog.clone(),
                settings.pricing.clone(),
                settings.actions.clone(),
                settings.budget,
                header,
                prefs,
                now_ms(),
                console.size()?,
            );
            app.started(keymap, Previews::new(picker), after);
            app.set_batch_confirm_over(settings.batch.confirm_over);
            match draft {
                Ok(Some(saved)) => app.restore_draft(&saved),
                Ok(None) => {}
                Err(e) => drop(app.update(Action::Report(Err(e)), now_ms())),
            }
            if let Some(e) = prefs_failed {
                app.update(Action::Report(Err(e)), now_ms());
            }
            event_loop(app, &cx, console, input, Some(events), results, attached).await
        }
        .await;
        if let Some(relink) = &cx.relink {
            relink.stop();
        }
        let engine = cx.engine.get();
        drop(cx);
        if let Ok(engine) = Arc::try_unwrap(engine) {
            engine.shutdown().await;
        }
        drop(session);
        Ok(Finished { summary: outcome?.summary(), after })
    }
}

/// The dashboard on the real terminal; the terminal is given back however it ends.
///
/// Boxed, so that the dashboard's code is compiled in this crate: an `async fn`'s body is
/// compiled in the crate that awaits it, which would make the binary compile all of it, after
/// this crate and beside nothing.
#[inline(never)]
pub fn run(settings: Settings, reach: Reach) -> LocalBoxFuture<'static, anyhow::Result<ExitCode>> {
    Box::pin(dashboard(settings, reach))
}

async fn dashboard(settings: Settings, reach: Reach) -> anyhow::Result<ExitCode> {
    // Started before the terminal is taken, so that a failure prints plainly.
    let dashboard = Dashboard::start(&settings, &reach).await?;
    let mut tty = terminal::open()?;
    // Asked once, before anything reads the terminal's input: which image protocol it speaks.
    let picker = reel_engine::preview::detect::picker(settings.multiplexer);
    tracing::info!(protocol = ?picker.protocol_type(), "pictures");
    let finished = dashboard.with_picker(picker).run(&mut tty, EventStream::new()).await;
    drop(tty);
    if let Some(message) = finished?.farewell() {
        println!("{message}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The next engine event; never, while there is no engine to hear from.
async fn next_event(events: &mut Option<mpsc::UnboundedReceiver<Event>>) -> Option<Event> {
    match events {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// A new engine takes over from the one lost: its commands and its events. Its events wait
/// in their channel until `update` has the rows read again.
fn take_over(cx: &Context, attached: Attached, events: &mut Option<mpsc::UnboundedReceiver<Event>>) -> Action {
    let activity = attached.engine.welcome().map(|s| s.activity());
    let pid = attached.engine.welcome().map(|s| s.pid);
    let lost = cx.engine.replace(attached.engine);
    let restarted = pid.is_none() || lost.welcome().map(|s| s.pid) != pid;
    *events = Some(attached.events);
    Action::Reattached { restarted, activity }
}

async fn event_loop<C, S>(
    mut app: App,
    cx: &Context,
    console: &mut C,
    mut input: S,
    mut events: Option<mpsc::UnboundedReceiver<Event>>,
    mut results: mpsc::UnboundedReceiver<Action>,
    mut attached: mpsc::UnboundedReceiver<Attached>,
) -> io::Result<App>
where
    C: Console,
    S: Stream<Item = io::Result<Input>> + Unpin,
{
    for effect in app.initial_effects() {
        effects::perform(effect, cx, console).await?;
    }
    // Whether the screen is out of date, and whether it must be redrawn at once (the user did
    // something) or may wait for the next frame slot (the engine reported something).
    let (mut dirty, mut urgent) = (true, true);
    let mut last_draw = tokio::time::Instant::now();
    let mut file_check = tokio::time::interval(FILE_CHECK);
    file_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // A closed terminal (SIGHUP) or a polite kill (SIGTERM) quits keeping the draft.
    let mut stops = Stops::new();
    loop {
        if dirty && (urgent || last_draw.elapsed() >= TICK) {
            console.draw(&app)?;
            (dirty, urgent) = (false, false);
            last_draw = tokio::time::Instant::now();
        }
        let animating = app.animating();
        let watching = app.watches_files();
        let listening = app.link().accepts_events();
        let next_frame = last_draw + TICK;
        let draft_due = app
            .draft_due_ms()
            .map(|due| tokio::time::Instant::now() + Duration::from_millis(due.saturating_sub(now_ms()).max(0) as u64));
        let first = tokio::select! {
            input = input.next() => {
                urgent = true;
                match input {
                    Some(Ok(ev)) => action_of(ev),
                    // The terminal went away under the reader (a hung-up tty answers EIO).
                    Some(Err(e)) => {
                        tracing::info!(error = %e, "the terminal cannot be read; quitting, the draft kept");
                        Some(Action::Hangup)
                    }
                    // The terminal went away: nobody is left to ask, and the draft is kept.
                    None => Some(Action::Hangup),
                }
            }
            () = stops.next() => Some(Action::Hangup),
            () = tokio::time::sleep_until(draft_due.unwrap_or(next_frame)), if draft_due.is_some() => Some(Action::Tick),
            ev = next_event(&mut events), if listening => match ev {
                Some(ev) => Some(Action::Engine(ev)),
                None => {
                    // The socket closed: the engine process is gone. Say so at once.
                    events = None;
                    urgent = true;
                    cx.relink.is_some().then_some(Action::LinkLost)
                }
            },
            Some(a) = results.recv() => {
                urgent = true;
                Some(a)
            }
            Some(new) = attached.recv() => {
                urgent = true;
                Some(take_over(cx, new, &mut events))
            }
            () = tokio::time::sleep_until(next_frame), if animating || dirty => Some(Action::Tick),
            _ = file_check.tick(), if watching => Some(Action::CheckFiles),
        };
        // Take everything already waiting before drawing again.
        let mut batch: Vec<Action> = first.into_iter().collect();
        if listening && let Some(rx) = &mut events {
            while let Ok(ev) = rx.try_recv() {
                batch.push(Action::Engine(ev));
            }
        }
        while let Ok(a) = results.try_recv() {
            batch.push(a);
        }
        for action in batch {
            for effect in app.update(action, now_ms()) {
                effects::perform(effect, cx, console).await?;
            }
            dirty = true;
        }
        if app.quitting() {
            return Ok(app);
        }
    }
}

/// The signals that end the dashboard without a word from its user: SIGHUP (the terminal
/// closed) and SIGTERM. One that cannot be listened to is not waited for.
struct Stops {
    hangup: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Stops {
    fn new() -> Stops {
        use tokio::signal::unix::{SignalKind, signal};
        Stops { hangup: signal(SignalKind::hangup()).ok(), terminate: signal(SignalKind::terminate()).ok() }
    }

    /// Waits for the next of them.
    async fn next(&mut self) {
        async fn one(signal: &mut Option<tokio::signal::unix::Signal>) {
            match signal {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = one(&mut self.hangup) => {}
            () = one(&mut self.terminate) => {}
        }
    }
}
