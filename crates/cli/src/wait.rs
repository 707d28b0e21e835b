//! `reel wait`: run the engine until the given tasks (or all unfinished ones) are settled.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::CliError;
use super::follow::{Ended, finish, follow, stderr_is_tty};
use super::output::{Output, note};
use super::progress::Board;
use super::reading::{lend, resolve_all};
use reel_engine::config::Settings;
use reel_engine::reader::Reader;
use reel_engine::session::{self, Reach, db_path};
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// Task ids: local id, remote id, or a unique prefix of either.
    pub ids: Vec<String>,
    /// Every unfinished task.
    #[arg(long, conflicts_with = "ids")]
    pub all: bool,
    /// Every task of one batch (a `--from` file, a grid, copies): its id is `batch_id`.
    #[arg(long, value_name = "ID", conflicts_with_all = ["ids", "all"])]
    pub batch: Option<i64>,
    /// Print the tasks as JSON when done.
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds (exit 1, the tasks go on); by default wait until every
    /// task has ended, stalled ones included.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

/// Every unfinished task now, and those of `before` whatever they have become since.
async fn all_targets(reader: &Reader, before: &[TaskRecord]) -> Result<Vec<TaskRecord>, CliError> {
    let mut targets = reader.unfinished().await?;
    // A send whose answer was lost needs the user (resend or remove): waiting on "all" that
    // leaves them out would say all is well.
    targets.extend(reader.list(Some(LocalState::SubmitUnknown), None, usize::MAX).await?);
    for t in before {
        if !targets.iter().any(|n| n.id == t.id) {
            targets.push(reader.show(t.id).await?.0);
        }
    }
    targets.sort_by_key(|t| t.id);
    Ok(targets)
}

pub async fn run(
    args: &WaitArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    if args.ids.is_empty() && !args.all && args.batch.is_none() {
        note("name the tasks to wait for, or use --all or --batch ID");
        return Ok(ExitCode::from(2));
    }
    let no_batch = |batch| {
        note(&format!("no batch {batch} (`reel list --json` shows each task's batch_id)"));
        Ok(ExitCode::from(2))
    };
    // On this machine, read before attaching too: an engine that starts now settles a send it
    // finds cut short as submit_unknown, and that task was still waited on. (An engine on
    // another machine is read through the link, once attached.)
    let here = reach.far().is_none().then(|| Reader::Store(db_path(settings)));
    let mut before = Vec::new();
    if let Some(early) = &here {
        if args.all {
            before = early.unfinished().await?;
        }
        if let Some(batch) = args.batch
            && early.list(None, Some(batch), 1).await?.is_empty()
        {
            return no_batch(batch);
        }
    }
    // Attached first, read second: a task that ends in between is read as ended, and every
    // later change arrives as an event.
    let attached = session::attach(settings, reach).await?;
    if let Some(said) = attached.config_note() {
        super::output::note(&said);
    }
    let (attached, targets) = lend(attached, settings, async |reader| {
        if here.is_none() {
            if let Some(batch) = args.batch
                && reader.list(None, Some(batch), 1).await?.is_empty()
            {
                return Ok(None);
            }
            if args.all {
                before = reader.unfinished().await?;
            }
        }
        Ok(Some(match (args.all, args.batch) {
            (true, _) => all_targets(reader, &before).await?,
            (false, Some(batch)) => reader.list(None, Some(batch), usize::MAX).await?,
            (false, None) => resolve_all(reader, &args.ids).await?,
        }))
    })
    .await?;
    let (mut engine, mut events) = (attached.engine, attached.events);
    let relink = super::follow::Relink::over_ssh(settings, reach);
    let Some(targets) = targets else { return args.batch.map_or(Ok(ExitCode::from(2)), no_batch) };
    // A stalled task may have finished on the service since: ask again now, not in a minute.
    for t in targets.iter().filter(|t| t.state == LocalState::Stalled) {
        if let Err(e) = engine.recheck(t.id).await {
            note(&format!("task {}: {e}", t.id));
        }
    }
    let mut board = Board::new(stderr_is_tty(), targets);
    let limit = args.timeout.filter(|s| s.is_finite() && *s > 0.0).map(Duration::from_secs_f64);
    let ended = match limit {
        Some(limit) => tokio::time::timeout(limit, follow(&mut engine, &mut events, &mut board, Board::done, relink))
            .await
            .unwrap_or(Ended::TimedOut(limit.as_secs_f64())),
        None => follow(&mut engine, &mut events, &mut board, Board::done, relink).await,
    };
    finish(engine, &board, ended, args.json, out).await
}
