//! `reel list`: the newest tasks, optionally in one state.

use std::io::Write;

use clap::Args;

use super::CliError;
use super::output::Output;
use crate::config::Settings;
use crate::session::Reach;
use crate::store::{LocalState, TaskRecord};
use crate::text::{fit, local_time};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only tasks in this state (queued, in_progress, downloaded, failed, …).
    #[arg(long)]
    pub status: Option<LocalState>,
    /// Only the tasks of one batch (sent together: copies, a grid, a bulk re-run); its id is
    /// the local id of its first task, `batch_id` in the JSON.
    #[arg(long, value_name = "ID")]
    pub batch: Option<i64>,
    /// Show at most this many tasks.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn table(tasks: &[TaskRecord]) -> String {
    let mut out = format!(
        "{:>6}  {:<19}  {:<15}  {:<36}  {:>4}  {:<5}  {:<8}  {}\n",
        "ID", "CREATED", "STATE", "MODEL", "SEC", "RES", "RATIO", "PROMPT"
    );
    for t in tasks {
        out.push_str(&format!(
            "{:>6}  {:<19}  {:<15}  {:<36}  {:>4}  {:<5}  {:<8}  {}\n",
            t.id,
            local_time(t.created_at),
            t.state.as_str(),
            fit(&t.model, 36),
            t.seconds,
            fit(&t.resolution, 5),
            fit(&t.ratio, 8),
            fit(&t.prompt, 50)
        ));
    }
    out
}

pub async fn run(
    args: &ListArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    let reader = super::reading::reader(settings, reach).await?;
    let tasks = reader.list(args.status, args.batch, args.limit).await?;
    if args.json {
        out.json(&crate::public::tasks(&tasks))?;
    } else if tasks.is_empty() && (args.status.is_some() || args.batch.is_some()) {
        out.line("No tasks match.")?;
    } else if tasks.is_empty() {
        out.line("No tasks yet. Submit one with `reel submit --model M --prompt P`.")?;
    } else {
        out.text(&table(&tasks))?;
    }
    Ok(())
}
