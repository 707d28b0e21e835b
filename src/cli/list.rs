//! `reel list`: the newest tasks, optionally in one state.

use std::io::Write;

use clap::Args;

use crate::config::Settings;
use crate::engine::query;
use crate::session::db_path;
use crate::store::{LocalState, TaskRecord};
use crate::text::{excerpt, local_time};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only tasks in this state (queued, in_progress, downloaded, failed, …).
    #[arg(long)]
    pub status: Option<LocalState>,
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
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
            excerpt(&t.model, 36),
            t.seconds,
            t.resolution,
            t.ratio,
            excerpt(&t.prompt, 50)
        ));
    }
    out
}

pub fn run(args: &ListArgs, settings: &Settings, out: &mut impl Write) -> anyhow::Result<()> {
    let db = db_path(settings);
    let tasks = query::list(&db, args.status, args.limit)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &tasks)?;
        writeln!(out)?;
    } else if tasks.is_empty() {
        writeln!(out, "No tasks yet. Submit one with `reel submit --model M --prompt P`.")?;
    } else {
        write!(out, "{}", table(&tasks))?;
    }
    Ok(())
}
