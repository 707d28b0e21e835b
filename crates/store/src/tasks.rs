//! Task rows and their events: insert, save, look up.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StoreError;
use super::state::LocalState;
use reel_rules::rendered::{Asked, Rendered, difference};

/// A media item as stored: what was sent plus the duration the user stated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaRecord {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// The local file it was uploaded from, and the object holding it (rows before local
    /// files have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<reel_rules::LocalOrigin>,
}

/// A task about to be submitted.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    pub parent_id: Option<i64>,
    /// The batch it is sent in (see [`TaskRecord::batch_id`]); [`insert_batch`] sets it.
    pub batch_id: Option<i64>,
    pub idempotency_key: String,
    pub profile: Option<String>,
    pub base_url: String,
    pub model: String,
    pub prompt: String,
    pub negative_prompt: Option<String>,
    pub seconds: i64,
    pub resolution: String,
    pub ratio: String,
    pub watermark: bool,
    pub media: Vec<MediaRecord>,
    pub billed_seconds: Option<f64>,
    pub created_at: i64,
    /// What the task asks for, as a key (`batch::key`): the same content gives the same key,
    /// so a batch run again can tell which of its tasks were sent.
    pub row_key: Option<String>,
}

/// One row of `tasks`. Times ending in `_at` are Unix milliseconds unless named `remote_`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: i64,
    pub parent_id: Option<i64>,
    /// The tasks one submission made (copies, a grid, several sent again at once) share the id
    /// of the first of them; a task sent alone, and every task journaled before batches were
    /// recorded, has none.
    #[serde(default)]
    pub batch_id: Option<i64>,
    pub remote_id: Option<String>,
    pub idempotency_key: String,
    pub profile: Option<String>,
    pub base_url: String,
    pub model: String,
    pub prompt: String,
    pub negative_prompt: Option<String>,
    pub seconds: i64,
    pub resolution: String,
    pub ratio: String,
    pub watermark: bool,
    pub media: Vec<MediaRecord>,
    pub billed_seconds: Option<f64>,
    pub state: LocalState,
    pub remote_status: Option<String>,
    pub progress: Option<f64>,
    pub created_at: i64,
    pub submitted_at: Option<i64>,
    pub remote_created_at: Option<i64>,
    pub remote_completed_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub url: Option<String>,
    pub url_deadline: Option<i64>,
    pub error: Option<Value>,
    pub file_path: Option<String>,
    pub file_size: Option<i64>,
    pub sha256: Option<String>,
    pub poll_count: i64,
    pub poll_failures: i64,
    pub last_polled_at: Option<i64>,
    pub next_poll_at: Option<i64>,
    pub download_attempts: i64,
    pub url_refreshes: i64,
    pub updated_at: i64,
    /// Rating, pick and tags (see `review`), as fields of the record; a record from before
    /// reviews has none.
    #[serde(flatten)]
    pub review: super::Review,
    /// The sha256 of the saved file when it is not the service's bytes (`sha256`): the file
    /// was tagged with its provenance after those were verified.
    #[serde(default)]
    pub file_sha256: Option<String>,
    /// Where `reel import` found the file this entry was rebuilt from; `None` for a task this
    /// history sent itself.
    #[serde(default)]
    pub imported_from: Option<String>,
    /// What the service says it rendered (size, seconds, usage), when it said; a record from
    /// before this was kept has none.
    #[serde(default)]
    pub rendered: Rendered,
}

/// The key of a task's `error` that names the task holding the same service id: the service
/// gave two tasks one id, and this one is lost and followed there.
pub const DUPLICATE_OF: &str = "duplicate_of";

impl TaskRecord {
    /// What it asked for, as the service's account of its output is compared with.
    pub fn asked(&self) -> Asked<'_> {
        Asked { resolution: &self.resolution, ratio: &self.ratio, seconds: self.seconds }
    }

    /// Its media as billing counts them: each kind reel knows, with its stated seconds.
    pub fn billed_media(&self) -> Vec<(reel_rules::MediaKind, Option<f64>)> {
        self.media.iter().filter_map(|m| reel_rules::MediaKind::parse(&m.kind).map(|k| (k, m.seconds))).collect()
    }

    /// Whether the service says it rendered other than what was asked.
    pub fn rendered_otherwise(&self) -> bool {
        difference(self.asked(), &self.rendered).is_some()
    }

    /// The task that holds this task's service id, when the service gave both the same id.
    pub fn duplicate_of(&self) -> Option<i64> {
        self.error.as_ref()?.get(DUPLICATE_OF)?.as_i64()
    }

    /// The row as `insert` writes it for `t`, before anything else happens to it.
    pub fn journaled(id: i64, t: NewTask, state: LocalState) -> TaskRecord {
        TaskRecord {
            id,
            parent_id: t.parent_id,
            batch_id: t.batch_id,
            remote_id: None,
            idempotency_key: t.idempotency_key,
            profile: t.profile,
            base_url: t.base_url,
            model: t.model,
            prompt: t.prompt,
            negative_prompt: t.negative_prompt,
            seconds: t.seconds,
            resolution: t.resolution,
            ratio: t.ratio,
            watermark: t.watermark,
            media: t.media,
            billed_seconds: t.billed_seconds,
            state,
            remote_status: None,
            progress: None,
            created_at: t.created_at,
            submitted_at: None,
            remote_created_at: None,
            remote_completed_at: None,
            finished_at: None,
            url: None,
            url_deadline: None,
            error: None,
            file_path: None,
            file_size: None,
            sha256: None,
            poll_count: 0,
            poll_failures: 0,
            last_polled_at: None,
            next_poll_at: None,
            download_attempts: 0,
            url_refreshes: 0,
            updated_at: t.created_at,
            review: super::Review::default(),
            file_sha256: None,
            imported_from: None,
            rendered: Rendered::default(),
        }
    }
}

/// One row of `events`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    pub at: i64,
    pub state: String,
    pub detail: Option<String>,
}

/// A `TaskRecord`'s columns in `from_row`'s order, read from `tasks t`: numbered labels and
/// states are turned back into their text here.
pub(crate) const COLUMNS: &str = "t.id, t.parent_id, t.remote_id, t.idempotency_key, \
    (SELECT text FROM labels WHERE id = t.profile_id), (SELECT text FROM labels WHERE id = t.base_url_id), \
    (SELECT text FROM labels WHERE id = t.model_id), t.prompt, t.negative_prompt, t.seconds, \
    (SELECT text FROM labels WHERE id = t.resolution_id), (SELECT text FROM labels WHERE id = t.ratio_id), \
    t.watermark, coalesce(t.media, '[]'), t.billed_seconds, (SELECT name FROM states WHERE code = t.state_code), t.remote_status, \
    t.progress, t.created_at, t.submitted_at, t.remote_created_at, t.remote_completed_at, t.finished_at, t.url, \
    t.url_deadline, t.error, coalesce((SELECT text FROM labels WHERE id = t.file_dir_id), '') || t.file_name, \
    t.file_size, t.sha256, t.poll_count, t.poll_failures, t.last_polled_at, \
    t.next_poll_at, t.download_attempts, t.url_refreshes, t.updated_at, t.batch_id, t.rating, t.picked, \
    (SELECT group_concat(tag, ' ' ORDER BY tag) FROM task_tags WHERE task_id = t.id), t.file_sha256, t.imported_from, \
    t.rendered_size, t.rendered_seconds, t.usage";

/// A path as its folder (up to and including the last separator, kept as a label) and the
/// rest: joined, they give the path back exactly.
fn split_path(path: &str) -> (Option<&str>, &str) {
    match path.rfind(['/', '\\']) {
        Some(i) => (Some(&path[..=i]), &path[i + 1..]),
        None => (None, path),
    }
}

/// The number of a label (a model, base URL, profile, resolution or ratio), added if new.
fn label(conn: &Connection, text: &str) -> Result<i64, StoreError> {
    let known =
        conn.prepare_cached("SELECT id FROM labels WHERE text = ?1")?.query_row([text], |r| r.get(0)).optional()?;
    match known {
        Some(id) => Ok(id),
        None => {
            conn.prepare_cached("INSERT INTO labels (text) VALUES (?1)")?.execute([text])?;
            Ok(conn.last_insert_rowid())
        }
    }
}

pub(super) fn bad_column(i: usize, e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
}

pub(crate) fn from_row(r: &Row<'_>) -> rusqlite::Result<TaskRecord> {
    let media: String = r.get(13)?;
    let state: String = r.get(15)?;
    let error: Option<String> = r.get(25)?;
    Ok(TaskRecord {
        id: r.get(0)?,
        parent_id: r.get(1)?,
        batch_id: r.get(36)?,
        remote_id: r.get(2)?,
        idempotency_key: r.get(3)?,
        profile: r.get(4)?,
        base_url: r.get(5)?,
        model: r.get(6)?,
        prompt: r.get(7)?,
        negative_prompt: r.get(8)?,
        seconds: r.get(9)?,
        resolution: r.get(10)?,
        ratio: r.get(11)?,
        watermark: r.get(12)?,
        media: serde_json::from_str(&media).map_err(|e| bad_column(13, e))?,
        billed_seconds: r.get(14)?,
        state: state.parse::<LocalState>().map_err(|e| bad_column(15, e))?,
        remote_status: r.get(16)?,
        progress: r.get(17)?,
        created_at: r.get(18)?,
        submitted_at: r.get(19)?,
        remote_created_at: r.get(20)?,
        remote_completed_at: r.get(21)?,
        finished_at: r.get(22)?,
        url: r.get(23)?,
        url_deadline: r.get(24)?,
        error: error.map(|e| serde_json::from_str(&e).unwrap_or(Value::String(e))),
        file_path: r.get(26)?,
        file_size: r.get(27)?,
        sha256: r.get(28)?,
        poll_count: r.get(29)?,
        poll_failures: r.get(30)?,
        last_polled_at: r.get(31)?,
        next_poll_at: r.get(32)?,
        download_attempts: r.get(33)?,
        url_refreshes: r.get(34)?,
        updated_at: r.get(35)?,
        review: super::Review {
            rating: r.get(37)?,
            picked: r.get(38)?,
            tags: r.get::<_, Option<String>>(39)?.map(|t| t.split(' ').map(String::from).collect()).unwrap_or_default(),
        },
        file_sha256: r.get(40)?,
        imported_from: r.get(41)?,
        rendered: Rendered {
            size: r.get(42)?,
            seconds: r.get(43)?,
            usage: r.get::<_, Option<String>>(44)?.and_then(|u| serde_json::from_str(&u).ok()),
        },
    })
}

/// Inserts the tasks of one submission, in order. Several make a batch: each records the id
/// of the first as its `batch_id` (unless the first came with one to join). A single task keeps
/// the batch it was given, if any.
pub fn insert_batch(conn: &Connection, rows: &[NewTask]) -> Result<Vec<TaskRecord>, StoreError> {
    let Some(first) = rows.first() else { return Ok(Vec::new()) };
    // One statement and one label lookup per distinct text for the whole batch, and no read
    // back: the row written is the row returned (`TaskRecord::journaled`).
    let mut statement = conn.prepare_cached(
        "INSERT INTO tasks (parent_id, idempotency_key, profile_id, base_url_id, model_id, prompt, negative_prompt, \
         seconds, resolution_id, ratio_id, watermark, media, billed_seconds, state_code, created_at, updated_at, \
         batch_id, row_key) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, (SELECT code FROM states WHERE name = ?14), \
         ?15, ?15, ?16, ?17)",
    )?;
    let mut labels: HashMap<&str, i64> = HashMap::new();
    let mut batch = first.batch_id;
    let mut out = Vec::with_capacity(rows.len());
    for t in rows {
        let media = match t.media.is_empty() {
            true => None,
            false => Some(serde_json::to_string(&t.media).map_err(|e| StoreError::Encode(e.to_string()))?),
        };
        let profile = t.profile.as_deref().map(|p| cached_label(conn, &mut labels, p)).transpose()?;
        statement.execute(params![
            t.parent_id,
            t.idempotency_key,
            profile,
            cached_label(conn, &mut labels, &t.base_url)?,
            cached_label(conn, &mut labels, &t.model)?,
            t.prompt,
            t.negative_prompt,
            t.seconds,
            cached_label(conn, &mut labels, &t.resolution)?,
            cached_label(conn, &mut labels, &t.ratio)?,
            t.watermark,
            media,
            t.billed_seconds,
            LocalState::Waiting.as_str(),
            t.created_at,
            batch,
            t.row_key,
        ])?;
        let id = conn.last_insert_rowid();
        if batch.is_none() && rows.len() > 1 {
            // The batch is named after its first task.
            conn.prepare_cached("UPDATE tasks SET batch_id = id WHERE id = ?1")?.execute([id])?;
            batch = Some(id);
        }
        add_event(conn, id, t.created_at, LocalState::Waiting.as_str(), None)?;
        out.push(TaskRecord::journaled(id, NewTask { batch_id: batch, ..t.clone() }, LocalState::Waiting));
    }
    Ok(out)
}

/// A label's id, asking the database once per text in a batch.
fn cached_label<'a>(conn: &Connection, known: &mut HashMap<&'a str, i64>, text: &'a str) -> Result<i64, StoreError> {
    if let Some(id) = known.get(text) {
        return Ok(*id);
    }
    let id = label(conn, text)?;
    known.insert(text, id);
    Ok(id)
}

/// Inserts a task as `submitting`, with its first event, and returns the row.
pub fn insert(conn: &Connection, t: &NewTask) -> Result<TaskRecord, StoreError> {
    insert_batch(conn, std::slice::from_ref(t))?.pop().ok_or(StoreError::Missing(0))
}

/// Writes every mutable column of a task.
pub fn save(conn: &Connection, t: &TaskRecord) -> Result<(), StoreError> {
    let error = t.error.as_ref().map(Value::to_string);
    let (dir, name) = match t.file_path.as_deref().map(split_path) {
        Some((dir, name)) => (dir.map(|d| label(conn, d)).transpose()?, Some(name)),
        None => (None, None),
    };
    let changed = conn.prepare_cached(
        "UPDATE tasks SET remote_id = ?2, state_code = (SELECT code FROM states WHERE name = ?3), remote_status = ?4, progress = ?5, submitted_at = ?6, \
         remote_created_at = ?7, remote_completed_at = ?8, finished_at = ?9, url = ?10, url_deadline = ?11, \
         error = ?12, file_dir_id = ?13, file_name = ?23, file_size = ?14, sha256 = ?15, poll_count = ?16, poll_failures = ?17, \
         last_polled_at = ?18, next_poll_at = ?19, download_attempts = ?20, url_refreshes = ?21, updated_at = ?22, \
         file_sha256 = ?24, billed_seconds = ?25, rendered_size = ?26, rendered_seconds = ?27, usage = ?28, \
         rendered_otherwise = ?29 WHERE id = ?1",
    )?
    .execute(params![
            t.id,
            t.remote_id,
            t.state.as_str(),
            t.remote_status,
            t.progress,
            t.submitted_at,
            t.remote_created_at,
            t.remote_completed_at,
            t.finished_at,
            t.url,
            t.url_deadline,
            error,
            dir,
            t.file_size,
            t.sha256,
            t.poll_count,
            t.poll_failures,
            t.last_polled_at,
            t.next_poll_at,
            t.download_attempts,
            t.url_refreshes,
            t.updated_at,
            name,
            t.file_sha256,
            t.billed_seconds,
            t.rendered.size,
            t.rendered.seconds,
            t.rendered.usage.as_ref().map(Value::to_string),
            t.rendered_otherwise(),
        ])?;
    if changed == 0 {
        return Err(StoreError::Missing(t.id));
    }
    Ok(())
}

/// An event goes after the task's others of the same millisecond. A state this reel names is
/// kept as its number, any other text as it is. The `+` keeps SQLite from planning the
/// statement again on every call for the values bound (it would, to consult index statistics).
const ADD_EVENT: &str = "INSERT INTO events (task_id, at, seq, state, detail) VALUES (?1, ?2, \
    coalesce((SELECT max(seq) FROM events WHERE task_id = +?1 AND at = +?2) + 1, 0), \
    coalesce((SELECT code FROM states WHERE name = ?3), ?3), ?4)";

pub fn add_event(
    conn: &Connection,
    task_id: i64,
    at: i64,
    state: &str,
    detail: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached(ADD_EVENT)?.execute(params![task_id, at, state, detail])?;
    Ok(())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<TaskRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

fn collect(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Result<Vec<TaskRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Newest first (ids grow with creation time), optionally only in one state, only of one batch.
pub fn list(
    conn: &Connection,
    state: Option<LocalState>,
    batch: Option<i64>,
    limit: usize,
) -> Result<Vec<TaskRecord>, StoreError> {
    let mut conditions = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(s) = state {
        conditions.push("t.state_code = (SELECT code FROM states WHERE name = ?)");
        args.push(s.as_str().to_string().into());
    }
    if let Some(b) = batch {
        conditions.push("t.batch_id = ?");
        args.push(b.into());
    }
    args.push((limit.min(i64::MAX as usize) as i64).into());
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    // Only the fixed conditions above are joined; the values are bound.
    collect(
        conn,
        &format!("SELECT {COLUMNS} FROM tasks t {filter} ORDER BY t.id DESC LIMIT ?"),
        rusqlite::params_from_iter(args),
    )
}

/// Every task that is not settled, oldest first: what the engine resumes at start.
pub fn unfinished(conn: &Connection) -> Result<Vec<TaskRecord>, StoreError> {
    let states: Vec<&str> = LocalState::ALL.iter().filter(|s| !s.is_settled()).map(|s| s.as_str()).collect();
    let placeholders = vec!["?"; states.len()].join(", ");
    collect(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM tasks t \
             WHERE t.state_code IN (SELECT code FROM states WHERE name IN ({placeholders})) ORDER BY t.id"
        ),
        rusqlite::params_from_iter(states),
    )
}

/// Another task of `base_url` that has `remote_id` (not `except`), if one does.
pub fn holder_of(conn: &Connection, remote_id: &str, base_url: &str, except: i64) -> Result<Option<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM tasks WHERE remote_id = ?1 AND base_url_id = (SELECT id FROM labels WHERE text = ?2) \
         AND id != ?3 LIMIT 1",
    )?;
    Ok(stmt.query_row(params![remote_id, base_url, except], |r| r.get(0)).optional()?)
}

/// The tasks that are unfinished or changed since `since` (Unix ms), at most `limit` of the
/// latest, oldest first.
pub fn unfinished_or_since(conn: &Connection, since: i64, limit: usize) -> Result<Vec<TaskRecord>, StoreError> {
    let mut out = unfinished(conn)?;
    let seen: HashSet<i64> = out.iter().map(|t| t.id).collect();
    let recent = collect(
        conn,
        &format!("SELECT {COLUMNS} FROM tasks t WHERE t.updated_at >= ?1 ORDER BY t.updated_at DESC LIMIT ?2"),
        params![since, limit as i64],
    )?;
    out.extend(recent.into_iter().filter(|t| !seen.contains(&t.id)));
    out.sort_by_key(|t| t.id);
    Ok(out)
}

pub fn events(conn: &Connection, task_id: i64) -> Result<Vec<EventRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT at, CASE WHEN typeof(state) = 'integer' THEN (SELECT name FROM states WHERE code = e.state) \
         ELSE state END, detail FROM events e WHERE task_id = ?1 ORDER BY at, seq",
    )?;
    let rows = stmt
        .query_map([task_id], |r| Ok(EventRecord { at: r.get(0)?, state: r.get(1)?, detail: r.get(2)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Escapes GLOB metacharacters so user text matches literally.
fn glob_literal(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' => format!("[{c}]"),
            c => c.to_string(),
        })
        .collect()
}

/// The tasks an ID the user typed may mean: the local id, the remote id, or a prefix of either.
/// Exact matches win over prefixes.
pub fn resolve(conn: &Connection, text: &str) -> Result<Vec<i64>, StoreError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let ids = |sql: &str, arg: &str| -> Result<Vec<i64>, StoreError> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map([arg], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
        Ok(rows)
    };
    if let Ok(n) = text.parse::<i64>()
        && get(conn, n)?.is_some()
    {
        return Ok(vec![n]);
    }
    let exact = ids("SELECT id FROM tasks WHERE remote_id = ?1", text)?;
    if !exact.is_empty() {
        return Ok(exact);
    }
    let pattern = format!("{}*", glob_literal(text));
    let mut found = ids("SELECT id FROM tasks WHERE remote_id GLOB ?1 LIMIT 20", &pattern)?;
    if text.bytes().all(|b| b.is_ascii_digit()) {
        found.extend(ids("SELECT id FROM tasks WHERE CAST(id AS TEXT) GLOB ?1 LIMIT 20", &pattern)?);
    }
    found.sort_unstable();
    found.dedup();
    Ok(found)
}

/// Render times in seconds per model (remote completion minus remote creation), newest first.
pub fn render_times(conn: &Connection, per_model: usize) -> Result<HashMap<String, Vec<f64>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT (SELECT text FROM labels WHERE id = t.model_id), t.remote_completed_at - t.remote_created_at \
         FROM tasks t WHERE t.remote_completed_at IS NOT NULL AND t.remote_created_at IS NOT NULL \
         ORDER BY t.id DESC LIMIT 5000",
    )?;
    let mut out: HashMap<String, Vec<f64>> = HashMap::new();
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (model, secs) = row?;
        let list = out.entry(model).or_default();
        if list.len() < per_model && secs >= 0 {
            list.push(secs as f64);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
