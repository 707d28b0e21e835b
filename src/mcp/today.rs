//! What agents have sent today, for the `[agents]` daily limits: the tasks tagged `agent-…`
//! created since midnight, in flight included, and their priced cost counted as the budget
//! counts it; and the tag that marks them.

use crate::engine::query::start_of_today;
use crate::engine::reader::{ReadError, Reader};
use crate::engine::{Engine, ledger};
use crate::rules::Pricing;
use crate::store::TaskRecord;
use crate::store::history::SpendRow;
use crate::store::review::{Change, MAX_TAG};

use super::limits::Today;

/// The tag every task an agent sends carries.
pub const PREFIX: &str = super::tools::AGENT_PREFIX;

pub async fn agents(reader: &Reader, pricing: &Pricing) -> Result<Today, ReadError> {
    // A range on the tag's index instead of LIKE (whose prefix match the index cannot serve).
    let tasks = reader.tagged_since(PREFIX, "agent.", start_of_today()).await?;
    let rows: Vec<SpendRow> = tasks
        .iter()
        .map(|t| SpendRow {
            model: t.model.clone(),
            profile: t.profile.clone(),
            base_url: t.base_url.clone(),
            state: t.state,
            rendered: t.remote_completed_at.is_some(),
            tasks: 1,
            billed_seconds: t.billed_seconds.unwrap_or(0.0),
            unknown_billed: u64::from(t.billed_seconds.is_none()),
        })
        .collect();
    Ok(Today { tasks: u32::try_from(tasks.len()).unwrap_or(u32::MAX), spent: ledger::spent(&rows, pricing) })
}

/// The tag of a client's tasks: `agent-NAME`, normalised like any tag (lowercase, one word:
/// spaces, commas and control characters become `-`, at most [`MAX_TAG`] characters). A client
/// that gave no name is `agent-unnamed`.
pub fn agent_tag(client: &str) -> String {
    let word: String = client
        .trim()
        .chars()
        .map(|c| if c.is_whitespace() || c == ',' || c.is_control() { '-' } else { c })
        .collect::<String>()
        .to_lowercase();
    let word = if word.is_empty() { "unnamed".to_string() } else { word };
    format!("{PREFIX}{word}").chars().take(MAX_TAG).collect()
}

/// Tags the tasks a client just sent with its `agent-…` tag, through the engine (so every
/// dashboard shows it); the tasks as they are after. A tag that fails is logged and the task
/// kept as it was: it was sent either way.
pub async fn label(engine: &Engine, records: Vec<TaskRecord>, client: &str) -> Vec<TaskRecord> {
    let tag = agent_tag(client);
    let mut out = Vec::with_capacity(records.len());
    for r in records {
        match engine.review(r.id, Change::Tag(vec![tag.clone()])).await {
            Ok(tagged) => out.push(tagged),
            Err(e) => {
                tracing::warn!(id = r.id, error = %e, "mcp: cannot tag an agent's task");
                out.push(r);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_become_one_tag() {
        let cases = [
            ("claude-code", "agent-claude-code"),
            ("Claude Desktop", "agent-claude-desktop"),
            ("  Cursor ", "agent-cursor"),
            ("a,b\tc", "agent-a-b-c"),
            ("", "agent-unnamed"),
            ("a-very-long-client-name-that-goes-on-and-on", "agent-a-very-long-client-name-th"),
        ];
        for (name, want) in cases {
            let got = agent_tag(name);
            assert_eq!(got, want, "{name:?}");
            assert_eq!(crate::store::review::tag(&got).as_deref(), Ok(want), "a valid tag as it is");
        }
    }
}
