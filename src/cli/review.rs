//! What `reel rate`, `reel tag` and `reel pick` share: one change of a task's review, sent
//! through the engine (the one writer of the journal), and a task's review in words.

use std::io::Write;

use super::CliError;
use super::output::Output;
use crate::config::Settings;
use crate::session::Reach;
use crate::store::review::{Change, checked};

/// Applies `change` to the task `id` names and prints the task's review (or with `json`, the task).
pub async fn run(
    id: &str,
    change: Change,
    json: bool,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    // Refused here, before the engine is started for nothing.
    let change = checked(&change).map_err(|e| CliError::Usage(e.to_string()))?;
    let (attached, mut tasks) = super::reading::attach_for(settings, reach, &[id.to_string()]).await?;
    let Some(task) = tasks.pop() else { return Err(CliError::Usage(format!("no task {id}"))) };
    let engine = attached.engine;
    let reviewed = engine.review(task.id, change).await;
    engine.shutdown().await;
    let reviewed = reviewed?;
    if json {
        out.json(&crate::public::PublicTask::from(&reviewed))?;
    } else {
        out.line(&format!("Task {}: {}", reviewed.id, reviewed.review.summary()))?;
    }
    Ok(())
}
