//! What `reel rate`, `reel tag` and `reel pick` share: one change of a task's review, sent
//! through the engine (the one writer of the journal), and a task's review in words.

use std::io::Write;

use super::CliError;
use super::output::Output;
use super::wait::resolve_all;
use crate::config::Settings;
use crate::session::{self, Reach};
use crate::store::Review;
use crate::store::review::{Change, checked};

/// A task's review in a few words: `rated 4, picked, tagged keeper night`.
pub fn summary(review: &Review) -> String {
    let mut parts = Vec::new();
    if let Some(r) = review.rating {
        parts.push(format!("rated {r}"));
    }
    if review.picked {
        parts.push("picked".to_string());
    }
    if !review.tags.is_empty() {
        parts.push(format!("tagged {}", review.tags.join(" ")));
    }
    if parts.is_empty() { "no rating, pick or tag".to_string() } else { parts.join(", ") }
}

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
    let task = resolve_all(settings, &[id.to_string()])?.remove(0);
    let attached = session::attach(settings, reach).await?;
    let engine = attached.engine;
    let marked = engine.review(task.id, change).await;
    engine.shutdown().await;
    let marked = marked?;
    if json {
        out.json(&super::public::PublicTask::from(&marked))?;
    } else {
        out.line(&format!("Task {}: {}", marked.id, summary(&marked.review)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_reads_as_a_few_words() {
        let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (Review::default(), "no rating, pick or tag"),
            (Review { rating: Some(4), ..Review::default() }, "rated 4"),
            (Review { picked: true, ..Review::default() }, "picked"),
            (
                Review { rating: Some(2), picked: true, tags: tags(&["keeper", "night"]) },
                "rated 2, picked, tagged keeper night",
            ),
            (Review { tags: tags(&["x"]), ..Review::default() }, "tagged x"),
        ];
        for (review, want) in cases {
            assert_eq!(summary(&review), want, "{review:?}");
        }
    }
}
