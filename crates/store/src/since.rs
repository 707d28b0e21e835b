//! Reads for a client that reads the journal through the engine: where the journal stands (the
//! newest change, on the engine's clock: a dashboard catches up from it after a dropped link),
//! the tasks created after an id (an export, page by page), agents' tasks of the day, and the
//! task a saved file's sum belongs to (its previews).

use rusqlite::Connection;

use super::StoreError;
use super::tasks::{COLUMNS, TaskRecord, from_row};

/// The journal's latest change, on the engine's clock (Unix ms, 0 when there is none): every
/// change of a task sets its `updated_at`, so a reader that keeps this mark misses nothing
/// when it asks for what changed since.
pub fn mark(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT coalesce(max(updated_at), 0) FROM tasks", [], |r| r.get(0))?)
}

/// Up to `limit` tasks with an id above `after`, oldest first.
pub fn created_after(conn: &Connection, after: i64, limit: usize) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.id > ?1 ORDER BY t.id LIMIT ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = stmt.query_map(rusqlite::params![after, limit], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The tasks created at or after `since` (Unix ms) that carry a tag in `from..to` (a range on
/// the tag index: `agent-` to `agent.` is every `agent-…` tag), oldest first.
pub fn tagged_since(conn: &Connection, from: &str, to: &str, since: i64) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM tasks t WHERE t.id IN (SELECT g.task_id FROM task_tags g WHERE g.tag >= ?1 AND g.tag < ?2) \
         AND t.created_at >= ?3 ORDER BY t.id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params![from, to, since], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The task whose saved file has the sha256 `sum` (the service's bytes or the tagged file).
pub fn by_sum(conn: &Connection, sum: &str) -> Result<Option<i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id FROM tasks WHERE sha256 = ?1 OR file_sha256 = ?1 ORDER BY id LIMIT 1")?;
    let mut rows = stmt.query([sum])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{get, insert, save};
    use crate::{LocalState, fixtures, open_writer};

    #[test]
    fn the_mark_pages_after_an_id_and_sums() {
        let dir = tempfile::tempdir().expect("dir");
        let conn = open_writer(&dir.path().join("reel.db")).expect("db");
        assert_eq!(mark(&conn).expect("none yet"), 0);
        let ids: Vec<i64> =
            (0..4).map(|i| insert(&conn, &fixtures::new_task(&format!("fox {i}"))).expect("task").id).collect();
        let seen = mark(&conn).expect("a mark");
        let later = |id: i64, at: i64| {
            let mut t = get(&conn, id).expect("read").expect("task");
            t.state = LocalState::Queued;
            t.updated_at = at;
            save(&conn, &t).expect("save");
        };
        later(ids[2], seen + 5);
        later(ids[0], seen + 7);
        assert_eq!(mark(&conn).expect("mark"), seen + 7, "the newest change");
        let page: Vec<i64> = created_after(&conn, ids[0], 2).expect("page").iter().map(|t| t.id).collect();
        assert_eq!(page, vec![ids[1], ids[2]]);
        assert!(created_after(&conn, ids[3], 2).expect("page").is_empty());
        let mut saved = get(&conn, ids[1]).expect("read").expect("task");
        saved.sha256 = Some("ab".repeat(32));
        saved.file_sha256 = Some("cd".repeat(32));
        save(&conn, &saved).expect("save");
        assert_eq!(by_sum(&conn, &"ab".repeat(32)).expect("by sum"), Some(ids[1]), "the service's bytes");
        assert_eq!(by_sum(&conn, &"cd".repeat(32)).expect("by sum"), Some(ids[1]), "the tagged file");
        assert_eq!(by_sum(&conn, &"ef".repeat(32)).expect("by sum"), None);
    }
}
