//! The local SQLite journal: every task and every state change. One writer thread, WAL mode so
//! readers on their own connections never wait for it.
//!
//! `schema` (migrations by `user_version`), `state` (a task's local states), `tasks` (task rows
//! and their events), `history` (pages, search, lineage, deletion, the ledger's rows),
//! `admitted` (what admission reads and writes in the transaction that journals a submission),
//! `review` and `reviewing` (ratings, picks and tags: the rules, and journaling them),
//! `imported` (entries `reel import` rebuilds), `since` (where the journal stands, for a client
//! that reads it through the engine), `disk` (whether a write failed because the disk is full),
//! `fixtures` (example rows for tests and benchmarks).

pub mod admitted;
pub mod disk;
#[doc(hidden)]
pub mod fixtures;
pub mod history;
pub mod imported;
#[cfg(test)]
mod migration_tests;
pub mod review;
pub mod reviewing;
pub mod schema;
pub mod since;
pub mod state;
pub mod tasks;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use thiserror::Error;
use tokio::sync::oneshot;

pub use review::Review;
pub use state::LocalState;
pub use tasks::{EventRecord, MediaRecord, NewTask, TaskRecord};

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot create the data folder {path}: {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error("the database was written by a newer reel (schema {found}, this reel knows {known}); upgrade reel")]
    NewerSchema { found: usize, known: usize },
    #[error("task {0} is not in the database")]
    Missing(i64),
    #[error("cannot encode a value for the database: {0}")]
    Encode(String),
    #[error("the database writer has stopped")]
    Closed,
    #[error(transparent)]
    Review(#[from] review::BadReview),
}

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Opens a connection for reading; it never blocks on the writer (WAL).
pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    configure(&conn)?;
    Ok(conn)
}

/// Opens (creating and migrating if needed) the database for writing.
pub fn open_writer(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder { path: dir.to_path_buf(), source })?;
    }
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // With WAL, NORMAL loses nothing on a process crash; only a power cut can drop the last commits.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    schema::migrate(&mut conn)?;
    Ok(conn)
}

/// The single writer: a thread that owns the connection and runs jobs in order.
#[derive(Clone)]
pub struct Store {
    jobs: mpsc::Sender<Job>,
    path: PathBuf,
    /// Tests: every write fails as on a full disk (`SQLITE_FULL`), on every clone.
    #[cfg(any(test, feature = "faults"))]
    full: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Store {
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = open_writer(path)?;
        let (jobs, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("reel-store".into())
            .spawn(move || {
                for job in rx {
                    job(&mut conn);
                }
            })
            .map_err(|e| StoreError::Encode(e.to_string()))?;
        Ok(Store {
            jobs,
            path: path.to_path_buf(),
            #[cfg(any(test, feature = "faults"))]
            full: Default::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tests: from now on every write fails as on a full disk (`true`), or works again.
    #[cfg(any(test, feature = "faults"))]
    pub fn inject_full(&self, full: bool) {
        self.full.store(full, std::sync::atomic::Ordering::SeqCst);
    }

    /// Runs `f` on the writer connection and waits for its result.
    pub async fn write<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        #[cfg(any(test, feature = "faults"))]
        if self.full.load(std::sync::atomic::Ordering::SeqCst) {
            let full = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL);
            return Err(rusqlite::Error::SqliteFailure(full, Some("database or disk is full".into())).into());
        }
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        self.jobs.send(job).map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// Runs `f` on a fresh read connection on the blocking pool.
    pub async fn read<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || f(&open_reader(&path)?)).await.map_err(|_| StoreError::Closed)?
    }
}
