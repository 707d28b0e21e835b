//! The task table's effects: the rows read again, its files looked for, played, revealed or
//! handed to a command, actions on many tasks, deletes, and reviews in the order asked.

use std::path::Path;
use std::sync::{Arc, Mutex};

use reel_engine::Engine;
use reel_engine::reader::Reader;
use reel_store::review::Change;
use tokio::sync::mpsc::UnboundedSender;

use crate::app::{Action, EffectError, Op, Reload};
use crate::effects::{Context, reading, spawn};

/// The rows to show, read again (see [`reload`]).
pub fn reload_rows(cx: &Context, since_ms: i64, check: Vec<i64>) {
    reading(cx, move |r| async move { Some(Action::Reloaded(reload(&r, since_ms, &check).await)) });
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

/// Whether the files on screen are still on disk, looked for where they are.
pub fn check_files(cx: &Context, files: Vec<(i64, String)>) {
    reading(cx, move |r| async move {
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
    });
}

/// One engine action on each task, one after another; `skipped` is told with the result.
pub fn bulk(cx: &Context, op: Op, ids: Vec<i64>, skipped: Vec<String>) {
    let (engine, tx) = (cx.engine.get(), cx.actions.clone());
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

pub fn delete(cx: &Context, id: i64, remove_file: bool) {
    let (engine, tx) = (cx.engine.get(), cx.actions.clone());
    tokio::spawn(async move {
        let _ = tx.send(Action::Deleted(engine.delete(id, remove_file).await.map_err(Into::into)));
    });
}

/// A saved video played; on an engine's other machine it is fetched into this one's cache
/// first, found by its `sha256`.
pub fn open(cx: &Context, path: String, sha256: Option<String>) {
    let (engine, tx) = (cx.engine.get(), cx.actions.clone());
    match (engine.far().is_some(), sha256) {
        (true, Some(sha256)) => {
            let _ = tx.send(Action::Report(Ok("Fetching the video from the engine's machine…".into())));
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
        _ => drop(tx.send(Action::Report(play(&cx.programs.player, &path)))),
    }
}

/// A task's folder opened with the opener, when it is on this machine.
pub fn reveal(cx: &Context, dir: String) {
    let engine = cx.engine.get();
    let result = match engine.far() {
        Some(host) => Err(EffectError::FarFolder { dir, host: host.to_string() }),
        None => spawn(&with_arg(&cx.programs.opener, &dir))
            .map_err(|e| match e {
                EffectError::Spawn { program, source } => EffectError::Opener { program, source },
                other => other,
            })
            .map(|()| format!("Opening {dir}")),
    };
    let _ = cx.actions.send(Action::Report(result));
}

/// A user's `[[actions]]` command started on a task.
pub fn run(cx: &Context, argv: Vec<String>) {
    let shown = reel_rules::text::excerpt(&argv.join(" "), 80);
    let _ = cx.actions.send(Action::Report(spawn(&argv).map(|()| format!("Started: {shown}"))));
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

/// One review after another, in the order asked: ratings are absolute (`+` three times asks
/// for 1, 2 and 3), so the last asked must be the last written.
#[derive(Default)]
pub struct Reviews(Mutex<Option<UnboundedSender<ReviewJob>>>);

struct ReviewJob {
    engine: Arc<Engine>,
    id: i64,
    change: Change,
    /// Said only if it fails.
    quiet: bool,
    tx: UnboundedSender<Action>,
}

/// A change of a task's review, through the engine; `quiet` says it only if it fails.
pub fn review(cx: &Context, id: i64, change: Change, quiet: bool) {
    cx.reviews.send(cx.engine.get(), id, change, quiet, cx.actions.clone());
}

impl Reviews {
    fn send(&self, engine: Arc<Engine>, id: i64, change: Change, quiet: bool, tx: UnboundedSender<Action>) {
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
        let _ = queue.send(ReviewJob { engine, id, change, quiet, tx });
    }
}
