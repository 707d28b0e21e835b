//! The engine's API, defined once: every operation a client may ask, and its answer. The same
//! types are handled by the same code in this process (`--no-service`), over the data folder's
//! socket and over SSH; adding an operation means a variant here and an arm in the handler.

use serde::{Deserialize, Serialize};

use super::Activity;
use super::admission::Sender;
use super::service::reads::{Found, Read, RemoteFile};
use super::service::status::Status;
use reel_rules::Draft;
use reel_store::TaskRecord;

/// A part of a submission as it travels: `count` copies of a draft, derived from `parent`.
/// The engine validates every draft again with its own rules: it trusts no client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftPart {
    pub draft: Draft,
    pub count: u32,
    pub parent: Option<i64>,
}

/// A submission: parts journaled together (one batch when they make several tasks), admitted
/// or refused whole by the engine against its limits, in the step that journals them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Submission {
    pub parts: Vec<DraftPart>,
    #[serde(default)]
    pub sender: Sender,
    /// The user said yes to passing the daily budget (never honoured for an agent).
    #[serde(default)]
    pub over_budget: bool,
    /// Leave out what an earlier run with the same content sent (a batch file run again).
    #[serde(default)]
    pub resume: bool,
    /// Decide, and journal nothing: what would be admitted (a quote, `check`, `--dry-run`).
    #[serde(default)]
    pub dry_run: bool,
    /// With `resume`: send again the copies of a row whose tasks ended without a video (failed,
    /// rejected, lost, expired, cancelled), in the batch they went in.
    #[serde(default)]
    pub retry_failed: bool,
}

/// What the engine did with a submission.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Submitted {
    /// The tasks journaled (none on a dry run).
    pub tasks: Vec<TaskRecord>,
    /// How many tasks it makes (on a dry run, would make).
    pub admitted: u32,
    /// Tasks left out because an earlier run sent them.
    pub left_out: u32,
    /// What the admitted tasks can cost.
    pub quote: reel_rules::pricing::Quote,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    Submit(Box<Submission>),
    /// Send a `submit_unknown` or `rejected` task again, with its original idempotency key.
    Resend {
        id: i64,
    },
    /// Poll a stalled, unrecognized, expired or lost task now.
    Recheck {
        id: i64,
    },
    /// Fetch the file again.
    Download {
        id: i64,
    },
    /// Forget a task (its events go with it); with `remove_file`, its video and sidecar too.
    Delete {
        id: i64,
        remove_file: bool,
    },
    /// Journal entries rebuilt from files, each with its timeline's words (`reel import`).
    Import {
        entries: Vec<(TaskRecord, String)>,
    },
    /// The tasks with these ids as they stand now (for a client that missed events).
    Tasks {
        ids: Vec<i64>,
    },
    /// Change a task's rating, pick or tags; answered with the task as it is now.
    Review {
        id: i64,
        change: reel_store::review::Change,
    },
    /// What the engine is working on.
    Activity,
    /// A question about the journal (for a client that cannot open it: over SSH).
    Read {
        read: Read,
    },
    /// A piece of a saved file (base64 in the answer), for a client on another machine.
    Fetch {
        file: RemoteFile,
        offset: u64,
        len: u32,
    },
    /// What the service lists at `GET /v1/models` (the embedded simulator's list in demo mode).
    Models,
    /// The engine process: who it is, what it serves, on which config.
    Status,
    /// Stop the engine process; without `force` it refuses while tasks are unfinished.
    Stop {
        force: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", content = "value", rename_all = "snake_case")]
pub enum Answer {
    Submitted(Box<Submitted>),
    Tasks(Vec<TaskRecord>),
    Task(Box<TaskRecord>),
    Done,
    Activity(Activity),
    Status(Box<Status>),
    Found(Box<Found>),
    /// Bytes of a file from the offset asked (base64), and the file's whole length.
    Chunk {
        total: u64,
        data: String,
    },
    Models(reel_api::ModelList),
}

impl Answer {
    /// The answer's kind, for a client that got another than it asked for.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Submitted(_) => "submitted",
            Answer::Tasks(_) => "tasks",
            Answer::Task(_) => "task",
            Answer::Done => "done",
            Answer::Activity(_) => "activity",
            Answer::Status(_) => "status",
            Answer::Found(_) => "found",
            Answer::Chunk { .. } => "chunk",
            Answer::Models(_) => "models",
        }
    }
}

impl From<&super::journal::Part> for DraftPart {
    fn from(p: &super::journal::Part) -> DraftPart {
        DraftPart { draft: Draft::from(&p.submission), count: p.count, parent: p.parent }
    }
}
