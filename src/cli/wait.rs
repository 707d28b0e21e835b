//! `reel wait`: run the engine until the given tasks (or all unfinished ones) are settled.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::CliError;
use super::follow::{Ended, finish, follow, stderr_is_tty};
use super::output::{Output, note};
use super::progress::Board;
use crate::config::Settings;
use crate::engine::query;
use crate::session::Reach;
use crate::session::{self, db_path};
use crate::store::{LocalState, TaskRecord};

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

/// Looks up the tasks a command names.
pub fn resolve_all(settings: &Settings, ids: &[String]) -> Result<Vec<TaskRecord>, CliError> {
    let db = db_path(settings);
    ids.iter()
        .map(|text| {
            let id = query::resolve(&db, text)?;
            Ok(query::show(&db, id)?.0)
        })
        .collect()
}

/// Every unfinished task now, and those of `before` whatever they have become since.
fn all_targets(db: &std::path::Path, before: &[TaskRecord]) -> Result<Vec<TaskRecord>, CliError> {
    let mut targets = query::unfinished(db)?;
    for t in before {
        if !targets.iter().any(|n| n.id == t.id) {
            targets.push(query::show(db, t.id)?.0);
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
    let db = db_path(settings);
    // Read before attaching too: an engine that starts now settles a send it finds cut short
    // as submit_unknown, and that task was still waited on.
    let before = if args.all { query::unfinished(&db)? } else { Vec::new() };
    if let Some(batch) = args.batch
        && query::list(&db, None, Some(batch), 1)?.is_empty()
    {
        note(&format!("no batch {batch} (`reel list --json` shows each task's batch_id)"));
        return Ok(ExitCode::from(2));
    }
    // Attached first, read second: a task that ends in between is read as ended, and every
    // later change arrives as an event.
    let attached = session::attach(settings, reach).await?;
    let (engine, mut events) = (attached.engine, attached.events);
    let targets = match (args.all, args.batch) {
        (true, _) => all_targets(&db, &before)?,
        (false, Some(batch)) => query::list(&db, None, Some(batch), usize::MAX)?,
        (false, None) => resolve_all(settings, &args.ids)?,
    };
    // A stalled task may have finished on the service since: ask again now, not in a minute.
    for t in targets.iter().filter(|t| t.state == LocalState::Stalled) {
        if let Err(e) = engine.recheck(t.id).await {
            note(&format!("task {}: {e}", t.id));
        }
    }
    let mut board = Board::new(stderr_is_tty(), targets);
    let limit = args.timeout.filter(|s| s.is_finite() && *s > 0.0).map(Duration::from_secs_f64);
    let ended = match limit {
        Some(limit) => tokio::time::timeout(limit, follow(&engine, &mut events, &mut board, Board::done))
            .await
            .unwrap_or(Ended::Reached),
        None => follow(&engine, &mut events, &mut board, Board::done).await,
    };
    finish(engine, &board, ended, args.json, out).await
}
