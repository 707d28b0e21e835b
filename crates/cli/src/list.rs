//! `reel list`: the newest tasks, optionally in one state.

use std::io::Write;

use clap::Args;

use super::CliError;
use super::output::Output;
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_rules::text::{fit, local_time};
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only tasks in this state (queued, in_progress, downloaded, failed, …).
    #[arg(long, value_parser = super::state_names())]
    pub status: Option<LocalState>,
    /// Only the tasks of one batch (sent together: copies, a grid, a bulk re-run); its id is
    /// the local id of its first task, `batch_id` in the JSON.
    #[arg(long, value_name = "ID")]
    pub batch: Option<i64>,
    /// Show at most this many tasks, newest first (0: all). Default: 50, or the whole batch with
    /// --batch. When more match, stderr says so.
    #[arg(long)]
    pub limit: Option<usize>,
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

/// Rows shown unless `--limit` says otherwise.
const DEFAULT_LIMIT: usize = 50;

/// How many rows to show: `--limit` as given (0: all), else the whole batch with `--batch`, else
/// the newest [`DEFAULT_LIMIT`].
pub fn rows_wanted(limit: Option<usize>, batch: Option<i64>) -> usize {
    match (limit, batch) {
        (Some(0), _) | (None, Some(_)) => usize::MAX,
        (Some(n), _) => n,
        (None, None) => DEFAULT_LIMIT,
    }
}

/// What stderr says when rows matched past the limit.
pub fn left_out(shown: usize) -> String {
    format!("the newest {shown} are shown and more match: --limit N shows more, --limit 0 all")
}

pub async fn run(
    args: &ListArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    let reader = super::reading::reader(settings, reach).await?;
    let wanted = rows_wanted(args.limit, args.batch);
    // One more than shown, to know whether any were left out.
    let mut tasks = reader.list(args.status, args.batch, wanted.saturating_add(1)).await?;
    if tasks.len() > wanted {
        tasks.truncate(wanted);
        super::output::note(&left_out(wanted));
    }
    if args.json {
        out.json(&reel_engine::public::tasks(&tasks))?;
    } else if tasks.is_empty() && (args.status.is_some() || args.batch.is_some()) {
        out.line("No tasks match.")?;
    } else if tasks.is_empty() {
        out.line("No tasks yet. Submit one with `reel submit --model M --prompt P`.")?;
    } else {
        out.text(&table(&tasks))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_many_rows_a_list_shows() {
        let cases = [
            (None, None, DEFAULT_LIMIT),
            (None, Some(13), usize::MAX),
            (Some(0), None, usize::MAX),
            (Some(0), Some(13), usize::MAX),
            (Some(5), Some(13), 5),
            (Some(200), None, 200),
        ];
        for (limit, batch, want) in cases {
            assert_eq!(rows_wanted(limit, batch), want, "{limit:?} {batch:?}");
        }
    }
}
