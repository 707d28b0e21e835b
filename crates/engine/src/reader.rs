//! The journal read where it is: from this machine's SQLite file, or through the engine when
//! the engine (and so the journal) is on another machine. Every command and the dashboard read
//! through a [`Reader`], so they give the same answers either way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Engine;
use super::EngineError;
use super::ledger::Ledger;
use super::query::{self, Changes, HistoryRow, QueryError};
use super::service::reads::{Found, Read};
use crate::config::Pricing;
use reel_store::history::HistoryQuery;
use reel_store::{EventRecord, LocalState, TaskRecord};

/// Tasks in one page of an export read through the engine (a few MiB of JSON).
pub const EXPORT_PAGE: usize = 2_000;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("reading the journal stopped: {0}")]
    Stopped(String),
}

/// Where the journal is read.
#[derive(Clone)]
pub enum Reader {
    /// This machine's journal file.
    Store(PathBuf),
    /// The journal of an engine on another machine, read through it.
    Engine(Arc<Engine>),
}

impl Reader {
    /// Through `engine` when it is on another machine, else from the file `db`.
    pub fn of(engine: &Arc<Engine>, db: &Path) -> Reader {
        match engine.far() {
            Some(_) => Reader::Engine(engine.clone()),
            None => Reader::Store(db.to_path_buf()),
        }
    }

    /// Whether the journal is read through an engine on another machine.
    pub fn is_far(&self) -> bool {
        matches!(self, Reader::Engine(_))
    }

    /// Answers `read`: on a blocking thread from the file, or by the engine.
    async fn ask(&self, read: Read) -> Result<Found, ReadError> {
        match self {
            Reader::Store(db) => {
                let db = db.clone();
                tokio::task::spawn_blocking(move || super::service::reads::answer(&db, read))
                    .await
                    .map_err(|e| ReadError::Stopped(e.to_string()))?
                    .map_err(ReadError::from)
            }
            Reader::Engine(engine) => Ok(engine.read(read).await?),
        }
    }

    /// The engine on another machine this reads through, if it does.
    pub fn far_engine(&self) -> Option<&Engine> {
        match self {
            Reader::Engine(engine) => Some(engine),
            Reader::Store(_) => None,
        }
    }

    pub async fn resolve(&self, text: &str) -> Result<i64, ReadError> {
        match self.ask(Read::Resolve { text: text.to_string() }).await? {
            Found::Id(id) => Ok(id),
            other => Err(unexpected(&other)),
        }
    }

    pub async fn list(
        &self,
        state: Option<LocalState>,
        batch: Option<i64>,
        limit: usize,
    ) -> Result<Vec<TaskRecord>, ReadError> {
        tasks(self.ask(Read::List { state, batch, limit }).await?)
    }

    pub async fn unfinished(&self) -> Result<Vec<TaskRecord>, ReadError> {
        tasks(self.ask(Read::Unfinished).await?)
    }

    /// What the dashboard shows as it opens, and where the journal stood.
    pub async fn opening(&self, since_ms: i64) -> Result<Changes, ReadError> {
        changes(self.ask(Read::Opening { since_ms }).await?)
    }

    /// The tasks of `ids` as they stand; deleted ones are left out.
    pub async fn tasks(&self, ids: Vec<i64>) -> Result<Vec<TaskRecord>, ReadError> {
        match self {
            Reader::Engine(engine) => Ok(engine.tasks(ids).await?),
            Reader::Store(_) => {
                let mut found = Vec::with_capacity(ids.len());
                for id in ids {
                    match self.show(id).await {
                        Ok((task, _)) => found.push(task),
                        Err(ReadError::Query(QueryError::NoMatch(_))) => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(found)
            }
        }
    }

    pub async fn show(&self, id: i64) -> Result<(TaskRecord, Vec<EventRecord>), ReadError> {
        match self.ask(Read::Show { id }).await? {
            Found::Show(task, events) => Ok((*task, events)),
            other => Err(unexpected(&other)),
        }
    }

    /// One page of history: one round trip through an engine.
    pub async fn history(
        &self,
        query: &HistoryQuery,
        cursor: Option<i64>,
        limit: usize,
    ) -> Result<Vec<HistoryRow>, ReadError> {
        match self.ask(Read::History { query: query.clone(), cursor, limit }).await? {
            Found::History(rows) => Ok(rows),
            other => Err(unexpected(&other)),
        }
    }

    pub async fn lineage(&self, id: i64) -> Result<(Option<TaskRecord>, Vec<TaskRecord>), ReadError> {
        match self.ask(Read::Lineage { id }).await? {
            Found::Lineage(parent, children) => Ok((parent.map(|p| *p), children)),
            other => Err(unexpected(&other)),
        }
    }

    pub async fn models(&self) -> Result<Vec<String>, ReadError> {
        match self.ask(Read::Models).await? {
            Found::Models(m) => Ok(m),
            other => Err(unexpected(&other)),
        }
    }

    pub async fn ledger(&self, since: Option<i64>, pricing: &Pricing) -> Result<Ledger, ReadError> {
        match self.ask(Read::Ledger { since, pricing: pricing.clone() }).await? {
            Found::Ledger(l) => Ok(*l),
            other => Err(unexpected(&other)),
        }
    }

    /// What counts against today's budget (today as this machine's clock has it).
    pub async fn spent_today(&self, pricing: &Pricing) -> Result<f64, ReadError> {
        let since_ms = query::start_of_today();
        match self.ask(Read::Spent { since_ms, pricing: pricing.clone() }).await? {
            Found::Spent(s) => Ok(s),
            other => Err(unexpected(&other)),
        }
    }

    /// Every task, oldest first, a page at a time; `each` may stop it with an error.
    pub async fn export<E: From<ReadError>>(&self, mut each: impl FnMut(TaskRecord) -> Result<(), E>) -> Result<(), E> {
        let mut after = 0;
        loop {
            let page = tasks(self.ask(Read::Export { after, limit: EXPORT_PAGE }).await?)?;
            let Some(last) = page.last().map(|t| t.id) else { return Ok(()) };
            for t in page {
                each(t)?;
            }
            after = last;
        }
    }

    /// Whether each task's file is where it was saved (on the engine's machine when it is
    /// another one); tasks without a file are left out.
    pub async fn files_present(&self, ids: Vec<i64>) -> Result<Vec<(i64, bool)>, ReadError> {
        match self.ask(Read::Files { ids }).await? {
            Found::Files(f) => Ok(f),
            other => Err(unexpected(&other)),
        }
    }
}

impl Reader {
    /// The task whose saved file has the sha256 `sum`, if any.
    pub async fn by_sum(&self, sum: &str) -> Result<Option<TaskRecord>, ReadError> {
        Ok(tasks(self.ask(Read::BySum { sha256: sum.to_string() }).await?)?.pop())
    }

    /// The tasks created since `since_ms` with a tag in `from..to`.
    pub async fn tagged_since(&self, from: &str, to: &str, since_ms: i64) -> Result<Vec<TaskRecord>, ReadError> {
        tasks(self.ask(Read::Tagged { from: from.into(), to: to.into(), since_ms }).await?)
    }

    /// Which of `keys` (a batch file's rows) were journaled already (with `but_failed`, by a
    /// task that did not fail).
    pub async fn already_sent(
        &self,
        keys: &[String],
        but_failed: bool,
    ) -> Result<std::collections::HashSet<String>, ReadError> {
        match self.ask(Read::Sent { keys: keys.to_vec(), but_failed }).await? {
            Found::Keys(k) => Ok(k.into_iter().collect()),
            other => Err(unexpected(&other)),
        }
    }
}

fn unexpected(found: &Found) -> ReadError {
    ReadError::Engine(EngineError::Unexpected(found.kind()))
}

fn tasks(found: Found) -> Result<Vec<TaskRecord>, ReadError> {
    match found {
        Found::Tasks(t) => Ok(t),
        other => Err(unexpected(&other)),
    }
}

fn changes(found: Found) -> Result<Changes, ReadError> {
    match found {
        Found::Changes(c) => Ok(c),
        other => Err(unexpected(&other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::tasks::insert;
    use reel_store::{fixtures, open_writer};

    #[tokio::test]
    async fn the_file_is_read_page_by_page_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("reel.db");
        let reader = Reader::Store(db.clone());
        assert!(reader.list(None, None, 10).await.expect("no journal yet").is_empty());
        let conn = open_writer(&db).expect("db");
        let ids: Vec<i64> =
            (0..5).map(|i| insert(&conn, &fixtures::new_task(&format!("fox {i}"))).expect("task").id).collect();
        assert_eq!(reader.resolve(&ids[3].to_string()).await.expect("resolves"), ids[3]);
        let mut seen = Vec::new();
        reader
            .export(|t| {
                seen.push(t.id);
                Ok::<(), ReadError>(())
            })
            .await
            .expect("export");
        assert_eq!(seen, ids);
        let opened = reader.opening(0).await.expect("opening");
        assert_eq!(opened.tasks.len(), 5);
        assert!(opened.mark > 0, "where the journal stood");
        assert!(!reader.is_far());
    }
}
