//! `reel rerun ID`: the task sent again as it was, recorded as derived from it.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::output::Output;
use super::submit::{Sending, send};
use super::wait::resolve_all;
use crate::config::Settings;
use crate::engine::journal;
use crate::session::Reach;

#[derive(Debug, Args)]
pub struct RerunArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    #[command(flatten)]
    pub delivery: Delivery,
}

/// How a re-run or a variation is sent and followed, as for `reel submit`.
#[derive(Debug, Args)]
pub struct Delivery {
    /// Copies to submit.
    #[arg(long, short = 'n', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub count: u32,
    /// Wait until the tasks end and their files are saved.
    #[arg(long)]
    pub wait: bool,
    /// Send even past the daily budget of the config's [budget].
    #[arg(long)]
    pub yes: bool,
    /// Print the tasks as JSON.
    #[arg(long)]
    pub json: bool,
    /// Send without checking the media URLs first (reachable, type, duration).
    #[arg(long)]
    pub no_preflight: bool,
}

impl Delivery {
    pub fn sending(&self, parent: i64) -> Sending {
        Sending {
            count: self.count,
            parent: Some(parent),
            wait: self.wait,
            yes: self.yes,
            json: self.json,
            no_preflight: self.no_preflight,
        }
    }
}

pub async fn run(
    args: &RerunArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let task = resolve_all(settings, std::slice::from_ref(&args.id))?.remove(0);
    send(journal::draft(&task), args.delivery.sending(task.id), settings, reach, out).await
}
