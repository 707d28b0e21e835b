//! What `reel rate`, `reel tag` and `reel pick` share: one change of a task's marks, sent
//! through the engine (the one writer of the journal), and the task's marks in words.

use std::io::Write;

use super::CliError;
use super::output::Output;
use super::wait::resolve_all;
use crate::config::Settings;
use crate::session::{self, Reach};
use crate::store::Marks;
use crate::store::marks::{Change, checked};

/// A task's marks in a few words: `rated 4, picked, tagged keeper night`.
pub fn summary(marks: &Marks) -> String {
    let mut parts = Vec::new();
    if let Some(r) = marks.rating {
        parts.push(format!("rated {r}"));
    }
    if marks.picked {
        parts.push("picked".to_string());
    }
    if !marks.tags.is_empty() {
        parts.push(format!("tagged {}", marks.tags.join(" ")));
    }
    if parts.is_empty() { "no rating, pick or tag".to_string() } else { parts.join(", ") }
}

/// Applies `change` to the task `id` names and prints the task's marks (or with `json`, the task).
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
    let task = resolve_all(settings, &[id.to_string()])?.remove(0);
    let attached = session::attach(settings, reach).await?;
    let engine = attached.engine;
    let marked = engine.mark(task.id, change).await;
    engine.shutdown().await;
    let marked = marked?;
    if json {
        out.json(&super::public::PublicTask::from(&marked))?;
    } else {
        out.line(&format!("Task {}: {}", marked.id, summary(&marked.marks)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_read_as_a_few_words() {
        let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (Marks::default(), "no rating, pick or tag"),
            (Marks { rating: Some(4), ..Marks::default() }, "rated 4"),
            (Marks { picked: true, ..Marks::default() }, "picked"),
            (
                Marks { rating: Some(2), picked: true, tags: tags(&["keeper", "night"]) },
                "rated 2, picked, tagged keeper night",
            ),
            (Marks { tags: tags(&["x"]), ..Marks::default() }, "tagged x"),
        ];
        for (marks, want) in cases {
            assert_eq!(summary(&marks), want, "{marks:?}");
        }
    }
}
