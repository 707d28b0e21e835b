//! Read-only questions about the journal, for commands that do not run the engine.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::ledger::{self, Ledger};
use crate::config::Pricing;
use reel_store::history::{self, HistoryQuery};
use reel_store::since;
use reel_store::tasks::{self, EventRecord, TaskRecord};
use reel_store::{LocalState, StoreError, open_reader};

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no task matches \"{0}\"; `reel list` shows the ids")]
    NoMatch(String),
    #[error("\"{text}\" matches {count} tasks; give more of the id")]
    Ambiguous { text: String, count: usize },
    #[error("{} is not usable as reel's data: {why}; fix it or point REEL_DATA_DIR (or data_dir in the config) elsewhere", path.display())]
    Unusable { path: PathBuf, why: String },
}

fn unusable(path: &Path, why: impl ToString) -> QueryError {
    QueryError::Unusable { path: path.to_path_buf(), why: why.to_string() }
}

/// The journal, or `None` when there is none yet: no data folder, or a folder without a
/// database (no tasks, which is fine). A folder that cannot be read, or a file that is not a
/// reel database, is an error naming its path, never an empty answer.
fn open(db: &Path) -> Result<Option<Connection>, QueryError> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        match std::fs::metadata(dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unusable(dir, e)),
            Ok(m) if !m.is_dir() => return Err(unusable(dir, "it is not a folder")),
            Ok(_) => {
                std::fs::read_dir(dir).map_err(|e| unusable(dir, e))?;
            }
        }
    }
    match std::fs::metadata(db) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unusable(db, e)),
        Ok(m) if !m.is_file() => return Err(unusable(db, "it is not a file")),
        // The engine creates the file, then its tables in one transaction: an empty file is
        // the moment between.
        Ok(m) if m.len() == 0 => return Ok(None),
        Ok(_) => {}
    }
    // A folder reel cannot write is said to be the trouble: SQLite writes its -shm file beside
    // the journal even to read it, and fails as if the file were not a database.
    let cannot_write = |e: &dyn std::fmt::Display| match db.parent().and_then(not_writable) {
        Some(why) => unusable(db.parent().unwrap_or(db), why),
        None => unusable(db, format!("it is not a reel database ({e})")),
    };
    let conn = open_reader(db).map_err(|e| match db.parent().and_then(not_writable) {
        Some(why) => unusable(db.parent().unwrap_or(db), why),
        None => unusable(db, e),
    })?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tasks'", [], |r| r.get(0))
        .map_err(|e| cannot_write(&e))?;
    if tables == 0 {
        // No schema at all yet: an engine has just created the file (WAL set) and is about to
        // make its tables.
        let any: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(|e| cannot_write(&e))?;
        if any == 0 {
            return Ok(None);
        }
        return Err(unusable(db, "it is an SQLite database, but not reel's (it has no tasks table)"));
    }
    Ok(Some(conn))
}

/// Why reel cannot write in `dir`, if it cannot: a read-only file system, or no permission.
fn not_writable(dir: &Path) -> Option<String> {
    let e = tempfile::tempfile_in(dir).err()?;
    Some(match e.kind() {
        ErrorKind::ReadOnlyFilesystem => format!(
            "the data folder is on a read-only file system ({e}); SQLite writes beside reel.db even to read \
             it: mount it writable, or copy the folder elsewhere and point REEL_DATA_DIR there"
        ),
        ErrorKind::PermissionDenied => format!(
            "this user may not write in the data folder ({e}); SQLite writes beside reel.db even to read it: \
             give it write permission, or copy the folder elsewhere and point REEL_DATA_DIR there"
        ),
        _ => format!("reel cannot write in the data folder ({e})"),
    })
}

/// The one task an ID the user typed means.
pub fn resolve(db: &Path, text: &str) -> Result<i64, QueryError> {
    let Some(conn) = open(db)? else { return Err(QueryError::NoMatch(text.to_string())) };
    let ids = tasks::resolve(&conn, text)?;
    match ids.as_slice() {
        [id] => Ok(*id),
        [] => Err(QueryError::NoMatch(text.to_string())),
        more => Err(QueryError::Ambiguous { text: text.to_string(), count: more.len() }),
    }
}

/// No database yet means no tasks yet.
pub fn list(
    db: &Path,
    state: Option<LocalState>,
    batch: Option<i64>,
    limit: usize,
) -> Result<Vec<TaskRecord>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(tasks::list(&conn, state, batch, limit)?)
}

pub fn unfinished(db: &Path) -> Result<Vec<TaskRecord>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(tasks::unfinished(&conn)?)
}

/// What the dashboard shows when it opens: every unfinished task, and those that changed in the
/// since `since_ms` (what happened while no dashboard was open: the engine process goes on).
pub fn on_opening(db: &Path, since_ms: i64) -> Result<Vec<TaskRecord>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(tasks::unfinished_or_since(&conn, since_ms, 500)?)
}

/// Where a reader of the journal through the engine stands: the tasks it reads now, and the
/// journal's latest change before them, on the engine's clock (read first, so a change while
/// reading is read again next time rather than missed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Changes {
    pub tasks: Vec<TaskRecord>,
    pub mark: i64,
}

/// [`on_opening`], with where the journal stood.
pub fn opening_changes(db: &Path, since_ms: i64) -> Result<Changes, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Changes { tasks: Vec::new(), mark: 0 }) };
    let mark = since::mark(&conn)?;
    Ok(Changes { tasks: tasks::unfinished_or_since(&conn, since_ms, 500)?, mark })
}

/// Up to `limit` tasks created after task `after`, oldest first (an export, page by page).
pub fn export_page(db: &Path, after: i64, limit: usize) -> Result<Vec<TaskRecord>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(since::created_after(&conn, after, limit)?)
}

/// Whether each task's file is where reel saved it (tasks without a file are left out).
pub fn files_present(db: &Path, ids: &[i64]) -> Result<Vec<(i64, bool)>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    for &id in ids {
        if let Some(path) = tasks::get(&conn, id)?.and_then(|t| t.file_path) {
            found.push((id, Path::new(&path).is_file()));
        }
    }
    Ok(found)
}

/// The tasks created since `since` with a tag in `from..to` (see [`since::tagged_since`]).
pub fn tagged_since(db: &Path, from: &str, to: &str, since: i64) -> Result<Vec<TaskRecord>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(since::tagged_since(&conn, from, to, since)?)
}

/// The task whose saved file has the sha256 `sum`.
pub fn by_sum(db: &Path, sum: &str) -> Result<Option<i64>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(None) };
    Ok(since::by_sum(&conn, sum)?)
}

/// A task with its timeline.
pub fn show(db: &Path, id: i64) -> Result<(TaskRecord, Vec<EventRecord>), QueryError> {
    let conn = open(db)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let task = tasks::get(&conn, id)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let events = tasks::events(&conn, id)?;
    Ok((task, events))
}

/// A history row: the task, and whether its file is still where reel saved it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    #[serde(flatten)]
    pub record: TaskRecord,
    /// `None` when the task never had a file.
    pub file_present: Option<bool>,
}

/// One page of history; files are looked for here, so no one looks on the screen's thread.
pub fn history(db: &Path, q: &HistoryQuery, cursor: Option<i64>, limit: usize) -> Result<Vec<HistoryRow>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    let rows = history::page(&conn, q, cursor, limit)?;
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
    let conn = open(db)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let task = tasks::get(&conn, id)?.ok_or_else(|| QueryError::NoMatch(id.to_string()))?;
    let parent = match task.parent_id {
        Some(p) => tasks::get(&conn, p)?,
        None => None,
    };
    Ok((parent, history::children(&conn, id)?))
}

pub fn models(db: &Path) -> Result<Vec<String>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Vec::new()) };
    Ok(history::models(&conn)?)
}

pub fn ledger(db: &Path, since: Option<i64>, pricing: &Pricing) -> Result<Ledger, QueryError> {
    let Some(conn) = open(db)? else { return Ok(ledger::compute(&[], &Default::default(), pricing)) };
    let (rows, times) = history::ledger_rows(&conn, since)?;
    Ok(ledger::compute(&rows, &times, pricing))
}

/// Unix ms of the start of today, local time.
pub fn start_of_today() -> i64 {
    let now = jiff::Timestamp::now().to_zoned(reel_rules::text::local_zone());
    now.start_of_day().map(|d| d.timestamp().as_millisecond()).unwrap_or(0)
}

/// What counts against today's budget: the tasks created today that the service bills or
/// will bill, in flight included, of priced models and not of demo mode (see
/// [`ledger::spent`]).
pub fn spent_today(db: &Path, pricing: &Pricing) -> Result<f64, QueryError> {
    spent_since(db, start_of_today(), pricing)
}

/// What counts against a budget from `since` (Unix ms) on, as [`spent_today`] counts it.
pub fn spent_since(db: &Path, since: i64, pricing: &Pricing) -> Result<f64, QueryError> {
    let Some(conn) = open(db)? else { return Ok(0.0) };
    let rows = history::spend_rows(&conn, since)?;
    Ok(ledger::spent(&rows, pricing))
}

/// The keys of `keys` (a batch file's rows) that some journaled task has (with `but_failed`,
/// some task that did not fail); none before the journal exists. A quote only: the engine
/// decides what a run sends as it journals it.
pub fn already_sent(
    db: &Path,
    keys: &[String],
    but_failed: bool,
) -> Result<std::collections::HashSet<String>, QueryError> {
    let Some(conn) = open(db)? else { return Ok(Default::default()) };
    Ok(reel_store::admitted::existing_row_keys(&conn, keys, but_failed)?)
}

/// Every task, oldest first.
pub fn export(db: &Path, each: impl FnMut(TaskRecord) -> Result<(), StoreError>) -> Result<(), QueryError> {
    let Some(conn) = open(db)? else { return Ok(()) };
    Ok(history::all(&conn, each)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recover::DEMO_PROFILE;
    use reel_store::{NewTask, fixtures, open_writer};

    const PRICED: &str = "acme/aurora-3.0/text-to-video";

    /// Journals a task of `billed` seconds created at `at`, then puts it in `state`.
    fn journal(db: &Path, at: i64, state: LocalState, billed: f64, tweak: impl FnOnce(&mut NewTask)) {
        let conn = open_writer(db).expect("db");
        let mut new = NewTask { created_at: at, billed_seconds: Some(billed), ..fixtures::new_task("a fox") };
        tweak(&mut new);
        let mut t = tasks::insert(&conn, &new).expect("insert");
        t.state = state;
        if matches!(state, LocalState::Downloaded | LocalState::Completed) {
            t.remote_completed_at = Some(at / 1000 + 60);
        }
        tasks::save(&conn, &t).expect("save");
    }

    #[test]
    fn the_ledger_counts_what_happened_to_the_render() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("reel.db");
        let now = crate::now_ms();
        journal(&db, now, LocalState::Downloaded, 4.0, |_| {});
        journal(&db, now, LocalState::Lost, 4.0, |_| {});
        // Rendered, then forgotten by the service before its file was saved: still a render.
        let conn = open_writer(&db).expect("db");
        let mut t = tasks::insert(&conn, &NewTask { created_at: now, ..fixtures::new_task("a fox") }).expect("insert");
        (t.state, t.remote_completed_at) = (LocalState::Lost, Some(now / 1000));
        tasks::save(&conn, &t).expect("save");
        let l = ledger(&db, None, &Pricing::default()).expect("ledger").total;
        assert_eq!((l.tasks, l.succeeded, l.lost), (3, 2, 1), "{l:?}");
    }

    #[test]
    fn spent_today_counts_billable_work_in_flight_and_not_demo_tasks() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("reel.db");
        let pricing = Pricing { currency: "$".into(), per_second: [(PRICED.to_string(), 0.5)].into_iter().collect() };
        assert_eq!(spent_today(&db, &pricing).expect("no database yet"), 0.0);
        let today = start_of_today();
        let now = crate::now_ms().max(today);
        let demo = |t: &mut NewTask| {
            t.profile = Some(DEMO_PROFILE.into());
            t.base_url = "http://127.0.0.1:40123/".into();
        };
        // Yesterday's work is yesterday's.
        journal(&db, today - 3_600_000, LocalState::Downloaded, 100.0, |_| {});
        journal(&db, today - 1, LocalState::InProgress, 100.0, |_| {});
        // Today: 10 s saved ($5.00), 4 s rendering ($2.00), 2 s waiting ($1.00) and a send
        // whose answer was lost, which the service may be rendering (6 s, $3.00).
        journal(&db, now, LocalState::Downloaded, 10.0, |_| {});
        journal(&db, now, LocalState::InProgress, 4.0, |_| {});
        journal(&db, now, LocalState::Waiting, 2.0, |_| {});
        journal(&db, now, LocalState::SubmitUnknown, 6.0, |_| {});
        // Not billed: a failed render, a refusal, a cancelled task, a task the service lost.
        for state in [LocalState::Failed, LocalState::Rejected, LocalState::Cancelled, LocalState::Lost] {
            journal(&db, now, state, 50.0, |_| {});
        }
        // Free: the demo simulator's tasks, and a model without a price.
        journal(&db, now, LocalState::Downloaded, 50.0, demo);
        journal(&db, now, LocalState::Queued, 50.0, demo);
        journal(&db, now, LocalState::InProgress, 50.0, |t| t.model = "acme/aurora-2.7/text-to-video".into());
        assert_eq!(spent_today(&db, &pricing).expect("spent"), 11.0);
        // A profile the user called "demo" on a real service is real money.
        journal(&db, now, LocalState::Queued, 3.0, |t| {
            t.profile = Some(DEMO_PROFILE.into());
            t.base_url = "https://api.example/v1/".into();
        });
        assert_eq!(spent_today(&db, &pricing).expect("spent"), 12.5);
    }
}
