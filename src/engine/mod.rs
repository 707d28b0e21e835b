//! The background engine: submits, polls every outstanding task with one scheduler, records
//! every change in the store and downloads finished videos at once. The dashboard and the
//! commands talk to it only through [`Command`]s and [`Event`]s.
//!
//! The pure core: `queue` (what to start next), `transition` (what an answer does to a task),
//! `manual` (what a user's request does), `schedule` (intervals, back-off, budget), `health`,
//! `recover`, `journal` (submission → row → request body). The I/O shell: `run` (the loop),
//! `commands`, `download`, `files`, `query` (read-only connections).

mod commands;
pub mod download;
pub mod files;
pub mod health;
pub mod journal;
pub mod ledger;
pub mod manual;
pub mod query;
pub mod queue;
pub mod recover;
mod run;
pub use run::now_ms;
pub mod schedule;
pub mod transition;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::api::Client;
use crate::rules::ValidSubmission;
use crate::store::{LocalState, Store, StoreError, TaskRecord};
pub use health::Health;
pub use schedule::PollPolicy;

#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    pub policy: PollPolicy,
    /// URL lifetime assumed when the service sends no `expires_at`.
    pub url_ttl: Duration,
    /// Downloads at once.
    pub max_downloads: usize,
    /// Download attempts (not counting the one URL refresh) before `download_failed`.
    pub download_attempts: u32,
    /// When a transfer counts as stalled and is cut.
    pub stall: download::StallRule,
    /// API requests under way at once.
    pub max_in_flight: usize,
    /// `<data dir>/videos`.
    pub videos_dir: PathBuf,
    /// Recorded with each new task.
    pub profile: Option<String>,
}

impl EngineConfig {
    pub fn new(videos_dir: PathBuf) -> EngineConfig {
        EngineConfig {
            policy: PollPolicy::default(),
            url_ttl: Duration::from_secs(3600),
            max_downloads: 4,
            download_attempts: 6,
            stall: download::StallRule::default(),
            max_in_flight: 16,
            videos_dir,
            profile: None,
        }
    }
}

#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("another reel is already running on {0}; quit it first (or use another REEL_DATA_DIR)")]
    Busy(PathBuf),
    #[error("cannot use {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the engine has stopped")]
    Stopped,
    #[error("no task {0}")]
    NoTask(i64),
    #[error("task {id} is {state}; {action} does not apply")]
    NotApplicable { id: i64, state: LocalState, action: &'static str },
}

type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

#[derive(Debug)]
pub enum Command {
    /// Journal and send `count` copies of a submission.
    Submit {
        submission: Box<ValidSubmission>,
        count: u32,
        parent: Option<i64>,
        reply: Reply<Vec<TaskRecord>>,
    },
    /// Send a `submit_unknown` or `rejected` task again, with its original idempotency key.
    Resend {
        id: i64,
        reply: Reply<()>,
    },
    /// Poll a stalled, unrecognized, expired or lost task now.
    Recheck {
        id: i64,
        reply: Reply<()>,
    },
    /// Fetch the file again.
    Download {
        id: i64,
        reply: Reply<()>,
    },
    /// Forget a task (its events go with it); with `remove_file`, delete its video and sidecar.
    Delete {
        id: i64,
        remove_file: bool,
        reply: Reply<TaskRecord>,
    },
    Shutdown,
}

/// A task changed; `eta_ms` is when it should finish, judging by the model's history.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdate {
    pub record: TaskRecord,
    pub eta_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Task(Box<TaskUpdate>),
    /// Download progress: bytes on disk, the file's size if known, bytes per second.
    Transfer {
        id: i64,
        bytes: u64,
        total: Option<u64>,
        rate: f64,
    },
    Health(Health),
    /// Something went wrong inside the engine (the database, the disk).
    Trouble(String),
}

pub struct Engine {
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
    _lock: File,
}

/// Takes the data folder's lock so that two engines never work on the same tasks.
fn lock(path: &Path) -> Result<File, EngineError> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| EngineError::Io { path: path.to_path_buf(), source })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(EngineError::Busy(path.parent().unwrap_or(path).to_path_buf())),
        Err(std::fs::TryLockError::Error(source)) => Err(EngineError::Io { path: path.to_path_buf(), source }),
    }
}

impl Engine {
    /// Resumes every unfinished task from the store and starts working.
    pub async fn start(
        config: EngineConfig,
        client: Client,
        store: Store,
    ) -> Result<(Engine, mpsc::UnboundedReceiver<Event>), EngineError> {
        let lock = lock(&store.path().with_extension("lock"))?;
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (events, events_rx) = mpsc::unbounded_channel();
        let runner = run::Runner::start(config, client, store, events, commands_rx).await?;
        let task = tokio::spawn(runner.run());
        Ok((Engine { commands, task: Some(task), _lock: lock }, events_rx))
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, EngineError> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(make(tx)).map_err(|_| EngineError::Stopped)?;
        rx.await.map_err(|_| EngineError::Stopped)?
    }

    /// Journals the tasks (they exist once this returns) and queues their submission.
    pub async fn submit(
        &self,
        submission: ValidSubmission,
        count: u32,
        parent: Option<i64>,
    ) -> Result<Vec<TaskRecord>, EngineError> {
        self.ask(|reply| Command::Submit { submission: Box::new(submission), count, parent, reply }).await
    }

    pub async fn resend(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Resend { id, reply }).await
    }

    pub async fn recheck(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Recheck { id, reply }).await
    }

    pub async fn download(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Download { id, reply }).await
    }

    pub async fn delete(&self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        self.ask(|reply| Command::Delete { id, remove_file, reply }).await
    }

    /// Stops the engine; downloads under way resume at the next start.
    pub async fn shutdown(mut self) {
        let _ = self.commands.send(Command::Shutdown);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown);
    }
}
