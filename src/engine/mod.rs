//! The background engine: submits, polls every outstanding task with one scheduler, records
//! every change in the store and downloads finished videos at once. The dashboard and the
//! commands talk to it only through [`Command`]s and [`Event`]s.
//!
//! The pure core: `queue` (what to start next), `transition` (what an answer does to a task),
//! `manual` (what a user's request does), `schedule` (intervals, back-off, budget), `health`,
//! `recover`, `journal` (submission → row → request body), `timeline` (what a change of state
//! records). The I/O shell: `run` (the loop), `commands`, `download`, `files`, `query`
//! (read-only connections).

mod commands;
pub mod download;
mod local;
pub use local::LocalEngine;
pub mod fetched;
pub mod files;
pub mod health;
pub mod import;
pub mod journal;
pub mod ledger;
pub mod manual;
pub mod provenance;
pub mod query;
pub mod queue;
pub mod reader;
pub mod recover;
mod run;
pub mod service;
pub mod stall;
pub mod timeline;
pub use run::now_ms;
pub mod schedule;
pub mod transition;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::api::Client;
use crate::rules::ValidSubmission;
use crate::store::{LocalState, Store, StoreError, TaskRecord};
pub use health::{Health, ServiceState};
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
    /// Makes the preview stills of each saved file (off the async threads); `None`: no stills.
    pub previews: Option<crate::preview::Previewer>,
    /// Writes each saved file's provenance into it; `None`: files are kept as the service sent
    /// them (the sidecar has it all either way).
    pub provenance: Option<provenance::Tagger>,
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
            previews: None,
            provenance: None,
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
    #[error("media item {0} is a local file that was not uploaded; only its URL can be sent")]
    NotUploaded(usize),
    #[error("task {id} is {state}; {action} does not apply")]
    NotApplicable { id: i64, state: LocalState, action: &'static str },
    /// The engine process answered with an error.
    #[error("{0}")]
    Remote(String),
    #[error("the engine process: {0}")]
    Service(#[from] service::ServiceError),
    #[error("{0}; nothing was sent (tasks sent before wait for a working key)")]
    KeyRefused(String),
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

#[derive(Debug)]
pub enum Command {
    /// Journal and send every part of a submission: one batch when it makes several tasks.
    Submit {
        parts: Vec<journal::Part>,
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
    /// Journals entries `reel import` rebuilt from files, each with what its timeline says of
    /// where it came from; those whose file is in the history already are left out.
    Import {
        entries: Vec<(TaskRecord, String)>,
        reply: Reply<Vec<TaskRecord>>,
    },
    /// The tasks as they stand now (a client that missed events catches up); unknown ids
    /// are left out.
    Tasks {
        ids: Vec<i64>,
        reply: Reply<Vec<TaskRecord>>,
    },
    /// Change a task's rating, pick or tags (any task, in any state).
    Review {
        id: i64,
        change: crate::store::review::Change,
        reply: Reply<TaskRecord>,
    },
    /// What the engine is working on.
    Activity {
        reply: Reply<Activity>,
    },
    Shutdown,
}

/// What the engine is working on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    /// Tasks being sent, polled or downloaded.
    pub unfinished: usize,
    pub requests_in_flight: usize,
    pub downloads: usize,
    pub service: ServiceState,
}

/// A task changed; `eta_ms` is when it should finish, judging by the model's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskUpdate {
    pub record: TaskRecord,
    pub eta_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum Event {
    Task(Box<TaskUpdate>),
    /// Tasks journaled together (a batch): one event, so that 10,000 of them reach every client
    /// as one message instead of overflowing what a client may fall behind by.
    Tasks(Vec<TaskUpdate>),
    /// Download progress: bytes on disk, the file's size if known, bytes per second.
    Transfer {
        id: i64,
        bytes: u64,
        total: Option<u64>,
        rate: f64,
    },
    /// What is known of the service changed: its health, since when, the pause on every request.
    Service(ServiceState),
    /// Something went wrong inside the engine (the database, the disk).
    Trouble(String),
    /// Said by the client side of the socket, never by the engine: events were dropped on the
    /// way (this client read too slowly), so what it shows must be read again.
    Missed,
}

/// The engine as the dashboard and the commands see it: in this process, or the data folder's
/// engine process over its socket. Both take the same commands and send the same events.
#[allow(clippy::large_enum_variant, reason = "one per process: boxing would save nothing")]
pub enum Engine {
    Local(LocalEngine),
    Remote(service::RemoteEngine),
}

impl Engine {
    /// `user@host:port` when the engine is on another machine: then the journal and the saved
    /// files are read through it, never from this machine's disk.
    pub fn far(&self) -> Option<&str> {
        match self {
            Engine::Local(_) => None,
            Engine::Remote(e) => e.far(),
        }
    }

    /// Starts an engine in this process: it resumes every unfinished task from the store.
    pub async fn start(
        config: EngineConfig,
        client: Client,
        store: Store,
    ) -> Result<(Engine, mpsc::UnboundedReceiver<Event>), EngineError> {
        let (local, events) = LocalEngine::start(config, client, store).await?;
        Ok((Engine::Local(local), events))
    }

    /// Journals the tasks (they exist once this returns) and queues their submission.
    pub async fn submit(
        &self,
        submission: ValidSubmission,
        count: u32,
        parent: Option<i64>,
    ) -> Result<Vec<TaskRecord>, EngineError> {
        self.submit_parts(vec![journal::Part { submission, count, parent }]).await
    }

    /// Journals every task of a submission made of several parts (a grid, several tasks sent
    /// again at once) as one batch, and queues their submission.
    pub async fn submit_parts(&self, parts: Vec<journal::Part>) -> Result<Vec<TaskRecord>, EngineError> {
        match self {
            Engine::Local(e) => e.submit(parts).await,
            Engine::Remote(e) => e.submit(&parts).await,
        }
    }

    pub async fn resend(&self, id: i64) -> Result<(), EngineError> {
        match self {
            Engine::Local(e) => e.resend(id).await,
            Engine::Remote(e) => e.done(service::Request::Resend { id }).await,
        }
    }

    pub async fn recheck(&self, id: i64) -> Result<(), EngineError> {
        match self {
            Engine::Local(e) => e.recheck(id).await,
            Engine::Remote(e) => e.done(service::Request::Recheck { id }).await,
        }
    }

    pub async fn download(&self, id: i64) -> Result<(), EngineError> {
        match self {
            Engine::Local(e) => e.download(id).await,
            Engine::Remote(e) => e.done(service::Request::Download { id }).await,
        }
    }

    pub async fn delete(&self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        match self {
            Engine::Local(e) => e.delete(id, remove_file).await,
            Engine::Remote(e) => e.delete(id, remove_file).await,
        }
    }

    /// Journals entries rebuilt from files (see [`Command::Import`]); the ones journaled.
    pub async fn import(&self, entries: Vec<(TaskRecord, String)>) -> Result<Vec<TaskRecord>, EngineError> {
        match self {
            Engine::Local(e) => e.import(entries).await,
            Engine::Remote(e) => e.import(entries).await,
        }
    }

    /// The tasks as they stand now, for a client that missed events; deleted ones are left out.
    pub async fn tasks(&self, ids: Vec<i64>) -> Result<Vec<TaskRecord>, EngineError> {
        match self {
            Engine::Local(e) => e.tasks(ids).await,
            Engine::Remote(e) => e.tasks(ids).await,
        }
    }

    /// Changes a task's rating, pick or tags; every client sees the task's update.
    pub async fn review(&self, id: i64, change: crate::store::review::Change) -> Result<TaskRecord, EngineError> {
        match self {
            Engine::Local(e) => e.review(id, change).await,
            Engine::Remote(e) => e.review(id, change).await,
        }
    }

    pub async fn activity(&self) -> Result<Activity, EngineError> {
        match self {
            Engine::Local(e) => e.activity().await,
            Engine::Remote(e) => e.status().await.map(|s| s.activity()),
        }
    }

    /// What the engine process said when this client attached; `None` for an engine in this
    /// process.
    pub fn welcome(&self) -> Option<&service::Status> {
        match self {
            Engine::Local(_) => None,
            Engine::Remote(e) => Some(e.welcome()),
        }
    }

    /// Whether work goes on after this process ends (the engine is a process of its own).
    pub fn outlives_this_process(&self) -> bool {
        matches!(self, Engine::Remote(_))
    }

    /// An engine in this process stops (downloads under way resume at the next start); the
    /// engine process goes on working, this client only detaches.
    pub async fn shutdown(self) {
        match self {
            Engine::Local(e) => e.shutdown().await,
            Engine::Remote(e) => e.detach().await,
        }
    }
}
