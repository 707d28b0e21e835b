//! Entries `reel import` rebuilds from video files: whether a file is in the history already
//! (by the service's sum or the saved file's), and journaling one as settled.

use std::collections::HashSet;

use rusqlite::{Connection, params};

use super::StoreError;
use super::tasks::{NewTask, TaskRecord, add_event, insert, save};

/// Journals an entry rebuilt by `reel import` (`record`'s id is not used) unless a task
/// already has its file (by either sum); its timeline is one event saying where it came from.
/// `None` when it was known.
pub fn insert_imported(conn: &Connection, record: &TaskRecord, origin: &str) -> Result<Option<TaskRecord>, StoreError> {
    let sums: Vec<String> = record.sha256.iter().chain(&record.file_sha256).cloned().collect();
    if !known_files(conn, &sums)?.is_empty() {
        return Ok(None);
    }
    let new = NewTask {
        parent_id: None,
        batch_id: None,
        idempotency_key: record.idempotency_key.clone(),
        profile: record.profile.clone(),
        base_url: record.base_url.clone(),
        model: record.model.clone(),
        prompt: record.prompt.clone(),
        negative_prompt: record.negative_prompt.clone(),
        seconds: record.seconds,
        resolution: record.resolution.clone(),
        ratio: record.ratio.clone(),
        watermark: record.watermark,
        media: record.media.clone(),
        billed_seconds: record.billed_seconds,
        created_at: record.created_at,
        row_key: None,
    };
    // Lineage is set once every entry of the import has its id (see [`relink`]).
    let id = insert(conn, &new)?.id;
    // It never waited to be sent here: its timeline is its import.
    conn.prepare_cached("DELETE FROM events WHERE task_id = ?1")?.execute([id])?;
    let imported = TaskRecord { id, parent_id: record.parent_id, batch_id: record.batch_id, ..record.clone() };
    save(conn, &imported)?;
    conn.prepare_cached("UPDATE tasks SET imported_from = ?2 WHERE id = ?1")?
        .execute(params![id, imported.imported_from])?;
    add_event(conn, id, imported.updated_at, imported.state.as_str(), Some(origin))?;
    // The review it came with, as it was there.
    let review = &imported.review;
    conn.prepare_cached("UPDATE tasks SET rating = ?2, picked = ?3 WHERE id = ?1")?.execute(params![
        id,
        review.rating,
        review.picked
    ])?;
    let mut tag = conn.prepare_cached("INSERT OR IGNORE INTO task_tags (task_id, tag) VALUES (?1, ?2)")?;
    for t in &review.tags {
        tag.execute(params![id, t])?;
    }
    Ok(Some(imported))
}

/// The parent and batch of imported entries, from the ids of the history they came from
/// (`old`: old id to new, for the entries of this import) to this journal's: a parent or batch
/// not imported with them is dropped; a batch whose first task was not imported is led by the
/// first of its tasks that was.
pub fn relink(conn: &Connection, entries: &mut [(i64, TaskRecord)]) -> Result<(), StoreError> {
    use std::collections::HashMap;
    // Folders of two histories can both hold a task 3: an id found twice links nothing.
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for (o, _) in entries.iter() {
        *seen.entry(*o).or_default() += 1;
    }
    let old: HashMap<i64, i64> =
        entries.iter().filter(|(o, _)| *o != 0 && seen.get(o) == Some(&1)).map(|(o, t)| (*o, t.id)).collect();
    let mut leads: HashMap<i64, i64> = HashMap::new();
    for (_, t) in entries.iter() {
        if let Some(b) = t.batch_id.filter(|b| seen.get(b).is_none_or(|n| *n == 1)) {
            let new = old.get(&b).copied().unwrap_or(t.id);
            let lead = leads.entry(b).or_insert(new);
            if !old.contains_key(&b) {
                *lead = (*lead).min(t.id);
            }
        }
    }
    let mut update = conn.prepare_cached("UPDATE tasks SET parent_id = ?2, batch_id = ?3 WHERE id = ?1")?;
    for (_, t) in entries.iter_mut() {
        t.parent_id = t.parent_id.and_then(|p| old.get(&p).copied());
        // A task alone is its own batch, as every task journaled here.
        t.batch_id = t.batch_id.and_then(|b| leads.get(&b).copied()).or(Some(t.id));
        update.execute(params![t.id, t.parent_id, t.batch_id])?;
    }
    Ok(())
}

/// Which of `shas` a task's file has: the service's bytes or the file as saved (tagged).
pub fn known_files(conn: &Connection, shas: &[String]) -> Result<HashSet<String>, StoreError> {
    let mut by_sha = conn.prepare_cached("SELECT 1 FROM tasks WHERE sha256 = ?1 OR file_sha256 = ?1 LIMIT 1")?;
    let mut out = HashSet::new();
    for sha in shas {
        if by_sha.exists([sha])? {
            out.insert(sha.clone());
        }
    }
    Ok(out)
}
