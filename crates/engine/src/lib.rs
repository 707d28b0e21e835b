//! The background engine: submits, polls every outstanding task with one scheduler, records
//! every change in the store and downloads finished videos at once. The dashboard and the
//! commands talk to it only through [`Command`]s and [`Event`]s.
//!
//! The pure core: `queue` (what to start next), `transition` (what an answer does to a task),
//! `manual` (what a user's request does), `keep_saved` (a saved task stays saved when it is fetched
//! again), `schedule` (intervals, back-off, budget), `health` (the service's outages), `stall`
//! (when a transfer counts as stalled), `recover` (what a restart resumes), `admission` (whether
//! a submission is taken), `journal` (submission → row → request body), `timeline` (what a
//! change of state records), `verify` (what a downloaded file must be to be called saved),
//! `disk` (a full disk: how it is told, said, and waited out), `key_scope` (what a refused key
//! concerns), `ledger` (cost and time), `import` (an entry rebuilt from a video file).
//!
//! The I/O shell: `local` (the engine in this process), `run` (the loop; `run/pause` the pause
//! while the disk is full), `commands`, `admit` (admission in the transaction that journals a
//! submission), `download`, `files` (names, sidecars), `provenance` and `mp4_tags` (where a video
//! came from, written into the file), `fetched` (files of an engine on another machine).
//!
//! How clients reach it: `calls` (every request and its answer), `refusal` (why a request was
//! not done, as data), `service` (the engine process: socket server, client, protocol, the SSH
//! bridge), `reader` (the journal read here or through the engine) over `query` (read-only
//! connections).
//!
//! Beside the engine, in this crate because it wires them or they feed it: `config` (the config
//! file, environment and profiles, resolved into settings), `media` (uploads of reference files,
//! preflight checks of media URLs), `preview` (the one preview service: cached poster and strip
//! frames, inline playback, pictures in a terminal), `public` (the JSON shape of tasks that
//! scripts and agents read), `logging` (the log file) and `session` (settings → store, client
//! or the demo simulator, engine).

pub mod admission;
mod admit;
pub mod calls;
mod commands;
pub mod disk;
pub mod download;
mod local;
pub use local::LocalEngine;
pub mod fetched;
pub mod files;
pub mod health;
pub mod import;
pub mod journal;
pub mod keep_saved;
pub mod key_scope;
pub mod ledger;
pub mod manual;
pub mod mp4_tags;
pub mod provenance;
pub mod query;
pub mod queue;
pub mod reader;
pub mod recover;
pub mod refusal;
mod run;
pub mod service;
pub mod stall;
pub mod timeline;
pub use run::now_ms;
pub mod config;
pub mod logging;
pub mod media;
pub mod preview;
pub mod public;
pub mod schedule;
pub mod session;
pub mod transition;
pub mod verify;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

pub use admit::{AGENT_PREFIX, agent_tag};
pub use calls::{Answer, DraftPart, Request, Submission, Submitted};
pub use health::{Health, ServiceState};
use reel_api::Client;
use reel_store::{Store, StoreError, TaskRecord};
pub use refusal::Refused;
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
    /// Largest file any download may be, in bytes (`[engine] max_file_mb`); each task's own
    /// bound, from its seconds and resolution, is usually lower.
    pub max_file_bytes: u64,
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
    /// The rules every submission is validated with again, the engine's own.
    pub catalog: reel_rules::Catalog,
    /// The limits every submission is admitted against.
    pub limits: admission::Limits,
}

impl EngineConfig {
    pub fn new(videos_dir: PathBuf) -> EngineConfig {
        EngineConfig {
            policy: PollPolicy::default(),
            url_ttl: Duration::from_secs(3600),
            max_downloads: 4,
            download_attempts: 6,
            stall: download::StallRule::default(),
            max_file_bytes: verify::DEFAULT_MAX_FILE_MB * verify::MB,
            max_in_flight: 16,
            videos_dir,
            profile: None,
            previews: None,
            provenance: None,
            catalog: reel_rules::Catalog::builtin(),
            limits: admission::Limits { max_tasks: admission::Limits::DEFAULT_MAX_TASKS, ..Default::default() },
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
    /// The engine would not do it, and says why as data (the same kind in this process and
    /// across the socket).
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("the engine process: {0}")]
    Service(#[from] service::ServiceError),
    #[error("the engine answered {0} where reel expected another answer; are both sides the same reel?")]
    Unexpected(&'static str),
}

impl EngineError {
    /// What crosses the socket: the refusal as it is, anything else in the engine's words.
    pub fn refusal(self) -> Refused {
        match self {
            EngineError::Refused(r) => r,
            other => Refused::failed(other),
        }
    }
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

/// What the runner is asked: a call of the API, or to stop.
#[derive(Debug)]
pub enum Command {
    Call { request: Request, reply: Reply<Answer> },
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
    /// Unfinished tasks that wait for the API only: to be sent or polled.
    #[serde(default)]
    pub waiting_on_api: usize,
    /// Unfinished tasks whose status reel does not know (`unrecognized`).
    #[serde(default)]
    pub unrecognized: usize,
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

    /// Any operation of the engine's API, wherever the engine is.
    pub async fn call(&self, request: Request) -> Result<Answer, EngineError> {
        match self {
            Engine::Local(e) => e.call(request).await,
            Engine::Remote(e) => e.call(request).await,
        }
    }

    /// A submission, admitted or refused by the engine against its limits as it is journaled.
    pub async fn send(&self, submission: Submission) -> Result<Submitted, EngineError> {
        match self.call(Request::Submit(Box::new(submission))).await? {
            Answer::Submitted(s) => Ok(*s),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// A user's submission of several parts (a grid, several tasks sent again at once), as one
    /// batch, within the daily budget; the tasks journaled.
    pub async fn submit_parts(&self, parts: Vec<journal::Part>) -> Result<Vec<TaskRecord>, EngineError> {
        let parts = parts.iter().map(DraftPart::from).collect();
        Ok(self.send(Submission { parts, ..Submission::default() }).await?.tasks)
    }

    /// `count` copies of a user's submission, within the daily budget; the tasks journaled.
    pub async fn submit(
        &self,
        submission: reel_rules::ValidSubmission,
        count: u32,
        parent: Option<i64>,
    ) -> Result<Vec<TaskRecord>, EngineError> {
        self.submit_parts(vec![journal::Part { submission, count, parent }]).await
    }

    async fn done(&self, request: Request) -> Result<(), EngineError> {
        match self.call(request).await? {
            Answer::Done => Ok(()),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    async fn task(&self, request: Request) -> Result<TaskRecord, EngineError> {
        match self.call(request).await? {
            Answer::Task(t) => Ok(*t),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    async fn records(&self, request: Request) -> Result<Vec<TaskRecord>, EngineError> {
        match self.call(request).await? {
            Answer::Tasks(t) => Ok(t),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    pub async fn resend(&self, id: i64) -> Result<(), EngineError> {
        self.done(Request::Resend { id }).await
    }

    pub async fn recheck(&self, id: i64) -> Result<(), EngineError> {
        self.done(Request::Recheck { id }).await
    }

    pub async fn download(&self, id: i64) -> Result<(), EngineError> {
        self.done(Request::Download { id }).await
    }

    pub async fn delete(&self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        self.task(Request::Delete { id, remove_file }).await
    }

    /// Journals entries rebuilt from files (see [`Request::Import`]); the ones journaled.
    pub async fn import(&self, entries: Vec<(TaskRecord, String)>) -> Result<Vec<TaskRecord>, EngineError> {
        self.records(Request::Import { entries }).await
    }

    /// The tasks as they stand now, for a client that missed events; deleted ones are left out.
    pub async fn tasks(&self, ids: Vec<i64>) -> Result<Vec<TaskRecord>, EngineError> {
        self.records(Request::Tasks { ids }).await
    }

    /// Changes a task's rating, pick or tags; every client sees the task's update.
    pub async fn review(&self, id: i64, change: reel_store::review::Change) -> Result<TaskRecord, EngineError> {
        self.task(Request::Review { id, change }).await
    }

    pub async fn activity(&self) -> Result<Activity, EngineError> {
        match self.call(Request::Activity).await? {
            Answer::Activity(a) => Ok(a),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// What the service the engine works for lists (`GET /v1/models`).
    pub async fn service_models(&self) -> Result<reel_api::ModelList, EngineError> {
        match self.call(Request::Models).await? {
            Answer::Models(list) => Ok(list),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// The engine process: who it is, what it serves, on which config.
    pub async fn status(&self) -> Result<service::Status, EngineError> {
        match self.call(Request::Status).await? {
            Answer::Status(s) => Ok(*s),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// A question about the journal, answered by the engine from its store.
    pub async fn read(&self, read: service::reads::Read) -> Result<service::reads::Found, EngineError> {
        match self.call(Request::Read { read }).await? {
            Answer::Found(found) => Ok(*found),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// Up to `len` bytes of a saved file from `offset`, and the file's whole length.
    pub async fn fetch(
        &self,
        file: service::reads::RemoteFile,
        offset: u64,
        len: u32,
    ) -> Result<(u64, Vec<u8>), EngineError> {
        use base64::Engine as _;
        match self.call(Request::Fetch { file, offset, len }).await? {
            Answer::Chunk { total, data } => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.as_bytes())
                    .map_err(|e| Refused::failed(format!("the engine sent a file piece reel cannot read: {e}")))?;
                Ok((total, bytes))
            }
            other => Err(EngineError::Unexpected(other.kind())),
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
