//! What agents have sent today, for the `[agents]` daily limits: the tasks tagged `agent-…`
//! created since midnight, in flight included, and their priced cost counted as the budget
//! counts it.

use std::path::Path;

use crate::engine::ledger;
use crate::engine::query::{QueryError, start_of_today};
use crate::rules::Pricing;
use crate::store::history::SpendRow;
use crate::store::{StoreError, open_reader, tasks};

use super::limits::Today;

/// The tag every task an agent sends carries.
pub const PREFIX: &str = "agent-";

pub fn agents(db: &Path, pricing: &Pricing) -> Result<Today, QueryError> {
    if !db.is_file() {
        return Ok(Today::default());
    }
    let conn = open_reader(db)?;
    let since = start_of_today();
    let ids: Vec<i64> = (|| {
        let mut stmt = conn.prepare(
            "SELECT DISTINCT t.id FROM task_tags g JOIN tasks t ON t.id = g.task_id \
             WHERE g.tag >= ?1 AND g.tag < ?2 AND t.created_at >= ?3",
        )?;
        // A range on the tag's index instead of LIKE (whose prefix match the index cannot serve).
        let rows = stmt.query_map(rusqlite::params![PREFIX, "agent.", since], |r| r.get(0))?;
        rows.collect::<Result<Vec<i64>, _>>()
    })()
    .map_err(StoreError::from)?;
    let mut rows = Vec::new();
    for id in &ids {
        if let Some(t) = tasks::get(&conn, *id)? {
            rows.push(SpendRow {
                model: t.model,
                profile: t.profile,
                base_url: t.base_url,
                state: t.state,
                rendered: t.remote_completed_at.is_some(),
                tasks: 1,
                billed_seconds: t.billed_seconds.unwrap_or(0.0),
                unknown_billed: u64::from(t.billed_seconds.is_none()),
            });
        }
    }
    Ok(Today { tasks: u32::try_from(ids.len()).unwrap_or(u32::MAX), spent: ledger::spent(&rows, pricing) })
}
