//! `reel pick ID`: the task is the winner of its batch or comparison; `--clear` takes it back.

use std::io::Write;

use clap::Args;

use super::CliError;
use super::output::Output;
use crate::config::Settings;
use crate::session::Reach;
use crate::store::review::Change;

#[derive(Debug, Args)]
pub struct PickArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Take the pick back.
    #[arg(long)]
    pub clear: bool,
    /// Print the task as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(
    args: &PickArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    super::review::run(&args.id, Change::Pick(!args.clear), args.json, settings, reach, out).await
}
