//! Carrying out what `update` asked for: engine commands, files, processes, the clipboard.
//! Everything slow runs on a task and reports back as an [`Action`].

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::app::{Action, BatchNews, Effect, EffectError, Op, Reload};
use super::compose::Field;
use super::compose::media::{MediaContext, prepare};
use super::kept;
use super::terminal::Console;
use reel_engine::Engine;
use reel_engine::config::{Programs, Settings};
use reel_engine::journal::Part;
use reel_engine::query::QueryError;
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
    pub previews: Arc<super::preview::work::PreviewWork>,
    /// Where videos fetched from an engine on another machine are kept (by sha256).
    pub fetched: PathBuf,
    pub reviews: Reviews,
    /// `[batch]`: the bounds a batch file loaded into the form is read and expanded within.
    pub batch: reel_engine::config::BatchSettings,
}

/// One review after another, in the order asked: ratings are absolute (`+` three times asks
/// for 1, 2 and 3), so the last asked must be the last written.
#[derive(Default)]
pub struct Reviews(Mutex<Option<UnboundedSender<ReviewJob>>>);

struct ReviewJob {
    engine: Arc<Engine>,
    id: i64,
    change: reel_store::review::Change,
    /// Said only if it fails.
    quiet: bool,
    tx: UnboundedSender<Action>,
}

impl Reviews {
    fn send(
        &self,
        engine: Arc<Engine>,
        id: i64,
        change: reel_store::review::Change,
        quiet: bool,
        tx: UnboundedSender<Action>,
    ) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let queue = slot.get_or_insert_with(|| {
            let (queue, mut jobs) = tokio::sync::mpsc::unbounded_channel::<ReviewJob>();
            tokio::spawn(async move {
                while let Some(job) = jobs.recv().await {
                    let result = job.engine.review(job.id, job.change).await;
                    // A refused change was shown already: what the journal holds puts it right.
                    let truth = match &result {
                        Ok(t) => Some(t.clone()),
                        Err(_) => job.engine.tasks(vec![job.id]).await.ok().and_then(|mut t| t.pop()),
                    };
                    let result = result.map(|_| ()).map_err(EffectError::from);
                    let _ = job.tx.send(Action::Reviewed { id: job.id, quiet: job.quiet, result, truth });
                }
            });
            queue
        });
        let _ = queue.send(ReviewJob { engine, id, change, quiet, tx: tx.clone() });
    }
}

/// A read of the journal failed: said on the status line (and in the log, where every
/// reported error goes).
fn read_failed(what: String, source: ReadError) -> Action {
    Action::Report(Err(EffectError::Read { what, source }))
}

/// `program` followed by `args`, as one argv.
fn with_arg(program: &[String], arg: &str) -> Vec<String> {
    let mut argv = program.to_vec();
    argv.push(arg.to_string());
    argv
}

/// Starts the player on a saved file.
fn play(player: &[String], path: &str) -> Result<String, EffectError> {
    if !Path::new(path).is_file() {
        return Err(EffectError::FileMissing(path.to_string()));
    }
    spawn(&with_arg(player, path)).map_err(|e| match e {
        EffectError::Spawn { program, source } => EffectError::Player { program, source },
        other => other,
    })?;
    Ok(format!("Opening {path}"))
}

/// Starts a program without a shell, detached from the terminal.
fn spawn(argv: &[String]) -> Result<(), EffectError> {
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

/// Runs the editor on the text in a private temporary file, with the terminal handed over.
async fn edit(console: &mut impl Console, editor: &[String], field: Field, text: &str) -> Result<String, EffectError> {
    let dir = tempfile::Builder::new().prefix("reel-").tempdir().map_err(EffectError::EditorFile)?;
    let path = dir.path().join(if field == Field::Prompt { "prompt.txt" } else { "negative.txt" });
    std::fs::write(&path, text).map_err(EffectError::EditorFile)?;
    let (program, args) = editor.split_first().ok_or(EffectError::EmptyCommand)?;
    console.release();
    let status = tokio::process::Command::new(program).args(args).arg(&path).status().await;
    console.reclaim().map_err(EffectError::Terminal)?;
    match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path).map_err(EffectError::EditorFile),
        Ok(s) => Err(EffectError::EditorFailed { program: program.clone(), status: s.to_string() }),
        Err(source) => Err(EffectError::EditorMissing { program: program.clone(), source }),
    }
}

/// The rows to show, read again: every task unfinished or changed since `since_ms`, and for
/// each task of `check` not among them, its record as it is now, or that it is gone.
async fn reload(reader: &Reader, since_ms: i64, check: &[i64]) -> Result<Reload, EffectError> {
    let opened = reader.opening(since_ms).await?;
    let (mut records, mark) = (opened.tasks, opened.mark);
    let missing: Vec<i64> = check.iter().copied().filter(|id| !records.iter().any(|r| r.id == *id)).collect();
    let mut gone = Vec::new();
    if !missing.is_empty() {
        // One question for all of them: deleted tasks are left out of the answer.
        let found = reader.tasks(missing.clone()).await?;
        gone.extend(missing.iter().filter(|id| !found.iter().any(|r| r.id == **id)));
        records.extend(found);
    }
    Ok(Reload { records, gone, mark })
}

/// Every part's media made ready (local files uploaded, URLs re-signed) before the first is
/// sent, then the parts handed to the engine as one submission: one batch when there are
/// several tasks.
async fn send_parts(
    engine: &Engine,
    media: &MediaContext,
    tx: &UnboundedSender<Action>,
    parts: Vec<Part>,
    past_budget: bool,
) -> Result<Vec<reel_store::TaskRecord>, EffectError> {
    let mut ready = Vec::with_capacity(parts.len());
    for part in parts {
        let submission = prepare(part.submission, media, |line| drop(tx.send(Action::Report(Ok(line))))).await?;
        ready.push(Part { submission, ..part });
    }
    let submission = reel_engine::Submission {
        parts: ready.iter().map(reel_engine::DraftPart::from).collect(),
        over_budget: past_budget,
        ..Default::default()
    };
    Ok(engine.send(submission).await?.tasks)
}

/// Runs `job` over the journal, read where it is (this machine's file on the blocking pool,
/// or through the engine on another machine), and sends what it returns.
fn reading<F>(cx: &Context, tx: UnboundedSender<Action>, job: impl FnOnce(Reader) -> F + Send + 'static)
where
    F: std::future::Future<Output = Option<Action>> + Send + 'static,
{
    let reader = Reader::of(&cx.engine.get(), &cx.db);
    tokio::spawn(async move {
        if let Some(action) = job(reader).await {
            let _ = tx.send(action);
        }
    });
}

/// Runs `job` on the blocking pool and sends what it returns (SQLite reads stay off the loop).
fn blocking(tx: UnboundedSender<Action>, job: impl FnOnce() -> Option<Action> + Send + 'static) {
    tokio::task::spawn_blocking(move || {
        if let Some(action) = job() {
            let _ = tx.send(action);
        }
    });
}

pub async fn perform(effect: Effect, cx: &Context, console: &mut impl Console) -> std::io::Result<()> {
    let tx = cx.actions.clone();
    let report = |r: Result<String, EffectError>| drop(cx.actions.send(Action::Report(r)));
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
            let engine = cx.engine.get();
            match engine.far() {
                Some(_) => super::preview::far::perform(e, engine, cx.previews.clone(), cx.fetched.clone(), tx),
                None => cx.previews.perform(e, &tx),
            }
        }
        Effect::Submit { plan, copies, parent } => {
            let parts = plan.into_iter().map(|submission| Part { submission, count: copies, parent }).collect();
            let (engine, media) = (cx.engine.get(), cx.media.clone());
            tokio::spawn(async move {
                let result = send_parts(&engine, &media, &tx, parts, past_budget).await;
                let _ = tx.send(Action::Submitted { again: false, result });
            });
        }
        Effect::SubmitAgain(items) => {
            let parts = items
                .into_iter()
                .map(|(parent, submission)| Part { submission, count: 1, parent: Some(parent) })
                .collect();
            let (engine, media) = (cx.engine.get(), cx.media.clone());
            tokio::spawn(async move {
                let result = send_parts(&engine, &media, &tx, parts, past_budget).await;
                let _ = tx.send(Action::Submitted { again: true, result });
            });
        }
        Effect::CompletePath(typed) => {
            let home = cx.media.home.clone();
            blocking(tx, move || {
                let completion = super::compose::batch_file::complete_path(&typed, home.as_deref());
                Some(Action::Batch(BatchNews::Completed { typed, completion }))
            });
        }
        Effect::SubmitBatch(parts) => {
            let (engine, media) = (cx.engine.get(), cx.media.clone());
            tokio::spawn(async move {
                let result = send_parts(&engine, &media, &tx, parts, past_budget).await;
                let _ = tx.send(Action::Batch(BatchNews::Submitted(result)));
            });
        }
        Effect::LoadBatch { path, defaults, refresh } => {
            let (home, catalog, bounds) = (cx.media.home.clone(), cx.media.catalog.clone(), cx.batch);
            reading(cx, tx, move |r| async move {
                let result =
                    super::compose::batch_file::load_batch(path, defaults.clone(), home, catalog, bounds, &r).await;
                Some(Action::Batch(BatchNews::Loaded { defaults, refresh, result }))
            });
        }
        Effect::CheckMedia(items) => {
            let (home, storage) = (cx.media.home.clone(), cx.media.storage.is_some());
            tokio::spawn(async move {
                let _ = tx.send(Action::MediaChecked(super::compose::media::check_items(items, home, storage).await));
            });
        }
        Effect::Bulk { op, ids, skipped } => {
            let engine = cx.engine.get();
            tokio::spawn(async move {
                let (mut done, mut failed) = (Vec::new(), Vec::new());
                for id in ids {
                    let result = match op {
                        Op::Resend => engine.resend(id).await,
                        Op::Recheck => engine.recheck(id).await,
                        Op::Download => engine.download(id).await,
                    };
                    match result {
                        Ok(()) => done.push(id),
                        Err(e) => failed.push((id, e.to_string())),
                    }
                }
                let _ = tx.send(Action::BulkDone { op, done, failed, skipped });
            });
        }
        Effect::Reload { since_ms, check } => {
            reading(cx, tx, move |r| async move { Some(Action::Reloaded(reload(&r, since_ms, &check).await)) });
        }
        Effect::Reattach { attempt, after_ms } => {
            let Some(relink) = &cx.relink else { return Ok(()) };
            let (settings, reach, found) = (relink.settings.clone(), relink.reach.clone(), relink.found.clone());
            let job = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(after_ms.max(0) as u64)).await;
                let _ = tx.send(Action::Reattaching(attempt));
                // As every command does: the running engine, else a new one started.
                match session::attach(&settings, &reach).await {
                    Ok(attached) => drop(found.send(attached)),
                    Err(e) => drop(tx.send(Action::ReattachFailed { attempt, error: e.to_string() })),
                }
            });
            if let Some(earlier) = relink.attempt.lock().unwrap_or_else(|e| e.into_inner()).replace(job) {
                earlier.abort();
            }
        }
        Effect::CheckFiles(files) => reading(cx, tx, move |r| async move {
            let found = match r {
                // The files are on the engine's machine: it looks.
                Reader::Engine(_) => {
                    let ids = files.into_iter().map(|(id, _)| id).collect();
                    r.files_present(ids).await.inspect_err(|e| tracing::info!("cannot look for the files: {e}")).ok()?
                }
                Reader::Store(_) => tokio::task::spawn_blocking(move || {
                    files.into_iter().map(|(id, p)| (id, Path::new(&p).is_file())).collect()
                })
                .await
                .ok()?,
            };
            Some(Action::FilesChecked(found))
        }),
        Effect::LoadTimeline(id) => reading(cx, tx, move |r| async move {
            match r.show(id).await {
                Ok((_, events)) => Some(Action::Timeline(id, events)),
                // Deleted meanwhile: the table forgets it on the engine's word.
                Err(ReadError::Query(QueryError::NoMatch(_))) => None,
                Err(e) => Some(read_failed(format!("the timeline of task {id}"), e)),
            }
        }),
        Effect::Open { path, sha256 } => {
            let engine = cx.engine.get();
            match (engine.far().is_some(), sha256) {
                // The file is on the engine's machine: fetched into this one's cache first.
                (true, Some(sha256)) => {
                    report(Ok("Fetching the video from the engine's machine…".into()));
                    let (dir, player) = (cx.fetched.clone(), cx.programs.player.clone());
                    tokio::spawn(async move {
                        let result = match &*engine {
                            Engine::Remote(_) => reel_engine::fetched::video_by_sum(&engine, &sha256, &dir, |_, _| {})
                                .await
                                .map_err(|e| EffectError::Fetch(e.to_string()))
                                .and_then(|local| play(&player, &local.display().to_string())),
                            Engine::Local(_) => Err(EffectError::FileMissing(path)),
                        };
                        let _ = tx.send(Action::Report(result));
                    });
                }
                _ => report(play(&cx.programs.player, &path)),
            }
        }
        Effect::Run(argv) => {
            let shown = reel_rules::text::excerpt(&argv.join(" "), 80);
            report(spawn(&argv).map(|()| format!("Started: {shown}")));
        }
        Effect::Copy(text) => {
            // OSC 52: the terminal (and tmux, with set-clipboard on) puts it on the clipboard.
            let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            console.emit(&format!("\x1b]52;c;{encoded}\x07"))?;
            report(Ok(format!("Copied {}", reel_rules::text::excerpt(&text, 80))));
        }
        Effect::Edit { field, text } => {
            let result = edit(console, &cx.programs.editor, field, &text).await;
            let _ = tx.send(Action::Edited(field, result));
        }
        Effect::SavePrefs(prefs) => {
            let dir = cx.data_dir.clone();
            blocking(tx, move || kept::save_prefs(&dir, &prefs).err().map(|e| Action::Report(Err(e))));
        }
        // Written before the loop ends: the process may exit right after.
        Effect::SaveDraft(draft) => {
            let saved = kept::save_draft(&cx.data_dir, draft.as_ref());
            // On the way out the status line is gone: the log keeps the failure.
            if let Err(e) = saved {
                tracing::warn!("{e}");
                let _ = tx.send(Action::Report(Err(e)));
            }
        }
        Effect::KeepDraft(draft) => {
            let dir = cx.data_dir.clone();
            blocking(tx, move || kept::save_draft(&dir, draft.as_ref()).err().map(|e| Action::Report(Err(e))));
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
        Effect::HistoryPage { ticket, query, cursor } => reading(cx, tx, move |r| async move {
            let page = r.history(&query, cursor, super::history::PAGE).await.map_err(Into::into);
            Some(Action::HistoryPage(ticket, page))
        }),
        Effect::Lineage(id) => reading(cx, tx, move |r| async move {
            match r.lineage(id).await {
                Ok((p, children)) => Some(Action::Lineage(id, p, children)),
                Err(e) => Some(read_failed(format!("the parent and children of task {id}"), e)),
            }
        }),
        Effect::LoadLedger(since) => {
            let pricing = cx.pricing.clone();
            reading(cx, tx, move |r| async move {
                Some(match r.ledger(since, &pricing).await {
                    Ok(l) => Action::Ledger(l),
                    Err(e) => Action::Report(Err(e.into())),
                })
            });
        }
        Effect::LoadModels => reading(cx, tx, move |r| async move {
            match r.models().await {
                Ok(models) => Some(Action::Models(models)),
                Err(e) => Some(read_failed("the models of the history".into(), e)),
            }
        }),
        Effect::LoadServiceModels => {
            let engine = cx.engine.get();
            tokio::spawn(async move {
                match engine.service_models().await {
                    Ok(list) => drop(tx.send(Action::ServiceModels(list.models.into_iter().map(|m| m.id).collect()))),
                    // Many services list nothing there: the catalog's models are the list then.
                    Err(e) => tracing::info!(error = %e, "the service's model list is not available"),
                }
            });
        }
        Effect::LoadSpent => {
            let pricing = cx.pricing.clone();
            reading(cx, tx, move |r| async move {
                // Unread, the guard would count from nothing: the user is told.
                Some(match r.spent_today(&pricing).await {
                    Ok(amount) => Action::Spent(amount),
                    Err(e) => Action::Report(Err(e.into())),
                })
            });
        }
        Effect::Delete { id, remove_file } => {
            let engine = cx.engine.get();
            tokio::spawn(async move {
                let _ = tx.send(Action::Deleted(engine.delete(id, remove_file).await.map_err(Into::into)));
            });
        }
        Effect::Review { id, change } => cx.reviews.send(cx.engine.get(), id, change, false, tx),
        Effect::ReviewTake { id, change } => cx.reviews.send(cx.engine.get(), id, change, true, tx),
        Effect::Reveal(dir) if cx.engine.get().far().is_some() => {
            let host = cx.engine.get().far().unwrap_or_default().to_string();
            report(Err(EffectError::FarFolder { dir, host }));
        }
        Effect::Reveal(dir) => {
            let result = spawn(&with_arg(&cx.programs.opener, &dir)).map_err(|e| match e {
                EffectError::Spawn { program, source } => EffectError::Opener { program, source },
                other => other,
            });
            report(result.map(|()| format!("Opening {dir}")));
        }
    }
    Ok(())
}
