//! What goes into `update` ([`Action`]: input, engine news, the results of effects) and what
//! comes out ([`Effect`]: work for the event loop), and the error an effect can end in.

use crossterm::event::{KeyEvent, MouseEvent};
use thiserror::Error;

use crate::compose::Field;
use crate::latest::Ticket;
use crate::prefs::Prefs;
use reel_engine::ledger::Ledger;
use reel_engine::query::{HistoryRow, QueryError};
use reel_engine::{Activity, EngineError, Event};
use reel_rules::ValidSubmission;
use reel_rules::batch::expand::Defaults;
use reel_store::history::HistoryQuery;
use reel_store::{EventRecord, TaskRecord};

#[derive(Debug)]
pub enum Action {
    Key(KeyEvent),
    Paste(String),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Time passes (spinners, elapsed times, countdowns, a search settling).
    Tick,
    /// Time to look at the disk again for the files on screen.
    CheckFiles,
    Engine(Event),
    /// Tasks read from the store, to show as they are.
    Loaded(Vec<TaskRecord>),
    /// The engine's socket closed: its process is gone (killed, crashed or stopped).
    LinkLost,
    /// The terminal hung up or reel was asked to stop (SIGHUP, SIGTERM): quit at once, keeping
    /// the draft, without asking.
    Hangup,
    /// An attempt to attach to the data folder's engine again has started.
    Reattaching(u32),
    /// That attempt failed, and why.
    ReattachFailed {
        attempt: u32,
        error: String,
    },
    /// An engine is attached again (its events wait until the rows are read again);
    /// `restarted` when it is another process than the one lost, `activity` what it said.
    Reattached {
        restarted: bool,
        activity: Option<Activity>,
    },
    /// The rows read from the store: at start, or after attaching again.
    Reloaded(Result<Reload, EffectError>),
    Timeline(i64, Vec<EventRecord>),
    /// Tasks were journaled; `again` when they were sent again from the table or history.
    Submitted {
        again: bool,
        result: Result<Vec<TaskRecord>, EffectError>,
    },
    Edited(Field, Result<String, EffectError>),
    /// The form's media items were checked (preflight, or a local file's size).
    MediaChecked(Vec<(String, crate::compose::media::MediaStatus)>),
    /// An effect reported back (a copy, a command, an engine action): what to tell the user.
    Report(Result<String, EffectError>),
    /// The engine answered one review change asked of it (`quiet`: said only if it failed), and
    /// the task as the journal then held it.
    Reviewed {
        id: i64,
        quiet: bool,
        result: Result<(), EffectError>,
        truth: Option<TaskRecord>,
    },
    /// An action on several tasks ended: the ones it started, the ones the engine refused
    /// (with why), and the notes about tasks it was not asked for.
    BulkDone {
        op: Op,
        done: Vec<i64>,
        failed: Vec<(i64, String)>,
        skipped: Vec<String>,
    },
    /// Whether each file is still on disk.
    FilesChecked(Vec<(i64, bool)>),
    HistoryPage(Ticket, Result<Vec<HistoryRow>, EffectError>),
    Lineage(i64, Option<TaskRecord>, Vec<TaskRecord>),
    Ledger(Ledger),
    Models(Vec<String>),
    Deleted(Result<TaskRecord, EffectError>),
    /// What today's tasks cost so far.
    Spent(f64),
    /// The ids the service lists (`GET /v1/models`), for the form's model list.
    ServiceModels(Vec<String>),
    /// A saved video's poster and strip (by sha256), or why there are none.
    Stills(String, Result<reel_engine::preview::Stills, crate::preview::PreviewFailure>),
    /// A poster for the history grid, scaled down, by sha256.
    Thumb(String, Result<image::RgbImage, crate::preview::PreviewFailure>),
    /// A frame of the inline player, of the given start.
    PlayFrame(Ticket, image::RgbImage),
    /// The inline player of the given start could not go on.
    PlayFailed(Ticket, String),
    /// A batch file loaded into the form, or its tasks sent.
    Batch(BatchNews),
    /// A take's clip for playing a comparison together (by its index there), of the given
    /// start, or why it could not be decoded.
    Clip(Ticket, usize, Result<Vec<image::RgbImage>, crate::preview::PreviewFailure>),
}

impl Action {
    /// The action's kind, for the log (without its payload: frames, pages, pasted text).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Key(_) => "key",
            Action::Paste(_) => "paste",
            Action::Mouse(_) => "mouse",
            Action::Resize(..) => "resize",
            Action::Tick => "tick",
            Action::CheckFiles => "check files",
            Action::Engine(_) => "engine event",
            Action::Loaded(_) => "tasks loaded",
            Action::LinkLost => "engine lost",
            Action::Hangup => "hangup",
            Action::Reattaching(_) => "reattaching",
            Action::ReattachFailed { .. } => "reattach failed",
            Action::Reattached { .. } => "reattached",
            Action::Reloaded(_) => "reloaded",
            Action::Timeline(..) => "timeline",
            Action::Submitted { .. } => "submitted",
            Action::Edited(..) => "edited",
            Action::MediaChecked(_) => "media checked",
            Action::Report(_) => "report",
            Action::Reviewed { .. } => "reviewed",
            Action::BulkDone { .. } => "bulk done",
            Action::FilesChecked(_) => "files checked",
            Action::HistoryPage(..) => "history page",
            Action::Lineage(..) => "lineage",
            Action::Ledger(_) => "ledger",
            Action::Models(_) => "models",
            Action::Deleted(_) => "deleted",
            Action::Spent(_) => "spent",
            Action::ServiceModels(_) => "service models",
            Action::Stills(..) => "stills",
            Action::Thumb(..) => "thumb",
            Action::PlayFrame(..) => "play frame",
            Action::PlayFailed(..) => "play failed",
            Action::Batch(BatchNews::Loaded { .. }) => "batch loaded",
            Action::Batch(BatchNews::Completed { .. }) => "path completed",
            Action::Batch(BatchNews::Submitted(_)) => "batch submitted",
            Action::Clip(..) => "clip",
        }
    }
}

/// What the effects of a batch file report back.
#[derive(Debug)]
pub enum BatchNews {
    /// The file read, expanded over `defaults` and checked against the journal; or why it
    /// could not be read. `refresh`: loaded again because the form's fields changed.
    Loaded { defaults: Defaults, refresh: bool, result: Result<reel_rules::batch::plan::Plan, EffectError> },
    /// What Tab found for the path `typed` in its folder.
    Completed { typed: String, completion: crate::compose::Completion },
    /// The plan's tasks were journaled as one batch (or were not).
    Submitted(Result<Vec<TaskRecord>, EffectError>),
}

/// What a read of the store found for the rows to show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reload {
    /// Every task unfinished, or changed since the time the read was asked from.
    pub records: Vec<TaskRecord>,
    /// Tasks asked about that no longer exist (their records were deleted meanwhile).
    pub gone: Vec<i64>,
    /// The journal's newest change when it was read, on the engine's clock.
    pub mark: i64,
}

/// An engine action that applies to several tasks at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Send a `submit_unknown` task again with its idempotency key.
    Resend,
    Recheck,
    Download,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Submit {
        plan: Vec<ValidSubmission>,
        copies: u32,
        parent: Option<i64>,
    },
    /// Send tasks again as they were, each recording the task it came from.
    SubmitAgain(Vec<(i64, ValidSubmission)>),
    /// Read a batch file (`~` and relative paths resolved), expand it over `defaults` (the
    /// form's fields) and learn which of its tasks an earlier run sent; `refresh` when the
    /// file is loaded already and the form's fields changed.
    LoadBatch {
        path: String,
        defaults: Defaults,
        refresh: bool,
    },
    /// Complete a typed path from the names in its folder.
    CompletePath(String),
    /// Send a batch file's plan: its parts as one submission, one batch.
    SubmitBatch(Vec<reel_engine::journal::Part>),
    /// A submission the user said yes to sending past the daily budget: the engine is told so
    /// (it refuses one past the budget without it).
    PastBudget(Box<Effect>),
    /// One engine action on each task; `skipped` says what was not asked and why.
    Bulk {
        op: Op,
        ids: Vec<i64>,
        skipped: Vec<String>,
    },
    LoadTimeline(i64),
    /// Read the rows to show from the store: every task unfinished or changed since
    /// `since_ms`, and whether the tasks of `check` still exist.
    Reload {
        since_ms: i64,
        check: Vec<i64>,
    },
    /// Attach to the data folder's engine again (starting it if none runs) after `after_ms`.
    Reattach {
        attempt: u32,
        after_ms: i64,
    },
    /// Look whether these files are still on disk.
    CheckFiles(Vec<(i64, String)>),
    /// Play a saved file; `sha256` finds it on an engine's machine when that is another one.
    Open {
        path: String,
        sha256: Option<String>,
    },
    Copy(String),
    Run(Vec<String>),
    Edit {
        field: Field,
        text: String,
    },
    SavePrefs(Prefs),
    /// Keep the form's unsent draft for the next start (`None`: there is none to keep), at once:
    /// the process may end right after.
    SaveDraft(Option<crate::compose::Saved>),
    /// The same while the dashboard runs, off the event loop.
    KeepDraft(Option<crate::compose::Saved>),
    Bell,
    Notify(String),
    Suspend,
    Quit,
    HistoryPage {
        ticket: Ticket,
        query: HistoryQuery,
        cursor: Option<i64>,
    },
    Lineage(i64),
    LoadLedger(Option<i64>),
    LoadModels,
    Delete {
        id: i64,
        remove_file: bool,
    },
    /// Change a task's rating, pick or tags (through the engine).
    Review {
        id: i64,
        change: reel_store::review::Change,
    },
    /// The same from the compare view, said only if it fails: a blind comparison's status line
    /// must not name the task.
    ReviewTake {
        id: i64,
        change: reel_store::review::Change,
    },
    Reveal(String),
    LoadSpent,
    /// Ask the engine, once, what its service lists.
    LoadServiceModels,
    /// Check these form media items (by their key) off the UI thread.
    CheckMedia(Vec<(String, reel_rules::MediaDraft)>),
    /// Read (or make) the poster and strip of a saved video.
    LoadStills {
        sha256: String,
        path: String,
    },
    /// Read (or make) posters for the history grid, as (sha256, path), scaled to fit
    /// `width`x`height` pixels.
    LoadThumbs {
        files: Vec<(String, String)>,
        width: u32,
        height: u32,
    },
    /// Play a video inline, its frames fitted to `width`x`height` pixels.
    Play {
        ticket: Ticket,
        /// The file's sha256, what an engine on another machine finds it by.
        sha256: String,
        path: String,
        width: u32,
        height: u32,
        fps: u32,
    },
    /// Hold the player's frames back, or let them come again.
    PlayPause(bool),
    PlayStop,
    /// Decode each file of a comparison, (take index, path), whole, to frames fitted to
    /// `width`x`height` pixels at `fps`, at most `frames` of each, for playing them together.
    LoadClips {
        ticket: Ticket,
        /// (take, sha256, path) of each take to decode.
        files: Vec<(usize, String, String)>,
        width: u32,
        height: u32,
        fps: u32,
        frames: usize,
    },
}

/// Why an effect failed; `Display` is the message the status line shows.
#[derive(Debug, Error)]
pub enum EffectError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Reading the journal (history, lineage, the ledger) failed.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Reading the journal through the engine on another machine failed.
    #[error(transparent)]
    Reading(#[from] reel_engine::reader::ReadError),
    #[error("the command is empty: give the program first")]
    EmptyCommand,
    #[error("cannot run {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error(
        "cannot play the video with {program}: {source}; set $REEL_PLAYER (for example REEL_PLAYER=mpv) or add an [[actions]] entry with {{path}} (see README)"
    )]
    Player { program: String, source: std::io::Error },
    #[error(
        "cannot open the folder with {program}: {source}; install it, or add an [[actions]] entry with {{path}} (see README)"
    )]
    Opener { program: String, source: std::io::Error },
    #[error("the file {0} is missing (moved or deleted); d downloads it again while its URL works")]
    FileMissing(String),
    #[error("the folder {dir} is on {host}, where the engine runs; o fetches and plays the video here")]
    FarFolder { dir: String, host: String },
    #[error("cannot fetch the video from the engine's machine: {0}")]
    Fetch(String),
    #[error("cannot hand the text to the editor: {0}")]
    EditorFile(std::io::Error),
    #[error("cannot run {program}: {source} (set $VISUAL or $EDITOR)")]
    EditorMissing { program: String, source: std::io::Error },
    #[error("the editor {program} exited with {status}; the text was not changed")]
    EditorFailed { program: String, status: String },
    #[error("cannot take the terminal back from the editor: {0}")]
    Terminal(std::io::Error),
    #[error("cannot read {what} from {path}: {source}; the defaults are used")]
    Load { what: &'static str, path: String, source: Box<dyn std::error::Error + Send + Sync> },
    #[error("cannot read {what}: {source}")]
    Read { what: String, source: reel_engine::reader::ReadError },
    #[error("cannot save {what} to {path}: {source}")]
    Save { what: &'static str, path: String, source: std::io::Error },
    #[error("cannot read {path}: {source}")]
    BatchFile { path: String, source: std::io::Error },
    /// A batch file past the `[batch] max_file_bytes` or `max_line_bytes`, or not UTF-8.
    #[error(transparent)]
    BatchRead(reel_rules::batch::stream::ReadError),
    /// A batch file that expands past `[batch] max_tasks`.
    #[error(transparent)]
    BatchTasks(#[from] reel_rules::batch::expand::TooManyTasks),
    /// A media item could not be uploaded or failed its check.
    #[error("{0}; nothing was sent")]
    Media(#[from] crate::compose::media::NotReady),
}
