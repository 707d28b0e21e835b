//! The one read of the journal a plan needs: which of its tasks an earlier run already sent.
//! Kept apart from the pure parts, so that callers run it where I/O belongs (the command's
//! flow, the dashboard's effects).

use std::collections::HashSet;
use std::path::Path;

use crate::engine::query::QueryError;
use crate::store::{open_reader, tasks};

/// The keys of `keys` that some journaled task has; none before the journal exists.
pub fn already_sent(db: &Path, keys: &[String]) -> Result<HashSet<String>, QueryError> {
    if !db.exists() {
        return Ok(HashSet::new());
    }
    let conn = open_reader(db)?;
    Ok(tasks::existing_row_keys(&conn, keys)?)
}
