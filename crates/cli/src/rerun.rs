//! `reel rerun ID`: the task sent again as it was, recorded as derived from it.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::output::Output;
use super::submit::{Delivery, send};
use reel_engine::config::Settings;
use reel_engine::journal;
use reel_engine::session::Reach;

#[derive(Debug, Args)]
pub struct RerunArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    #[command(flatten)]
    pub delivery: Delivery,
}

pub async fn run(
    args: &RerunArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let task = super::reading::resolve_one(settings, reach, &args.id).await?;
    send(journal::draft(&task), args.delivery.sending(Some(task.id)), settings, reach, out).await
}
