//! Read-only questions about the journal, for commands that do not run the engine.

use std::path::Path;

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

/// A task with its timeline.
pub fn show(db: &Path, id: i64) -> Result<(TaskRecord, Vec<EventRecord>), QueryError> {
    let conn = open_reader(db)?;
    let task = tasks::get(&conn, id)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let events = tasks::events(&conn, id)?;
    Ok((task, events))
}
