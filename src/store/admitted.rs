//! What admission reads and writes inside the transaction that journals a submission: the
//! journal's salt, how many tasks each content key has, today's tasks whose billed seconds are
//! not known yet, and the agent's tag on the tasks just journaled.

use std::collections::HashMap;

use rusqlite::Connection;

use super::StoreError;
use super::tasks::{COLUMNS, TaskRecord, from_row};

/// The journal's own salt for idempotency keys (made by the migration that added it).
pub fn salt(conn: &Connection) -> Result<String, StoreError> {
    Ok(conn.query_row("SELECT value FROM journal_meta WHERE name = 'salt'", [], |r| r.get(0))?)
}

/// How many journaled tasks have each content key (absent: none).
pub fn row_key_counts(conn: &Connection, keys: &[&str]) -> Result<HashMap<String, u32>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT count(*) FROM tasks WHERE row_key = ?1")?;
    let mut out = HashMap::new();
    for key in keys {
        if out.contains_key(*key) {
            continue;
        }
        let n: i64 = stmt.query_row([key], |r| r.get(0))?;
        if n > 0 {
            out.insert((*key).to_string(), u32::try_from(n).unwrap_or(u32::MAX));
        }
    }
    Ok(out)
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
