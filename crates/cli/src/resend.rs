//! `reel resend ID`: a `submit_unknown` (or `rejected`) task sent again with its own
//! idempotency key, so a service that did take the first request can recognise this one.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::follow::stderr_is_tty;
use super::output::Output;
use super::progress::Board;
use super::submit::{Sending, follow_sent};
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct ResendArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Wait until the task ends and its file is saved.
    #[arg(long)]
    pub wait: bool,
    /// Print the task as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(
    args: &ResendArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let (attached, mut tasks) = super::reading::attach_for(settings, reach, std::slice::from_ref(&args.id)).await?;
    let Some(task) = tasks.pop() else { return Err(CliError::Usage(format!("no task {}", args.id))) };
    let (engine, mut events) = (attached.engine, attached.events);
    // The engine says when the task is in no state to be sent again.
    engine.resend(task.id).await?;
    let pending = TaskRecord { state: LocalState::Waiting, error: None, ..task };
    let how = Sending { count: 1, wait: args.wait, json: args.json, ..Sending::default() };
    let relink = super::follow::Relink::over_ssh(settings, reach);
    follow_sent(engine, &mut events, Board::new(stderr_is_tty(), [pending]), how, relink, out).await
}
