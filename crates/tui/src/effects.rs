//! Carrying out what `update` asked for: the context every effect runs in, the router to each
//! part's effects, and the effects of the whole dashboard (the engine link, the terminal,
//! preferences, the budget). Everything slow runs on a task and reports back as an [`Action`].

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use crate::app::{Action, Effect, EffectError};
use crate::compose::media::MediaContext;
use crate::tasks::effects::Reviews;
use crate::terminal::Console;
use crate::{compose, detail, history, kept, preview, tasks};
use reel_engine::Engine;
use reel_engine::config::{Programs, Settings};
use reel_engine::reader::{ReadError, Reader};
use reel_engine::session::{self, Attached, Reach};
use reel_rules::Pricing;

/// The engine the effects talk to; replaced when the dashboard attaches to a new engine
/// process after losing one.
pub struct EngineSlot(Mutex<Arc<Engine>>);

impl EngineSlot {
    pub fn new(engine: Arc<Engine>) -> EngineSlot {
        EngineSlot(Mutex::new(engine))
    }

    /// The engine attached now.
    pub fn get(&self) -> Arc<Engine> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Puts `engine` in place, and gives back the one it replaces.
    pub fn replace(&self, engine: Engine) -> Arc<Engine> {
        std::mem::replace(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()), Arc::new(engine))
    }
}

/// How the dashboard attaches to its data folder's engine process again, as it did at start.
pub struct Relink {
    pub settings: Settings,
    pub reach: Reach,
    /// Where an attached engine goes: the event loop takes it over.
    pub found: UnboundedSender<Attached>,
    /// The attempt under way, stopped when the dashboard quits.
    pub attempt: Mutex<Option<JoinHandle<()>>>,
}

impl Relink {
    /// Stops an attempt under way (the dashboard is quitting).
    pub fn stop(&self) {
        if let Some(job) = self.attempt.lock().unwrap_or_else(|e| e.into_inner()).take() {
            job.abort();
        }
    }
}

pub struct Context {
    pub engine: EngineSlot,
    /// `None` for an engine in this process: it ends only with the dashboard.
    pub relink: Option<Relink>,
    pub pricing: Pricing,
    pub programs: Programs,
    pub db: PathBuf,
    pub data_dir: PathBuf,
    pub actions: UnboundedSender<Action>,
    pub media: Arc<MediaContext>,
    pub previews: Arc<preview::work::PreviewWork>,
    /// Where videos fetched from an engine on another machine are kept (by sha256).
    pub fetched: PathBuf,
    pub reviews: Reviews,
    /// `[batch]`: the bounds a batch file loaded into the form is read and expanded within.
    pub batch: reel_engine::config::BatchSettings,
}

/// A read of the journal failed: said on the status line (and in the log, where every
/// reported error goes).
pub(crate) fn read_failed(what: String, source: ReadError) -> Action {
    Action::Report(Err(EffectError::Read { what, source }))
}

/// Starts a program without a shell, detached from the terminal.
pub(crate) fn spawn(argv: &[String]) -> Result<(), EffectError> {
    let (program, args) = argv.split_first().ok_or(EffectError::EmptyCommand)?;
    tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|source| EffectError::Spawn { program: program.clone(), source })
}

/// Runs `job` over the journal, read where it is (this machine's file on the blocking pool,
/// or through the engine on another machine), and sends what it returns.
pub(crate) fn reading<F>(cx: &Context, job: impl FnOnce(Reader) -> F + Send + 'static)
where
    F: std::future::Future<Output = Option<Action>> + Send + 'static,
{
    let (reader, tx) = (Reader::of(&cx.engine.get(), &cx.db), cx.actions.clone());
    tokio::spawn(async move {
        if let Some(action) = job(reader).await {
            let _ = tx.send(action);
        }
    });
}

/// Runs `job` on the blocking pool and sends what it returns (SQLite reads stay off the loop).
pub(crate) fn blocking(tx: UnboundedSender<Action>, job: impl FnOnce() -> Option<Action> + Send + 'static) {
    tokio::task::spawn_blocking(move || {
        if let Some(action) = job() {
            let _ = tx.send(action);
        }
    });
}

/// Carries out one effect: each part's are its own (`compose::effects`, `tasks::effects`,
/// `detail::effects`, `history::effects`, the preview's work); what belongs to the whole
/// dashboard (the engine link, the terminal, preferences, the budget) is here.
pub async fn perform(effect: Effect, cx: &Context, console: &mut impl Console) -> std::io::Result<()> {
    let (mut effect, mut past_budget) = (effect, false);
    while let Effect::PastBudget(inner) = effect {
        (effect, past_budget) = (*inner, true);
    }
    match effect {
        // Unwrapped above.
        Effect::PastBudget(_) => {}
        e @ (Effect::LoadStills { .. }
        | Effect::LoadThumbs { .. }
        | Effect::Play { .. }
        | Effect::PlayPause(_)
        | Effect::PlayStop
        | Effect::LoadClips { .. }) => {
            let (engine, tx) = (cx.engine.get(), cx.actions.clone());
            match engine.far() {
                Some(_) => preview::far::perform(e, engine, cx.previews.clone(), cx.fetched.clone(), tx),
                None => cx.previews.perform(e, &tx),
            }
        }
        Effect::Submit { plan, copies, parent } => compose::effects::submit(cx, plan, copies, parent, past_budget),
        Effect::SubmitAgain(items) => compose::effects::submit_again(cx, items, past_budget),
        Effect::SubmitBatch(parts) => compose::effects::submit_batch(cx, parts, past_budget),
        Effect::CompletePath(typed) => compose::effects::complete_path(cx, typed),
        Effect::LoadBatch { path, defaults, refresh } => compose::effects::load_batch(cx, path, defaults, refresh),
        Effect::CheckMedia(items) => compose::effects::check_media(cx, items),
        Effect::Edit { field, text } => compose::effects::edit(cx, console, field, text).await,
        Effect::SaveDraft(draft) => compose::effects::save_draft(cx, draft),
        Effect::KeepDraft(draft) => compose::effects::keep_draft(cx, draft),
        Effect::LoadServiceModels => compose::effects::load_service_models(cx),
        Effect::Reload { since_ms, check } => tasks::effects::reload_rows(cx, since_ms, check),
        Effect::CheckFiles(files) => tasks::effects::check_files(cx, files),
        Effect::Bulk { op, ids, skipped } => tasks::effects::bulk(cx, op, ids, skipped),
        Effect::Delete { id, remove_file } => tasks::effects::delete(cx, id, remove_file),
        Effect::Open { path, sha256 } => tasks::effects::open(cx, path, sha256),
        Effect::Reveal(dir) => tasks::effects::reveal(cx, dir),
        Effect::Run(argv) => tasks::effects::run(cx, argv),
        Effect::Review { id, change } => tasks::effects::review(cx, id, change, false),
        Effect::ReviewTake { id, change } => tasks::effects::review(cx, id, change, true),
        Effect::LoadTimeline(id) => detail::effects::load_timeline(cx, id),
        Effect::HistoryPage { ticket, query, cursor } => history::effects::page(cx, ticket, query, cursor),
        Effect::Lineage(id) => history::effects::lineage(cx, id),
        Effect::LoadLedger(since) => history::effects::ledger(cx, since),
        Effect::LoadModels => history::effects::models(cx),
        Effect::Reattach { attempt, after_ms } => reattach(cx, attempt, after_ms),
        Effect::LoadSpent => load_spent(cx),
        Effect::SavePrefs(prefs) => {
            let dir = cx.data_dir.clone();
            blocking(cx.actions.clone(), move || kept::save_prefs(&dir, &prefs).err().map(|e| Action::Report(Err(e))));
        }
        Effect::Copy(text) => {
            // OSC 52: the terminal (and tmux, with set-clipboard on) puts it on the clipboard.
            let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            console.emit(&format!("\x1b]52;c;{encoded}\x07"))?;
            let _ = cx.actions.send(Action::Report(Ok(format!("Copied {}", reel_rules::text::excerpt(&text, 80)))));
        }
        Effect::Bell => console.emit("\x07")?,
        Effect::Notify(message) => {
            // Desktop notification where a notifier exists; silently nothing elsewhere.
            let _ = spawn(&["notify-send".into(), "reel".into(), message]);
        }
        Effect::Suspend => {
            // A playing preview stops while nobody can see it, and goes on when back.
            let was_playing = cx.previews.hold();
            console.suspend()?;
            cx.previews.resume(was_playing);
        }
        Effect::Quit => {}
    }
    Ok(())
}

/// Attaches to the data folder's engine again after `after_ms`, as every command does: the
/// running engine, else a new one started. A newer attempt replaces one under way.
fn reattach(cx: &Context, attempt: u32, after_ms: i64) {
    let Some(relink) = &cx.relink else { return };
    let (settings, reach, found, tx) =
        (relink.settings.clone(), relink.reach.clone(), relink.found.clone(), cx.actions.clone());
    let job = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(after_ms.max(0) as u64)).await;
        let _ = tx.send(Action::Reattaching(attempt));
        match session::attach(&settings, &reach).await {
            Ok(attached) => drop(found.send(attached)),
            Err(e) => drop(tx.send(Action::ReattachFailed { attempt, error: e.to_string() })),
        }
    });
    if let Some(earlier) = relink.attempt.lock().unwrap_or_else(|e| e.into_inner()).replace(job) {
        earlier.abort();
    }
}

/// What was spent today, for the budget guard.
fn load_spent(cx: &Context) {
    let pricing = cx.pricing.clone();
    reading(cx, move |r| async move {
        // Unread, the guard would count from nothing: the user is told.
        Some(match r.spent_today(&pricing).await {
            Ok(amount) => Action::Spent(amount),
            Err(e) => Action::Report(Err(e.into())),
        })
    });
}
