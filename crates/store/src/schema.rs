//! The database schema as numbered migrations; `PRAGMA user_version` records how many ran.

use rusqlite::Connection;

use super::StoreError;

/// Each entry migrates from version `i` to `i + 1`. Never edit a released entry; add one.
pub const MIGRATIONS: &[&str] = &[
    // 1: tasks, their events, full-text search over prompts.
    r#"
    CREATE TABLE tasks (
        id                  INTEGER PRIMARY KEY,
        parent_id           INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
        remote_id           TEXT,
        idempotency_key     TEXT NOT NULL,
        profile             TEXT,
        base_url            TEXT NOT NULL,
        model               TEXT NOT NULL,
        prompt              TEXT NOT NULL,
        negative_prompt     TEXT,
        seconds             INTEGER NOT NULL,
        resolution          TEXT NOT NULL,
        ratio               TEXT NOT NULL,
        watermark           INTEGER NOT NULL,
        media               TEXT NOT NULL,          -- JSON array of {type, url, seconds}
        billed_seconds      REAL,                   -- NULL when unknown before rendering
        state               TEXT NOT NULL,
        remote_status       TEXT,                   -- the status as the service spelled it
        progress            REAL,
        created_at          INTEGER NOT NULL,       -- Unix ms, local clock
        submitted_at        INTEGER,                -- Unix ms, when the service accepted it
        remote_created_at   INTEGER,                -- Unix s, as the service sent it
        remote_completed_at INTEGER,                -- Unix s, as the service sent it
        finished_at         INTEGER,                -- Unix ms, when the task reached an end state
        url                 TEXT,
        url_deadline        INTEGER,                -- Unix ms after which the URL may not work
        error               TEXT,                   -- JSON, whatever shape the service used
        file_path           TEXT,
        file_size           INTEGER,
        sha256              TEXT,
        poll_count          INTEGER NOT NULL DEFAULT 0,
        poll_failures       INTEGER NOT NULL DEFAULT 0,
        last_polled_at      INTEGER,
        next_poll_at        INTEGER,
        download_attempts   INTEGER NOT NULL DEFAULT 0,
        url_refreshes       INTEGER NOT NULL DEFAULT 0,
        updated_at          INTEGER NOT NULL
    );
    -- Recovery at start and `reel list --status`: the tasks in a given state.
    CREATE INDEX tasks_by_state ON tasks(state);
    -- `reel list` and the history view: newest first.
    CREATE INDEX tasks_by_created ON tasks(created_at);
    -- Resolving an ID the user typed as a remote id or a prefix of one (GLOB 'prefix*').
    CREATE INDEX tasks_by_remote_id ON tasks(remote_id);
    -- Lineage: the tasks derived from a given one.
    CREATE INDEX tasks_by_parent ON tasks(parent_id);

    CREATE TABLE events (
        id      INTEGER PRIMARY KEY,
        task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        at      INTEGER NOT NULL,                   -- Unix ms
        state   TEXT NOT NULL,
        detail  TEXT
    );
    -- A task's timeline, oldest first (`reel show`, the detail pane).
    CREATE INDEX events_by_task ON events(task_id, at);

    CREATE VIRTUAL TABLE tasks_fts USING fts5(
        prompt, negative_prompt, content = 'tasks', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    );
    CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_update AFTER UPDATE OF prompt, negative_prompt ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    "#,
    // 2: history filters.
    r#"
    -- History filtered by model, newest first (keyset on id): WHERE model = ? AND id < ?.
    CREATE INDEX tasks_by_model ON tasks(model);
    "#,
    // 3: ids are never given twice (AUTOINCREMENT): a deleted newest task's id, its kept file
    // name and any screen that still shows it can never be mistaken for the next task's. And
    // deleting a parent drops the link: children already journaled lose it by ON DELETE SET
    // NULL; a task journaled later with the deleted parent (a form that was varying it, a
    // second client) is kept with no parent instead of failing the foreign key.
    r#"
    CREATE TABLE tasks_new (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        parent_id           INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
        remote_id           TEXT,
        idempotency_key     TEXT NOT NULL,
        profile             TEXT,
        base_url            TEXT NOT NULL,
        model               TEXT NOT NULL,
        prompt              TEXT NOT NULL,
        negative_prompt     TEXT,
        seconds             INTEGER NOT NULL,
        resolution          TEXT NOT NULL,
        ratio               TEXT NOT NULL,
        watermark           INTEGER NOT NULL,
        media               TEXT NOT NULL,          -- JSON array of {type, url, seconds}
        billed_seconds      REAL,                   -- NULL when unknown before rendering
        state               TEXT NOT NULL,
        remote_status       TEXT,                   -- the status as the service spelled it
        progress            REAL,
        created_at          INTEGER NOT NULL,       -- Unix ms, local clock
        submitted_at        INTEGER,                -- Unix ms, when the service accepted it
        remote_created_at   INTEGER,                -- Unix s, as the service sent it
        remote_completed_at INTEGER,                -- Unix s, as the service sent it
        finished_at         INTEGER,                -- Unix ms, when the task reached an end state
        url                 TEXT,
        url_deadline        INTEGER,                -- Unix ms after which the URL may not work
        error               TEXT,                   -- JSON, whatever shape the service used
        file_path           TEXT,
        file_size           INTEGER,
        sha256              TEXT,
        poll_count          INTEGER NOT NULL DEFAULT 0,
        poll_failures       INTEGER NOT NULL DEFAULT 0,
        last_polled_at      INTEGER,
        next_poll_at        INTEGER,
        download_attempts   INTEGER NOT NULL DEFAULT 0,
        url_refreshes       INTEGER NOT NULL DEFAULT 0,
        updated_at          INTEGER NOT NULL
    );
    INSERT INTO tasks_new SELECT * FROM tasks;
    DROP TABLE tasks;
    ALTER TABLE tasks_new RENAME TO tasks;
    -- Recovery at start and `reel list --status`: the tasks in a given state.
    CREATE INDEX tasks_by_state ON tasks(state);
    -- `reel list` and the history view: newest first.
    CREATE INDEX tasks_by_created ON tasks(created_at);
    -- Resolving an ID the user typed as a remote id or a prefix of one (GLOB 'prefix*').
    CREATE INDEX tasks_by_remote_id ON tasks(remote_id);
    -- Lineage: the tasks derived from a given one.
    CREATE INDEX tasks_by_parent ON tasks(parent_id);
    -- History filtered by model, newest first (keyset on id): WHERE model = ? AND id < ?.
    CREATE INDEX tasks_by_model ON tasks(model);
    CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_update AFTER UPDATE OF prompt, negative_prompt ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    CREATE TRIGGER tasks_drop_missing_parent AFTER INSERT ON tasks
    WHEN new.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks WHERE id = new.parent_id)
    BEGIN
        UPDATE tasks SET parent_id = NULL WHERE id = new.id;
    END;
    "#,
    // 4: what changed while no dashboard was open.
    r#"
    -- The dashboard at start: the tasks that changed since a given time (WHERE updated_at >= ?).
    CREATE INDEX tasks_by_updated ON tasks(updated_at);
    "#,
    // 5: a lighter history. Search matches words by prefix and never weighs by length, so the
    // full-text index keeps no column sizes (columnsize=0). Only two-letter prefixes get an
    // index of their own: a longer prefix is a narrow range of terms, read from the main index
    // about as fast, while the three-letter prefix index alone took a third of the space.
    r#"
    DROP TABLE tasks_fts;
    CREATE VIRTUAL TABLE tasks_fts USING fts5(
        prompt, negative_prompt, content = 'tasks', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2', columnsize = 0
    );
    INSERT INTO tasks_fts(tasks_fts) VALUES ('rebuild');
    DROP INDEX tasks_by_parent;
    -- Lineage: the tasks derived from a given one. Few tasks have a parent: only those are kept.
    CREATE INDEX tasks_by_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
    "#,
    // 6: a lighter journal. Texts that repeat on every row (model, base URL, profile,
    // resolution, ratio, the folder of a saved file) are kept once in `labels` and rows hold
    // their number; states are numbered in `states`, on tasks and on events alike (an event
    // state that is not a known name stays text); no media is NULL rather than '[]'. Newest
    // first is id order (ids grow with creation time), so nothing indexes the creation time.
    // A task's events are stored together, in order, without a separate index. The full-text
    // index drops its two-letter prefix index (half its size): a one- or two-letter word is
    // read from the main index like any longer prefix.
    r#"
    CREATE TABLE labels (
        id   INTEGER PRIMARY KEY,
        text TEXT NOT NULL UNIQUE
    );
    INSERT INTO labels (text)
        SELECT model FROM tasks UNION SELECT base_url FROM tasks UNION SELECT resolution FROM tasks
        UNION SELECT ratio FROM tasks UNION SELECT profile FROM tasks WHERE profile IS NOT NULL
        UNION SELECT rtrim(file_path, replace(replace(file_path, '/', ''), '\', '')) FROM tasks
            WHERE rtrim(file_path, replace(replace(file_path, '/', ''), '\', '')) <> '';
    CREATE TABLE states (
        code INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
    );
    -- SQLite stores 0 and 1 in no bytes at all: they go to the states most tasks end in.
    INSERT INTO states (code, name) VALUES
        (0, 'downloaded'), (1, 'failed'), (2, 'waiting'), (3, 'submitting'), (4, 'submit_unknown'),
        (5, 'rejected'), (6, 'queued'), (7, 'in_progress'), (8, 'unrecognized'), (9, 'stalled'),
        (10, 'completed'), (11, 'downloading'), (12, 'expired'), (13, 'download_failed'), (14, 'lost');

    CREATE TABLE tasks_new (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        parent_id           INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
        remote_id           TEXT,
        idempotency_key     TEXT NOT NULL,
        profile_id          INTEGER,                -- labels.id
        base_url_id         INTEGER NOT NULL,       -- labels.id
        model_id            INTEGER NOT NULL,       -- labels.id
        prompt              TEXT NOT NULL,
        negative_prompt     TEXT,
        seconds             INTEGER NOT NULL,
        resolution_id       INTEGER NOT NULL,       -- labels.id
        ratio_id            INTEGER NOT NULL,       -- labels.id
        watermark           INTEGER NOT NULL,
        media               TEXT,                   -- JSON array of {type, url, seconds}; NULL for none
        billed_seconds      REAL,                   -- NULL when unknown before rendering
        state_code          INTEGER NOT NULL,       -- states.code
        remote_status       TEXT,                   -- the status as the service spelled it
        progress            REAL,
        created_at          INTEGER NOT NULL,       -- Unix ms, local clock
        submitted_at        INTEGER,                -- Unix ms, when the service accepted it
        remote_created_at   INTEGER,                -- Unix s, as the service sent it
        remote_completed_at INTEGER,                -- Unix s, as the service sent it
        finished_at         INTEGER,                -- Unix ms, when the task reached an end state
        url                 TEXT,
        url_deadline        INTEGER,                -- Unix ms after which the URL may not work
        error               TEXT,                   -- JSON, whatever shape the service used
        file_dir_id         INTEGER,                -- labels.id: the path up to its last separator
        file_name           TEXT,                   -- the rest of the path
        file_size           INTEGER,
        sha256              TEXT,
        poll_count          INTEGER NOT NULL DEFAULT 0,
        poll_failures       INTEGER NOT NULL DEFAULT 0,
        last_polled_at      INTEGER,
        next_poll_at        INTEGER,
        download_attempts   INTEGER NOT NULL DEFAULT 0,
        url_refreshes       INTEGER NOT NULL DEFAULT 0,
        updated_at          INTEGER NOT NULL
    );
    -- The next id stays past every id ever given, even a deleted newest task's.
    INSERT INTO sqlite_sequence (name, seq) SELECT 'tasks_new', seq FROM sqlite_sequence WHERE name = 'tasks';
    INSERT INTO tasks_new SELECT
        id, parent_id, remote_id, idempotency_key,
        (SELECT id FROM labels WHERE text = profile), (SELECT id FROM labels WHERE text = base_url),
        (SELECT id FROM labels WHERE text = model), prompt, negative_prompt, seconds,
        (SELECT id FROM labels WHERE text = resolution), (SELECT id FROM labels WHERE text = ratio),
        watermark, nullif(media, '[]'), billed_seconds, (SELECT code FROM states WHERE name = state),
        remote_status, progress, created_at, submitted_at, remote_created_at, remote_completed_at,
        finished_at, url, url_deadline, error,
        (SELECT id FROM labels WHERE text = rtrim(file_path, replace(replace(file_path, '/', ''), '\', ''))),
        substr(file_path, length(rtrim(file_path, replace(replace(file_path, '/', ''), '\', ''))) + 1),
        file_size, sha256, poll_count, poll_failures, last_polled_at, next_poll_at, download_attempts,
        url_refreshes, updated_at
        FROM tasks ORDER BY id;
    DROP TABLE tasks_fts;
    DROP TABLE tasks;
    ALTER TABLE tasks_new RENAME TO tasks;
    CREATE VIRTUAL TABLE tasks_fts USING fts5(
        prompt, negative_prompt, content = 'tasks', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2', columnsize = 0
    );
    INSERT INTO tasks_fts(tasks_fts) VALUES ('rebuild');
    -- Recovery at start, `reel list --status` and the history's state filters.
    CREATE INDEX tasks_by_state ON tasks(state_code);
    -- Resolving an ID the user typed as a remote id or a prefix of one (GLOB 'prefix*').
    CREATE INDEX tasks_by_remote_id ON tasks(remote_id);
    -- Lineage: the tasks derived from a given one. Few tasks have a parent: only those are kept.
    CREATE INDEX tasks_by_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
    -- History filtered by model, newest first (keyset on id): WHERE model_id = ? AND id < ?.
    CREATE INDEX tasks_by_model ON tasks(model_id);
    -- The dashboard at start: the tasks that changed since a given time (WHERE updated_at >= ?).
    CREATE INDEX tasks_by_updated ON tasks(updated_at);
    CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
    END;
    CREATE TRIGGER tasks_fts_update AFTER UPDATE OF prompt, negative_prompt ON tasks BEGIN
        INSERT INTO tasks_fts(tasks_fts, rowid, prompt, negative_prompt)
            VALUES ('delete', old.id, old.prompt, old.negative_prompt);
        INSERT INTO tasks_fts(rowid, prompt, negative_prompt) VALUES (new.id, new.prompt, new.negative_prompt);
    END;
    CREATE TRIGGER tasks_drop_missing_parent AFTER INSERT ON tasks
    WHEN new.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks WHERE id = new.parent_id)
    BEGIN
        UPDATE tasks SET parent_id = NULL WHERE id = new.id;
    END;

    CREATE TABLE events_new (
        task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        at      INTEGER NOT NULL,                   -- Unix ms
        seq     INTEGER NOT NULL,                   -- order among the task's events of the same ms
        state   NOT NULL,                           -- states.code, or the text of an unknown name
        detail  TEXT,
        PRIMARY KEY (task_id, at, seq)
    ) WITHOUT ROWID;
    INSERT INTO events_new SELECT
        task_id, at, row_number() OVER (PARTITION BY task_id, at ORDER BY id) - 1,
        coalesce((SELECT code FROM states WHERE name = state), state), detail
        FROM events;
    DROP TABLE events;
    ALTER TABLE events_new RENAME TO events;
    "#,
    // 7: the tasks one submission made (copies, a grid, several sent again at once) record the
    // batch they belong to: the id of its first task. Older rows have none (NULL).
    r#"
    ALTER TABLE tasks ADD COLUMN batch_id INTEGER;
    -- `reel list --batch ID`: the tasks of one batch. Only tasks of a batch are kept.
    CREATE INDEX tasks_by_batch ON tasks(batch_id) WHERE batch_id IS NOT NULL;
    "#,
    // 8: each task records its content key (a hash of what it asks for), so that running a
    // batch file again sends only the rows not sent yet. Older rows have none (NULL).
    r#"
    ALTER TABLE tasks ADD COLUMN row_key TEXT;
    -- `reel submit --from FILE`: which of a batch's tasks were sent already. Only keyed tasks are kept.
    CREATE INDEX tasks_by_row_key ON tasks(row_key) WHERE row_key IS NOT NULL;
    "#,
    // 9: what a person says of a take: a rating of 1 to 5, a pick (the winner of a batch or a
    // comparison) and tags, one row each. Older rows have none.
    r#"
    ALTER TABLE tasks ADD COLUMN rating INTEGER CHECK (rating BETWEEN 1 AND 5);
    ALTER TABLE tasks ADD COLUMN picked INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE task_tags (
        task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        tag     TEXT NOT NULL,                      -- normalised: lowercase, one word
        PRIMARY KEY (task_id, tag)
    ) WITHOUT ROWID;
    -- `tag:WORD` in the history: the tasks that carry a tag.
    CREATE INDEX task_tags_by_tag ON task_tags(tag, task_id);
    -- `rating:>=N` in the history, newest first: rated tasks in id order with their rating, so a
    -- range is read in order without sorting every rated task. Only rated tasks are kept.
    CREATE INDEX tasks_by_rating ON tasks(id, rating) WHERE rating IS NOT NULL;
    -- `picked` in the history. Only picked tasks are kept.
    CREATE INDEX tasks_by_picked ON tasks(picked) WHERE picked = 1;
    "#,
    // 10: the saved file may carry its provenance (MP4 metadata) and so differ from the bytes
    // the service sent: its own sha256 is kept beside theirs. A task rebuilt by `reel import`
    // says where it came from. Older rows have neither (NULL).
    r#"
    ALTER TABLE tasks ADD COLUMN file_sha256 TEXT;
    ALTER TABLE tasks ADD COLUMN imported_from TEXT;
    -- `reel import`: a file already in the history (as saved, tagged) is not imported again.
    CREATE INDEX tasks_by_file_sha256 ON tasks(file_sha256) WHERE file_sha256 IS NOT NULL;
    -- `reel import`: nor one whose bytes are those the service sent for a task.
    CREATE INDEX tasks_by_sha256 ON tasks(sha256) WHERE sha256 IS NOT NULL;
    "#,
    // 11: facts of the journal itself. `salt` makes the idempotency keys derived from content
    // this journal's own: the same prompt sent from two data folders is two requests.
    r#"
    CREATE TABLE journal_meta (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO journal_meta (name, value) VALUES ('salt', lower(hex(randomblob(16))));
    "#,
    // 12: a task the service cancelled has a state of its own. States are stored by number
    // (`state_code`), so the new name needs one; no row changes.
    r#"
    INSERT INTO states (code, name) VALUES (15, 'cancelled');
    "#,
    // 13: what the service says it rendered, when it says (gateways render at their vendor's
    // defaults when they drop what was asked): its size and seconds, its usage as it came, and
    // whether that differs from what was asked, so the ledger counts them without deciding again.
    // Older rows have none (NULL, 0).
    r#"
    ALTER TABLE tasks ADD COLUMN rendered_size TEXT;
    ALTER TABLE tasks ADD COLUMN rendered_seconds REAL;
    ALTER TABLE tasks ADD COLUMN usage TEXT;            -- JSON, as the service sent it
    ALTER TABLE tasks ADD COLUMN rendered_otherwise INTEGER NOT NULL DEFAULT 0;
    "#,
];

pub fn version(conn: &Connection) -> Result<usize, StoreError> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize)
}

/// Brings the database up to date in one transaction: a reader (`reel list` beside an engine
/// that is creating the file) sees no tables or all of them, never a schema half made, and a
/// crash leaves the file as it was. Foreign keys are off while
/// migrations run (SQLite's way to rebuild a table: dropping the old one must not cascade to
/// the events) and set back as they were after.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let found = version(conn)?;
    if found > MIGRATIONS.len() {
        return Err(StoreError::NewerSchema { found, known: MIGRATIONS.len() });
    }
    if found == MIGRATIONS.len() {
        return Ok(());
    }
    let keys: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
    conn.pragma_update(None, "foreign_keys", false)?;
    let result: Result<(), StoreError> = (|| {
        let tx = conn.transaction()?;
        for sql in MIGRATIONS.iter().skip(found) {
            tx.execute_batch(sql)?;
        }
        tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)?;
        tx.commit()?;
        Ok(())
    })();
    conn.pragma_update(None, "foreign_keys", keys)?;
    result?;
    compact(conn);
    Ok(())
}

/// After a migration that rebuilt the tables (over a quarter of the file is free pages), gives
/// the space back: 3 s for a million tasks. If another process has the database open, the
/// free pages are simply reused by later writes.
fn compact(conn: &Connection) {
    let pages = |pragma: &str| conn.query_row(pragma, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
    if pages("PRAGMA freelist_count") * 4 > pages("PRAGMA page_count") {
        // In WAL mode VACUUM writes the whole file through the log: the log is emptied and cut
        // back afterwards, or it would keep the size of the database on disk.
        if let Err(e) = conn.execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::info!(error = %e, "the database keeps its free pages for later writes");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuilt_database_gives_its_free_pages_back() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("reel.db");
        let mut conn = Connection::open(&path).expect("db");
        conn.pragma_update(None, "journal_mode", "WAL").expect("wal, as the store opens it");
        for (i, sql) in MIGRATIONS.iter().take(5).enumerate() {
            conn.execute_batch(sql).expect("migration");
            conn.pragma_update(None, "user_version", (i + 1) as i64).expect("version");
        }
        conn.execute_batch(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
             INSERT INTO tasks (idempotency_key, base_url, model, prompt, seconds, resolution, ratio, watermark, media, \
             state, created_at, updated_at) SELECT 'k', 'u', 'm', 'prompt number ' || i, 5, '720P', '1:1', 0, '[]', \
             'downloaded', i, i FROM n",
        )
        .expect("rows");
        migrate(&mut conn).expect("migrates");
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).expect("pragma");
        assert_eq!(count("PRAGMA freelist_count"), 0, "vacuumed");
        assert_eq!(count("SELECT count(*) FROM tasks"), 2000);
        let wal = std::fs::metadata(dir.path().join("reel.db-wal")).map_or(0, |m| m.len());
        assert_eq!(wal, 0, "the log the vacuum went through is cut back");
    }

    #[test]
    fn migrates_an_empty_database_and_is_idempotent() {
        let mut conn = Connection::open_in_memory().expect("db");
        migrate(&mut conn).expect("migrates");
        assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());
        migrate(&mut conn).expect("second run does nothing");
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('tasks', 'events', 'tasks_fts') ORDER BY name")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("query");
        assert_eq!(tables, ["events", "tasks", "tasks_fts"]);
    }

    #[test]
    fn refuses_a_database_from_a_newer_reel() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.pragma_update(None, "user_version", 99).expect("set");
        assert!(matches!(migrate(&mut conn), Err(StoreError::NewerSchema { found: 99, .. })));
    }

    /// A database of schema 2 with a parent, a child and an event, as an older reel left it.
    fn version_2() -> Connection {
        let mut conn = Connection::open_in_memory().expect("db");
        for (i, sql) in MIGRATIONS.iter().take(2).enumerate() {
            let tx = conn.transaction().expect("tx");
            tx.execute_batch(sql).expect("migration");
            tx.pragma_update(None, "user_version", (i + 1) as i64).expect("version");
            tx.commit().expect("commit");
        }
        conn.execute_batch(
            "INSERT INTO tasks (id, parent_id, idempotency_key, base_url, model, prompt, seconds, resolution, ratio, \
             watermark, media, state, created_at, updated_at) VALUES \
             (1, NULL, 'k', 'u', 'm', 'a red fox', 5, '720P', '1:1', 0, '[]', 'downloaded', 1, 1), \
             (2, 1, 'k', 'u', 'm', 'a blue fox', 5, '720P', '1:1', 0, '[]', 'downloaded', 2, 2); \
             INSERT INTO events (task_id, at, state) VALUES (2, 2, 'waiting');",
        )
        .expect("rows");
        conn
    }

    #[test]
    fn the_rebuild_keeps_every_row_event_link_and_search() {
        let mut conn = version_2();
        conn.pragma_update(None, "foreign_keys", true).expect("fk");
        migrate(&mut conn).expect("migrates");
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).expect("count");
        assert_eq!(count("SELECT count(*) FROM tasks"), 2);
        assert_eq!(count("SELECT count(*) FROM events"), 1, "the events were not cascaded away");
        assert_eq!(count("SELECT parent_id FROM tasks WHERE id = 2"), 1);
        assert_eq!(count("SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH 'blue'"), 2, "search still finds it");
        assert_eq!(count("PRAGMA foreign_keys"), 1, "foreign keys are on again");
        assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    }

    #[test]
    fn the_lighter_index_finds_prefixes_forgets_deleted_tasks_and_serves_lineage() {
        let mut conn = version_2();
        migrate(&mut conn).expect("migrates");
        let ids = |q: &str| -> Vec<i64> {
            conn.prepare("SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH ?1 ORDER BY rowid")
                .and_then(|mut s| s.query_map([q], |r| r.get(0))?.collect())
                .expect("search")
        };
        let cases: &[(&str, &[i64])] =
            &[("\"bl\"*", &[2]), ("\"blu\"*", &[2]), ("\"fox\"*", &[1, 2]), ("\"f\"*", &[1, 2]), ("\"green\"*", &[])];
        for (query, want) in cases {
            assert_eq!(ids(query), *want, "{query}");
        }
        conn.execute("DELETE FROM tasks WHERE id = 2", []).expect("delete");
        assert_eq!(ids("\"fox\"*"), [1], "a deleted task leaves the index");
        let plan: String = conn
            .query_row("EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE parent_id = ?1", [1], |r| r.get(3))
            .expect("plan");
        assert!(plan.contains("tasks_by_parent"), "{plan}");
    }

    #[test]
    fn the_id_of_a_deleted_newest_task_is_never_given_again() {
        let mut conn = version_2();
        conn.pragma_update(None, "foreign_keys", true).expect("fk");
        migrate(&mut conn).expect("migrates");
        conn.execute("DELETE FROM tasks WHERE id = 2", []).expect("delete");
        let next = crate::tasks::insert(&conn, &crate::fixtures::new_task("p")).expect("insert");
        assert_eq!(next.id, 3, "not 2 again: a kept file named 2-… is never overwritten");
    }

    #[test]
    fn a_task_whose_parent_was_deleted_is_kept_without_the_link() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.pragma_update(None, "foreign_keys", "ON").expect("fk");
        migrate(&mut conn).expect("migrates");
        let insert = |conn: &Connection, parent_id: Option<i64>| {
            let t = crate::NewTask { parent_id, ..crate::fixtures::new_task("p") };
            crate::tasks::insert(conn, &t).map(|t| t.id)
        };
        let parent_of = |conn: &Connection, id: i64| {
            conn.query_row("SELECT parent_id FROM tasks WHERE id = ?1", [id], |r| r.get(0))
        };
        let parent = insert(&conn, None).expect("parent");
        let child = insert(&conn, Some(parent)).expect("child");
        assert_eq!(parent_of(&conn, child).ok(), Some(Some(parent)));
        conn.execute("DELETE FROM tasks WHERE id = ?1", [parent]).expect("delete");
        assert_eq!(parent_of(&conn, child).ok(), Some(None::<i64>), "the existing child loses the link");
        let later = insert(&conn, Some(parent)).expect("a later task with the deleted parent is journaled");
        assert_eq!(parent_of(&conn, later).ok(), Some(None::<i64>), "without the link");
        let orphan = insert(&conn, Some(child)).expect("a live parent");
        assert_eq!(parent_of(&conn, orphan).ok(), Some(Some(child)), "a live parent keeps its link");
    }

    #[test]
    fn every_index_says_which_query_it_serves() {
        for sql in MIGRATIONS {
            let lines: Vec<&str> = sql.lines().map(str::trim).collect();
            for (i, line) in lines.iter().enumerate() {
                if line.starts_with("CREATE INDEX") {
                    assert!(i > 0 && lines[i - 1].starts_with("--"), "no comment above: {line}");
                }
            }
        }
    }
}
