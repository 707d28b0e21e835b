//! Read-only questions about the journal, for commands that do not run the engine.

use std::path::Path;

use serde::Serialize;

use super::ledger::{self, Ledger};
use crate::config::Pricing;
use crate::store::history::{self, HistoryQuery};
use crate::store::tasks::{self, EventRecord, TaskRecord};
use crate::store::{LocalState, StoreError, open_reader};

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no task matches \"{0}\"; `reel list` shows the ids")]
    NoMatch(String),
    #[error("\"{text}\" matches {count} tasks; give more of the id")]
    Ambiguous { text: String, count: usize },
}

/// The one task an ID the user typed means.
pub fn resolve(db: &Path, text: &str) -> Result<i64, QueryError> {
    if !db.exists() {
        return Err(QueryError::NoMatch(text.to_string()));
    }
    let ids = tasks::resolve(&open_reader(db)?, text)?;
    match ids.as_slice() {
        [id] => Ok(*id),
        [] => Err(QueryError::NoMatch(text.to_string())),
        more => Err(QueryError::Ambiguous { text: text.to_string(), count: more.len() }),
    }
}

/// No database yet means no tasks yet.
pub fn list(db: &Path, state: Option<LocalState>, limit: usize) -> Result<Vec<TaskRecord>, QueryError> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    Ok(tasks::list(&open_reader(db)?, state, limit)?)
}

pub fn unfinished(db: &Path) -> Result<Vec<TaskRecord>, QueryError> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    Ok(tasks::unfinished(&open_reader(db)?)?)
}

/// What the dashboard shows when it opens: every unfinished task, and those that changed in the
/// since `since_ms` (what happened while no dashboard was open: the engine process goes on).
pub fn on_opening(db: &Path, since_ms: i64) -> Result<Vec<TaskRecord>, QueryError> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    Ok(tasks::unfinished_or_since(&open_reader(db)?, since_ms, 500)?)
}

/// A task with its timeline.
pub fn show(db: &Path, id: i64) -> Result<(TaskRecord, Vec<EventRecord>), QueryError> {
    let conn = open_reader(db)?;
    let task = tasks::get(&conn, id)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let events = tasks::events(&conn, id)?;
    Ok((task, events))
}

/// A history row: the task, and whether its file is still where reel saved it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryRow {
    #[serde(flatten)]
    pub record: TaskRecord,
    /// `None` when the task never had a file.
    pub file_present: Option<bool>,
}

/// One page of history; files are looked for here, so no one looks on the screen's thread.
pub fn history(db: &Path, q: &HistoryQuery, cursor: Option<i64>, limit: usize) -> Result<Vec<HistoryRow>, QueryError> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    let rows = history::page(&open_reader(db)?, q, cursor, limit)?;
    Ok(rows
        .into_iter()
        .map(|record| {
            let file_present = record.file_path.as_deref().map(|p| Path::new(p).is_file());
            HistoryRow { record, file_present }
        })
        .collect())
}

/// A task's parent and children.
pub fn lineage(db: &Path, id: i64) -> Result<(Option<TaskRecord>, Vec<TaskRecord>), QueryError> {
    let conn = open_reader(db)?;
    let task = tasks::get(&conn, id)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let parent = match task.parent_id {
        Some(p) => tasks::get(&conn, p)?,
        None => None,
    };
    Ok((parent, history::children(&conn, id)?))
}

pub fn models(db: &Path) -> Result<Vec<String>, QueryError> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    Ok(history::models(&open_reader(db)?)?)
}

pub fn ledger(db: &Path, since: Option<i64>, pricing: &Pricing) -> Result<Ledger, QueryError> {
    if !db.exists() {
        return Ok(ledger::compute(&[], &Default::default(), pricing));
    }
    let (rows, times) = history::ledger_rows(&open_reader(db)?, since)?;
    Ok(ledger::compute(&rows, &times, pricing))
}

/// Unix ms of the start of today, local time.
pub fn start_of_today() -> i64 {
    let now = jiff::Zoned::now();
    now.start_of_day().map(|d| d.timestamp().as_millisecond()).unwrap_or(0)
}

/// What today's tasks cost so far (priced models only).
pub fn spent_today(db: &Path, pricing: &Pricing) -> Result<f64, QueryError> {
    Ok(ledger(db, Some(start_of_today()), pricing)?.total.cost.amount())
}

/// Every task, oldest first.
pub fn export(db: &Path, each: impl FnMut(TaskRecord) -> Result<(), StoreError>) -> Result<(), QueryError> {
    if !db.exists() {
        return Ok(());
    }
    Ok(history::all(&open_reader(db)?, each)?)
}
