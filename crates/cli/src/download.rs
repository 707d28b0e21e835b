//! `reel download`: fetch a task's file again.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::follow::{finish, follow, stderr_is_tty};
use super::output::Output;
use super::progress::Board;
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct DownloadArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Print the task as JSON when done.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(
    args: &DownloadArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let (attached, mut tasks) = super::reading::attach_for(settings, reach, std::slice::from_ref(&args.id)).await?;
    let Some(task) = tasks.pop() else { return Err(CliError::Usage(format!("no task {}", args.id))) };
    let (mut engine, mut events) = (attached.engine, attached.events);
    engine.download(task.id).await?;
    let pending = TaskRecord { state: LocalState::Completed, ..task };
    let mut board = Board::new(stderr_is_tty(), [pending]);
    let relink = super::follow::Relink::over_ssh(settings, reach);
    let ended = follow(&mut engine, &mut events, &mut board, Board::done, relink).await;
    finish(engine, &board, ended, args.json, out).await
}
