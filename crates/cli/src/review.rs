//! What `reel rate`, `reel tag` and `reel pick` share: one change of a task's review, sent
//! through the engine (the one writer of the journal), and a task's review in words.

use std::io::Write;

use super::CliError;
use super::output::Output;
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_store::review::{Change, checked};

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
    // A pick moves from the batch's earlier winner, which the engine unpicks: read it first.
    let picking = matches!(change, Change::Pick(true)) && !task.review.picked;
    let (attached, before) = match task.batch_id.filter(|_| picking) {
        Some(batch) => {
            super::reading::lend(attached, settings, async |r| Ok(r.list(None, Some(batch), usize::MAX).await?)).await?
        }
        None => (attached, Vec::new()),
    };
    let engine = attached.engine;
    let reviewed = engine.review(task.id, change).await;
    engine.shutdown().await;
    let reviewed = reviewed?;
    let was: Vec<i64> = before.iter().filter(|t| t.review.picked && t.id != reviewed.id).map(|t| t.id).collect();
    if json {
        out.json(&reel_engine::public::PublicTask::from(&reviewed))?;
    } else {
        out.line(&format!("Task {}: {}", reviewed.id, reviewed.review.summary()))?;
    }
    if let Some(line) = reel_store::review::moved(reviewed.id, reviewed.batch_id, &was) {
        super::output::note(&line);
    }
    Ok(())
}
