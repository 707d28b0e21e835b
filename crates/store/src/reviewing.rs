//! Journaling a task's review: a change of its rating, pick or tags with its timeline lines,
//! and the pick rule (one winner per batch). The rules themselves are `review`'s.

use rusqlite::{Connection, params};

use super::StoreError;
use super::tasks::{TaskRecord, add_event, get};

/// Changes task `id`'s review at `at` (Unix ms) and adds the lines of its timeline; returns
/// the task as it is now. A change that changes nothing writes nothing.
pub fn write_review(
    conn: &Connection,
    id: i64,
    change: &super::review::Change,
    at: i64,
) -> Result<TaskRecord, StoreError> {
    let change = super::review::checked(change)?;
    let mut task = get(conn, id)?.ok_or(StoreError::Missing(id))?;
    let (review, said) = super::review::apply(&task.review, &change);
    if said.is_empty() {
        return Ok(task);
    }
    // A review is a change a client catching up must see (`since::mark`).
    conn.prepare_cached("UPDATE tasks SET rating = ?2, picked = ?3, updated_at = max(updated_at, ?4) WHERE id = ?1")?
        .execute(params![id, review.rating, review.picked, at])?;
    task.updated_at = task.updated_at.max(at);
    let mut add = conn.prepare_cached("INSERT OR IGNORE INTO task_tags (task_id, tag) VALUES (?1, ?2)")?;
    for t in review.tags.iter().filter(|t| !task.review.tags.contains(t)) {
        add.execute(params![id, t])?;
    }
    let mut remove = conn.prepare_cached("DELETE FROM task_tags WHERE task_id = ?1 AND tag = ?2")?;
    for t in task.review.tags.iter().filter(|t| !review.tags.contains(t)) {
        remove.execute(params![id, t])?;
    }
    // The timeline keeps the words as the event's state: "rated 4" reads as it is.
    for line in &said {
        add_event(conn, id, at, line, None)?;
    }
    task.review = review;
    Ok(task)
}

/// Picks `id` as the winner of its batch, in the caller's transaction: the other picked takes of
/// the batch are unpicked, each with a timeline line saying where the pick went. The task and
/// those unpicked.
pub fn pick_alone(conn: &Connection, id: i64, at: i64) -> Result<(TaskRecord, Vec<TaskRecord>), StoreError> {
    let task = write_review(conn, id, &super::review::Change::Pick(true), at)?;
    let Some(batch) = task.batch_id else { return Ok((task, Vec::new())) };
    let others: Vec<i64> = conn
        .prepare_cached("SELECT id FROM tasks WHERE batch_id = ?1 AND picked = 1 AND id != ?2 ORDER BY id")?
        .query_map(params![batch, id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut unpicked = Vec::with_capacity(others.len());
    for other in others {
        let t = write_review(conn, other, &super::review::Change::Pick(false), at)?;
        add_event(conn, other, at, &format!("the pick of batch {batch} went to task {id}"), None)?;
        unpicked.push(t);
    }
    Ok((task, unpicked))
}
