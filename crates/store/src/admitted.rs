//! What admission reads and writes inside the transaction that journals a submission: the
//! journal's salt, which content keys the journal has and how many tasks each, today's tasks whose billed seconds are
//! not known yet, and the agent's tag on the tasks just journaled.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use super::StoreError;
use super::tasks::{COLUMNS, TaskRecord, from_row};

/// The journal's own salt for idempotency keys (made by the migration that added it).
pub fn salt(conn: &Connection) -> Result<String, StoreError> {
    Ok(conn.query_row("SELECT value FROM journal_meta WHERE name = 'salt'", [], |r| r.get(0))?)
}

/// How many journaled tasks have each content key (absent: none).
pub fn row_key_tallies(conn: &Connection, keys: &[&str]) -> Result<HashMap<String, RowTally>, StoreError> {
    let failed = crate::state::FAILED_STATES.map(|s| format!("'{}'", s.as_str())).join(", ");
    let sql = format!(
        "SELECT count(*), \
         sum(state_code IN (SELECT code FROM states WHERE name IN ({failed}))), min(batch_id) \
         FROM tasks WHERE row_key = ?1"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut out = HashMap::new();
    for key in keys {
        if out.contains_key(*key) {
            continue;
        }
        let (n, failed, batch): (i64, Option<i64>, Option<i64>) =
            stmt.query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        if n > 0 {
            let count = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
            out.insert((*key).to_string(), RowTally { sent: count(n), failed: count(failed.unwrap_or(0)), batch });
        }
    }
    Ok(out)
}

/// Which of `keys` some journaled task already has (see [`super::tasks::NewTask::row_key`]). A database
/// from before keys were kept (schema 7 or older, read before the engine migrates it) has none.
/// With `but_failed`, a key counts only when none of its tasks failed
/// ([`super::state::FAILED_STATES`]): a row with a failed copy goes to the engine, which sends
/// again what is missing (`--retry-failed`).
pub fn existing_row_keys(conn: &Connection, keys: &[String], but_failed: bool) -> Result<HashSet<String>, StoreError> {
    let mut found = HashSet::new();
    let keyed = conn.prepare_cached("SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'row_key'")?.exists([])?;
    if !keyed {
        return Ok(found);
    }
    let failed = super::state::FAILED_STATES.map(|s| format!("'{}'", s.as_str())).join(", ");
    let sql = if but_failed {
        format!(
            "SELECT 1 WHERE EXISTS (SELECT 1 FROM tasks WHERE row_key = ?1) AND NOT EXISTS \
             (SELECT 1 FROM tasks WHERE row_key = ?1 AND state_code IN \
             (SELECT code FROM states WHERE name IN ({failed})))"
        )
    } else {
        "SELECT 1 FROM tasks WHERE row_key = ?1 LIMIT 1".to_string()
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    for key in keys {
        if !found.contains(key) && stmt.exists([key])? {
            found.insert(key.clone());
        }
    }
    Ok(found)
}

/// What the journal holds of one content key: tasks sent with it, those of them that ended
/// without a video the service made ([`crate::state::FAILED_STATES`]), and the batch they went in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowTally {
    pub sent: u32,
    pub failed: u32,
    pub batch: Option<i64>,
}

/// Tasks created at or after `since` (Unix ms) whose billed seconds are not known (an
/// automatic duration, a reference video of unstated length), imports left out.
pub fn unbilled_since(conn: &Connection, since: i64) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM tasks t WHERE t.created_at >= ?1 AND t.billed_seconds IS NULL \
         AND t.imported_from IS NULL ORDER BY t.id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([since], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Puts `tag` (normalised already) on every task of `ids`.
pub fn tag_all(conn: &Connection, ids: &[i64], tag: &str) -> Result<(), StoreError> {
    let mut add = conn.prepare_cached("INSERT OR IGNORE INTO task_tags (task_id, tag) VALUES (?1, ?2)")?;
    for id in ids {
        add.execute(rusqlite::params![id, tag])?;
    }
    Ok(())
}
