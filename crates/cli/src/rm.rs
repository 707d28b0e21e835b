//! `reel rm ID`: a task forgotten from the journal, and with `--file` its saved video too.

use std::io::Write;

use clap::Args;

use super::CliError;
use super::output::Output;
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_rules::text::one_line;

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Also delete the saved video (and its .json beside it).
    #[arg(long)]
    pub file: bool,
}

pub async fn run(
    args: &RmArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    let (attached, mut tasks) = super::reading::attach_for(settings, reach, std::slice::from_ref(&args.id)).await?;
    let Some(task) = tasks.pop() else { return Err(CliError::Usage(format!("no task {}", args.id))) };
    let engine = attached.engine;
    // The engine refuses a task it is still sending or following.
    let deleted = engine.delete(task.id, args.file).await;
    engine.shutdown().await;
    let deleted = deleted?;
    let file = match (&deleted.file_path, args.file) {
        (Some(path), true) if deleted.imported_from.is_some() => {
            format!("; its file stays at {} (imported: the folder it came from keeps it)", one_line(path))
        }
        (Some(path), true) => format!(" and its file {}", one_line(path)),
        (Some(path), false) => format!("; its file stays at {}", one_line(path)),
        (None, _) => String::new(),
    };
    let followed = reel_engine::manual::still_at_service(&deleted).map(|s| format!("; {s}")).unwrap_or_default();
    out.line(&format!("Deleted task {}{file}{followed}", deleted.id))?;
    Ok(())
}
