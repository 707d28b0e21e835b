//! Reading the journal and the saved files through the engine, for a client whose engine runs
//! on another machine (over SSH): the questions, their answers, and how the engine answers
//! them from its own store and folders. Every question is one round trip; the paged ones
//! (history, export) ask for one page at a time.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Pricing;
use crate::ledger::Ledger;
use crate::preview::Previewer;
use crate::query::{self, Changes, HistoryRow, QueryError};
use reel_store::history::HistoryQuery;
use reel_store::{EventRecord, LocalState, TaskRecord};

/// The most bytes of a file one answer carries (about 5.4 MiB as base64).
pub const MAX_CHUNK: u32 = 4 << 20;

/// A question about the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "read", rename_all = "snake_case")]
pub enum Read {
    /// The one task an id typed by the user means.
    Resolve {
        text: String,
    },
    List {
        state: Option<LocalState>,
        batch: Option<i64>,
        limit: usize,
    },
    Unfinished,
    /// What a dashboard shows as it opens (unfinished tasks, and those changed since).
    Opening {
        since_ms: i64,
    },
    Show {
        id: i64,
    },
    History {
        query: HistoryQuery,
        cursor: Option<i64>,
        limit: usize,
    },
    Lineage {
        id: i64,
    },
    Models,
    /// The ledger, priced with the client's prices.
    Ledger {
        since: Option<i64>,
        pricing: Pricing,
    },
    /// What counts against a budget from `since_ms` on, with the client's prices.
    Spent {
        since_ms: i64,
        pricing: Pricing,
    },
    /// A page of every task, oldest first, after task `after`.
    Export {
        after: i64,
        limit: usize,
    },
    /// Whether the tasks' files are still where they were saved.
    Files {
        ids: Vec<i64>,
    },
    /// The tasks created since `since_ms` that carry a tag in `from..to` (agents' tasks today).
    Tagged {
        from: String,
        to: String,
        since_ms: i64,
    },
    /// The task whose saved file has this sha256 (the previews know files by their sums).
    BySum {
        sha256: String,
    },
    /// Which of a batch file's content keys were sent already (with `but_failed`, by a task
    /// that did not fail).
    Sent {
        keys: Vec<String>,
        #[serde(default)]
        but_failed: bool,
    },
}

/// The answer to a [`Read`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "found", content = "value", rename_all = "snake_case")]
pub enum Found {
    Id(i64),
    Tasks(Vec<TaskRecord>),
    Changes(Changes),
    Show(Box<TaskRecord>, Vec<EventRecord>),
    History(Vec<HistoryRow>),
    Lineage(Option<Box<TaskRecord>>, Vec<TaskRecord>),
    Models(Vec<String>),
    Ledger(Box<Ledger>),
    Spent(f64),
    Files(Vec<(i64, bool)>),
    Keys(Vec<String>),
}

impl Found {
    /// The answer's kind, for a client that got another than it asked for.
    pub fn kind(&self) -> &'static str {
        match self {
            Found::Id(_) => "an id",
            Found::Tasks(_) => "tasks",
            Found::Changes(_) => "changes",
            Found::Show(..) => "a task with its timeline",
            Found::History(_) => "history rows",
            Found::Lineage(..) => "a lineage",
            Found::Models(_) => "models",
            Found::Ledger(_) => "a ledger",
            Found::Spent(_) => "spending",
            Found::Files(_) => "files",
            Found::Keys(_) => "keys",
        }
    }
}

/// A file on the engine's machine a client may fetch: only a task's saved video or the
/// preview stills made of it, never a path the client names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "file", rename_all = "snake_case")]
pub enum RemoteFile {
    Video {
        id: i64,
    },
    /// The poster (`index` 0) or a frame of the strip (1 to 5) of a task's video.
    Still {
        id: i64,
        index: usize,
    },
    /// A still of the saved video whose sha256 is `sha256`.
    StillBySum {
        sha256: String,
        index: usize,
    },
}

/// Answers `read` from the store at `db` (blocking: call it off the async threads).
pub fn answer(db: &Path, read: Read) -> Result<Found, QueryError> {
    Ok(match read {
        Read::Resolve { text } => Found::Id(query::resolve(db, &text)?),
        Read::List { state, batch, limit } => Found::Tasks(query::list(db, state, batch, limit)?),
        Read::Unfinished => Found::Tasks(query::unfinished(db)?),
        Read::Opening { since_ms } => Found::Changes(query::opening_changes(db, since_ms)?),
        Read::Show { id } => {
            let (task, events) = query::show(db, id)?;
            Found::Show(Box::new(task), events)
        }
        Read::History { query: q, cursor, limit } => Found::History(query::history(db, &q, cursor, limit)?),
        Read::Lineage { id } => {
            let (parent, children) = query::lineage(db, id)?;
            Found::Lineage(parent.map(Box::new), children)
        }
        Read::Models => Found::Models(query::models(db)?),
        Read::Ledger { since, pricing } => Found::Ledger(Box::new(query::ledger(db, since, &pricing)?)),
        Read::Spent { since_ms, pricing } => Found::Spent(query::spent_since(db, since_ms, &pricing)?),
        Read::Export { after, limit } => Found::Tasks(query::export_page(db, after, limit)?),
        Read::Files { ids } => Found::Files(query::files_present(db, &ids)?),
        Read::Tagged { from, to, since_ms } => Found::Tasks(query::tagged_since(db, &from, &to, since_ms)?),
        Read::BySum { sha256 } => Found::Tasks(match query::by_sum(db, &sha256)? {
            Some(id) => vec![query::show(db, id)?.0],
            None => Vec::new(),
        }),
        Read::Sent { keys, but_failed } => {
            let mut sent: Vec<String> = query::already_sent(db, &keys, but_failed)?.into_iter().collect();
            sent.sort();
            Found::Keys(sent)
        }
    })
}

/// Why a file could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("task {0} has no saved file on the engine's machine")]
    NoFile(i64),
    #[error("cannot read {path} on the engine's machine: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("no preview on the engine's machine: {0}")]
    Preview(#[from] crate::preview::PreviewError),
    #[error("no saved file on the engine's machine has the sha256 {0}")]
    NoSum(String),
    #[error("there is no still {0}: 0 is the poster, 1 to {max} the strip", max = crate::preview::STRIP)]
    NoStill(usize),
}

/// A piece of a file: its bytes from the offset asked, and the file's whole length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub total: u64,
    pub bytes: Vec<u8>,
}

/// Reads up to `len` bytes (at most [`MAX_CHUNK`]) of `file` from `offset` (blocking). Stills
/// are made first when the engine's machine has none yet.
pub fn fetch(
    db: &Path,
    previewer: Option<&Previewer>,
    file: &RemoteFile,
    offset: u64,
    len: u32,
) -> Result<Chunk, FetchError> {
    let by_sum = |sum: &str| query::by_sum(db, sum)?.ok_or_else(|| FetchError::NoSum(sum.to_string()));
    let (id, still) = match file {
        RemoteFile::Video { id } => (*id, None),
        RemoteFile::Still { index, .. } | RemoteFile::StillBySum { index, .. } if *index > crate::preview::STRIP => {
            return Err(FetchError::NoStill(*index));
        }
        RemoteFile::Still { id, index } => (*id, Some(*index)),
        RemoteFile::StillBySum { sha256, index } => (by_sum(sha256)?, Some(*index)),
    };
    let (task, _) = query::show(db, id)?;
    let video = task.file_path.map(PathBuf::from).filter(|p| p.is_file()).ok_or(FetchError::NoFile(id))?;
    let path = match (still, previewer, &task.sha256) {
        (None, ..) => video,
        (Some(index), Some(previewer), Some(sha)) => {
            previewer.ensure(&video, sha)?;
            let paths = crate::preview::StillPaths::of(&crate::preview::cache::folder(&previewer.cache_dir, sha)?);
            if index == 0 { paths.poster } else { paths.strip[index - 1].clone() }
        }
        (Some(_), ..) => return Err(FetchError::NoFile(id)),
    };
    read_range(&path, offset, len.min(MAX_CHUNK))
}

fn read_range(path: &Path, offset: u64, len: u32) -> Result<Chunk, FetchError> {
    let io = |source| FetchError::Io { path: path.to_path_buf(), source };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let total = f.metadata().map_err(io)?.len();
    f.seek(SeekFrom::Start(offset.min(total))).map_err(io)?;
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(u64::from(len)).read_to_end(&mut bytes).map_err(io)?;
    Ok(Chunk { total, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::tasks::{insert, save};
    use reel_store::{fixtures, open_writer};

    #[test]
    fn every_question_and_answer_round_trips() {
        let reads = vec![
            Read::Resolve { text: "12".into() },
            Read::List { state: Some(LocalState::Failed), batch: Some(3), limit: 50 },
            Read::Opening { since_ms: 5 },
            Read::History {
                query: HistoryQuery { text: "fox".into(), ..HistoryQuery::default() },
                cursor: Some(4),
                limit: 100,
            },
            Read::Ledger {
                since: None,
                pricing: Pricing { currency: "$".into(), per_second: [("m".into(), 0.5)].into() },
            },
            Read::Export { after: 0, limit: 1000 },
            Read::Files { ids: vec![1, 2] },
            Read::Sent { keys: vec!["k1".into()], but_failed: false },
            Read::BySum { sha256: "ab".repeat(32) },
            Read::Tagged { from: "agent-".into(), to: "agent.".into(), since_ms: 5 },
        ];
        for r in reads {
            let line = serde_json::to_string(&r).expect("encodes");
            assert_eq!(serde_json::from_str::<Read>(&line).expect("decodes"), r);
        }
        let rec = fixtures::record(3, LocalState::Downloaded);
        let found = vec![
            Found::Id(3),
            Found::Changes(Changes { tasks: vec![rec.clone()], mark: 40 }),
            Found::Show(Box::new(rec.clone()), vec![EventRecord { at: 1, state: "queued".into(), detail: None }]),
            Found::History(vec![HistoryRow { record: rec.clone(), file_present: Some(true) }]),
            Found::Lineage(None, vec![rec]),
            Found::Spent(1.5),
            Found::Files(vec![(3, false)]),
            Found::Keys(vec!["k1".into()]),
        ];
        for f in found {
            let line = serde_json::to_string(&f).expect("encodes");
            assert_eq!(serde_json::from_str::<Found>(&line).expect("decodes"), f);
        }
    }

    #[test]
    fn only_a_tasks_saved_file_is_served_in_ranges() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("reel.db");
        let conn = open_writer(&db).expect("db");
        let mut saved = insert(&conn, &fixtures::new_task("a fox")).expect("task");
        let none = insert(&conn, &fixtures::new_task("a wolf")).expect("task");
        let video = dir.path().join("v.mp4");
        std::fs::write(&video, b"0123456789").expect("video");
        saved.file_path = Some(video.display().to_string());
        saved.state = LocalState::Downloaded;
        save(&conn, &saved).expect("save");
        let get = |file: RemoteFile, offset, len| fetch(&db, None, &file, offset, len);
        let chunk = get(RemoteFile::Video { id: saved.id }, 3, 4).expect("a range");
        assert_eq!((chunk.total, chunk.bytes.as_slice()), (10, b"3456".as_slice()));
        let tail = get(RemoteFile::Video { id: saved.id }, 8, 100).expect("the end");
        assert_eq!(tail.bytes, b"89");
        assert!(get(RemoteFile::Video { id: saved.id }, 20, 4).expect("past the end").bytes.is_empty());
        assert!(matches!(get(RemoteFile::Video { id: none.id }, 0, 4), Err(FetchError::NoFile(_))));
        assert!(matches!(get(RemoteFile::Video { id: 999 }, 0, 4), Err(FetchError::Query(QueryError::NoMatch(_)))));
        assert!(matches!(get(RemoteFile::Still { id: saved.id, index: 9 }, 0, 4), Err(FetchError::NoStill(9))));
        let unknown = RemoteFile::StillBySum { sha256: "ab".repeat(32), index: 0 };
        assert!(matches!(get(unknown, 0, 4), Err(FetchError::NoSum(_))), "only a journaled sum is served");
        assert!(
            matches!(get(RemoteFile::Still { id: saved.id, index: 0 }, 0, 4), Err(FetchError::NoFile(_))),
            "no previews without a previewer or a sum"
        );
        std::fs::remove_file(&video).expect("rm");
        assert!(matches!(get(RemoteFile::Video { id: saved.id }, 0, 4), Err(FetchError::NoFile(_))), "gone since");
    }
}
