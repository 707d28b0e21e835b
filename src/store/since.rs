//! Tasks since a point, for a client that reads the journal through the engine: those changed
//! after a timeline event it has seen (catching up after a dropped link), and those created
//! after an id (an export, page by page).

use rusqlite::Connection;

use super::StoreError;
use super::tasks::{COLUMNS, TaskRecord, from_row};

/// The newest timeline event's id, 0 when there is none. Every change of a task writes one, so
/// this marks how far a reader has seen.
pub fn last_event(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT coalesce(max(id), 0) FROM events", [], |r| r.get(0))?)
}

/// The tasks with a timeline event after `after`, oldest first, at most `limit` of them.
pub fn changed_after(conn: &Connection, after: i64, limit: usize) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM tasks t WHERE t.id IN (SELECT DISTINCT task_id FROM events WHERE id > ?1) \
         ORDER BY t.id LIMIT ?2"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = stmt.query_map(rusqlite::params![after, limit], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Up to `limit` tasks with an id above `after`, oldest first.
pub fn created_after(conn: &Connection, after: i64, limit: usize) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.id > ?1 ORDER BY t.id LIMIT ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = stmt.query_map(rusqlite::params![after, limit], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tasks::{add_event, insert};
    use crate::store::{fixtures, open_writer};

    #[test]
    fn changes_after_an_event_and_pages_after_an_id() {
        let dir = tempfile::tempdir().expect("dir");
        let conn = open_writer(&dir.path().join("reel.db")).expect("db");
        assert_eq!(last_event(&conn).expect("none yet"), 0);
        let ids: Vec<i64> = (0..4).map(|i| insert(&conn, &fixtures::new_task(&format!("fox {i}"))).expect("task").id).collect();
        let seen = last_event(&conn).expect("events");
        assert!(changed_after(&conn, seen, 10).expect("changes").is_empty(), "nothing after what was seen");
        add_event(&conn, ids[2], 5, "queued", None).expect("event");
        add_event(&conn, ids[2], 6, "in_progress", None).expect("event");
        add_event(&conn, ids[0], 7, "queued", None).expect("event");
        let changed: Vec<i64> = changed_after(&conn, seen, 10).expect("changes").iter().map(|t| t.id).collect();
        assert_eq!(changed, vec![ids[0], ids[2]], "each task once, oldest first");
        assert!(last_event(&conn).expect("events") > seen);
        let page: Vec<i64> = created_after(&conn, ids[0], 2).expect("page").iter().map(|t| t.id).collect();
        assert_eq!(page, vec![ids[1], ids[2]]);
        assert!(created_after(&conn, ids[3], 2).expect("page").is_empty());
    }
}
