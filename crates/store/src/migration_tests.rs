//! Migration 6 (numbered labels and states, events clustered by task) loses nothing: a
//! database left by a schema-5 reel reads back the same through the store's own API. Migration 7
//! (batch ids) leaves every older task without a batch; migration 8 (content keys) without a key.

use rusqlite::{Connection, params};
use serde_json::json;

use super::history::{self, HistoryQuery};
use super::schema::{MIGRATIONS, migrate, version};
use super::tasks::{self, EventRecord, MediaRecord, TaskRecord};
use super::{LocalState, fixtures};

/// A database as a schema-5 reel left it.
fn version_5() -> Connection {
    at_version(5)
}

/// A database as a reel of schema `n` left it.
fn at_version(n: usize) -> Connection {
    let mut conn = Connection::open_in_memory().expect("db");
    for (i, sql) in MIGRATIONS.iter().take(n).enumerate() {
        let tx = conn.transaction().expect("tx");
        tx.execute_batch(sql).expect("migration");
        tx.pragma_update(None, "user_version", (i + 1) as i64).expect("version");
        tx.commit().expect("commit");
    }
    conn
}

/// Writes `t` with every column as schema 5 named and typed them.
fn insert_v5(conn: &Connection, t: &TaskRecord) {
    conn.execute(
        "INSERT INTO tasks (id, parent_id, remote_id, idempotency_key, profile, base_url, model, prompt, \
         negative_prompt, seconds, resolution, ratio, watermark, media, billed_seconds, state, remote_status, \
         progress, created_at, submitted_at, remote_created_at, remote_completed_at, finished_at, url, url_deadline, \
         error, file_path, file_size, sha256, poll_count, poll_failures, last_polled_at, next_poll_at, \
         download_attempts, url_refreshes, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
         ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, \
         ?34, ?35, ?36)",
        params![
            t.id,
            t.parent_id,
            t.remote_id,
            t.idempotency_key,
            t.profile,
            t.base_url,
            t.model,
            t.prompt,
            t.negative_prompt,
            t.seconds,
            t.resolution,
            t.ratio,
            t.watermark,
            serde_json::to_string(&t.media).expect("media"),
            t.billed_seconds,
            t.state.as_str(),
            t.remote_status,
            t.progress,
            t.created_at,
            t.submitted_at,
            t.remote_created_at,
            t.remote_completed_at,
            t.finished_at,
            t.url,
            t.url_deadline,
            t.error.as_ref().map(|e| e.to_string()),
            t.file_path,
            t.file_size,
            t.sha256,
            t.poll_count,
            t.poll_failures,
            t.last_polled_at,
            t.next_poll_at,
            t.download_attempts,
            t.url_refreshes,
            t.updated_at,
        ],
    )
    .expect("insert");
}

/// A saved video with a profile and reference media, a failed child of it with an error,
/// and one still rendering on another service.
fn rows() -> Vec<TaskRecord> {
    let saved = TaskRecord {
        profile: Some("work".into()),
        prompt: "a red fox running through fresh snow".into(),
        negative_prompt: Some("blurry".into()),
        media: vec![MediaRecord {
            kind: "reference_image".into(),
            url: "https://x.org/a.png".into(),
            seconds: Some(2.5),
            local: None,
        }],
        billed_seconds: Some(5.5),
        remote_status: Some("completed".into()),
        progress: Some(100.0),
        remote_completed_at: Some(1_800_000_090),
        finished_at: Some(1_800_000_100_000),
        url: Some("https://cdn.example/v.mp4".into()),
        url_deadline: Some(1_800_003_600_000),
        file_path: Some("/videos/2027-01-15/1-a-red-fox.mp4".into()),
        file_size: Some(2_000_000),
        sha256: Some("ab".repeat(32)),
        poll_count: 7,
        poll_failures: 1,
        last_polled_at: Some(1_800_000_095_000),
        download_attempts: 1,
        url_refreshes: 2,
        updated_at: 1_800_000_100_000,
        ..fixtures::record(1, LocalState::Downloaded)
    };
    let failed = TaskRecord {
        parent_id: Some(1),
        model: "acme/aurora-2.7/text-to-video".into(),
        prompt: "a blue whale under the ice".into(),
        resolution: "1080P".into(),
        ratio: "9:16".into(),
        watermark: true,
        error: Some(json!({"code": "nsfw", "message": "flagged, \"quoted\""})),
        file_path: Some("no-folder.mp4".into()),
        created_at: 1_800_000_200_000,
        updated_at: 1_800_000_300_000,
        ..fixtures::record(2, LocalState::Failed)
    };
    let rendering = TaskRecord {
        base_url: "https://api.example/v1/".into(),
        prompt: "fog over the harbor at dawn".into(),
        billed_seconds: None,
        next_poll_at: Some(1_800_000_500_000),
        file_path: Some(r"C:\Videos\reel\4-fog.mp4".into()),
        created_at: 1_800_000_400_000,
        updated_at: 1_800_000_400_000,
        ..fixtures::record(4, LocalState::InProgress)
    };
    vec![saved, failed, rendering]
}

fn event(at: i64, state: &str, detail: Option<&str>) -> EventRecord {
    EventRecord { at, state: state.into(), detail: detail.map(Into::into) }
}

#[test]
fn migration_6_keeps_every_row_event_link_search_and_the_next_id() {
    let mut conn = version_5();
    let rows = rows();
    for t in &rows {
        insert_v5(&conn, t);
    }
    // Task 5 was the newest once, then deleted: its id must never come back.
    insert_v5(&conn, &TaskRecord { prompt: "gone".into(), ..fixtures::record(5, LocalState::Rejected) });
    conn.execute("DELETE FROM tasks WHERE id = 5", []).expect("delete");
    // Two events in the same millisecond keep the order they were written in; a state name
    // this reel does not know (or that looks like a number) stays as it was.
    let timeline = [
        (1, event(10, "waiting", None)),
        (1, event(20, "queued", Some("position 3"))),
        (1, event(20, "in_progress", None)),
        (1, event(30, "downloaded", Some("2000000 bytes"))),
        (2, event(15, "waiting", None)),
        (2, event(25, "some_future_state", Some("kept as text"))),
        (2, event(26, "10", None)),
        (2, event(27, "failed", None)),
    ];
    for (task, e) in &timeline {
        conn.execute(
            "INSERT INTO events (task_id, at, state, detail) VALUES (?1, ?2, ?3, ?4)",
            params![task, e.at, e.state, e.detail],
        )
        .expect("event");
    }

    conn.pragma_update(None, "foreign_keys", true).expect("fk");
    migrate(&mut conn).expect("migrates");
    assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());

    for t in &rows {
        assert_eq!(tasks::get(&conn, t.id).expect("get").as_ref(), Some(t), "task {}", t.id);
    }
    for task in [1, 2] {
        let want: Vec<EventRecord> = timeline.iter().filter(|(id, _)| *id == task).map(|(_, e)| e.clone()).collect();
        assert_eq!(tasks::events(&conn, task).expect("events"), want, "events of task {task}");
    }
    let ids = |records: Vec<TaskRecord>| records.into_iter().map(|t| t.id).collect::<Vec<_>>();
    assert_eq!(ids(history::children(&conn, 1).expect("children")), [2]);
    let search = |q: HistoryQuery| ids(history::page(&conn, &q, None, 10).expect("page"));
    let text = |t: &str| HistoryQuery { text: t.into(), ..Default::default() };
    assert_eq!(search(text("")), [4, 2, 1], "newest first");
    assert_eq!(search(text("a")), [4, 2, 1], "\"at\", \"a\" and \"a\"");
    assert_eq!(search(text("fox")), [1]);
    assert_eq!(search(text("blu wha")), [2], "prefixes of every word");
    assert_eq!(search(text("blurry")), [1], "the negative prompt is searched too");
    assert_eq!(search(HistoryQuery { model: Some("acme/aurora-2.7/text-to-video".into()), ..text("") }), [2]);
    assert_eq!(search(HistoryQuery { state: Some(LocalState::Downloaded), ..text("") }), [1]);
    assert_eq!(search(HistoryQuery { states: vec![LocalState::Failed, LocalState::InProgress], ..text("") }), [4, 2]);
    assert_eq!(search(HistoryQuery { since: Some(1_800_000_200_000), ..text("") }), [4, 2]);
    assert_eq!(search(HistoryQuery { until: Some(1_800_000_200_000), ..text("") }), [1]);
    assert_eq!(ids(tasks::unfinished(&conn).expect("unfinished")), [4]);
    assert_eq!(ids(tasks::list(&conn, None, None, 10).expect("list")), [4, 2, 1]);
    assert_eq!(tasks::holder_of(&conn, "task_00000004", "https://api.example/v1/", 0).expect("holder"), Some(4));
    assert_eq!(tasks::holder_of(&conn, "task_00000004", "http://127.0.0.1:1/", 0).expect("holder"), None);
    let models = history::models(&conn).expect("models");
    assert_eq!(models, ["acme/aurora-2.7/text-to-video", "acme/aurora-3.0/text-to-video"]);

    let next = tasks::insert(&conn, &fixtures::new_task("a new one")).expect("insert");
    assert_eq!(next.id, 6, "not 5 again: the deleted newest task's id is never given twice");
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).expect("count");
    assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    assert_eq!(count("PRAGMA foreign_keys"), 1, "foreign keys are on again");
    conn.execute("INSERT INTO tasks_fts(tasks_fts) VALUES ('integrity-check')", []).expect("the search index agrees");
    history::delete(&conn, 1).expect("delete");
    assert!(tasks::events(&conn, 1).expect("events").is_empty(), "a deleted task's events go with it");
    assert_eq!(tasks::get(&conn, 2).expect("get").and_then(|t| t.parent_id), None, "its child loses the link");
}

#[test]
fn every_state_has_a_number() {
    let mut conn = Connection::open_in_memory().expect("db");
    migrate(&mut conn).expect("migrates");
    for &state in LocalState::ALL {
        let mut t = tasks::insert(&conn, &fixtures::new_task("p")).expect("insert");
        t.state = state;
        tasks::save(&conn, &t).expect("a state without a number fails the NOT NULL");
        assert_eq!(tasks::get(&conn, t.id).expect("get").map(|t| t.state), Some(state));
    }
}

#[test]
fn migration_7_leaves_older_tasks_without_a_batch() {
    let mut conn = version_5();
    for t in &rows() {
        insert_v5(&conn, t);
    }
    // As a schema-6 reel left it (foreign keys off while its tables are rebuilt, as `migrate` does).
    conn.pragma_update(None, "foreign_keys", false).expect("fk");
    let tx = conn.transaction().expect("tx");
    tx.execute_batch(MIGRATIONS[5]).expect("migration 6");
    tx.pragma_update(None, "user_version", 6).expect("version");
    tx.commit().expect("commit");
    conn.pragma_update(None, "foreign_keys", true).expect("fk");
    migrate(&mut conn).expect("migrates");
    assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());
    for t in &rows() {
        let back = tasks::get(&conn, t.id).expect("get").expect("kept");
        assert_eq!(back.batch_id, None, "task {}", t.id);
        assert_eq!(back, *t, "and nothing else changed");
    }
    let new = tasks::insert_batch(&conn, &[fixtures::new_task("a"), fixtures::new_task("b")]).expect("insert");
    assert_eq!(new.iter().map(|t| t.batch_id).collect::<Vec<_>>(), [Some(5), Some(5)]);
    assert_eq!(tasks::list(&conn, None, Some(5), 10).expect("list").len(), 2);
}

/// A task as a reel of schema 7 or 8 journals it, with labels and state by number.
fn old_task(conn: &Connection) {
    conn.execute(
        "INSERT INTO tasks (idempotency_key, base_url_id, model_id, prompt, seconds, resolution_id, ratio_id, \
         watermark, state_code, created_at, updated_at) VALUES ('k', 1, 1, 'old', 5, 1, 1, 0, 1, 1, 1)",
        [],
    )
    .expect("an older task");
}

#[test]
fn migration_8_keeps_older_tasks_without_a_key_and_finds_new_keys() {
    let mut conn = at_version(7);
    old_task(&conn);
    let keys = ["a".to_string(), "b".to_string()];
    assert!(
        super::admitted::existing_row_keys(&conn, &keys, false).expect("a schema-7 database has no keys").is_empty()
    );
    migrate(&mut conn).expect("migrates");
    assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());
    let old: Option<String> = conn.query_row("SELECT row_key FROM tasks", [], |r| r.get(0)).expect("row");
    assert_eq!(old, None, "an older task has no key");
    let keyed = tasks::NewTask { row_key: Some("b".into()), ..fixtures::new_task("new") };
    tasks::insert_batch(&conn, &[keyed.clone(), keyed, fixtures::new_task("unkeyed")]).expect("insert");
    let found = super::admitted::existing_row_keys(&conn, &keys, false).expect("keys");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["b"]);
}

#[test]
fn migration_9_leaves_older_tasks_without_a_review_and_reviews_them() {
    let mut conn = at_version(8);
    old_task(&conn);
    conn.execute("INSERT INTO labels (id, text) VALUES (1, 'x')", []).expect("label");
    conn.pragma_update(None, "foreign_keys", true).expect("fk");
    migrate(&mut conn).expect("migrates");
    assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());
    let old = tasks::get(&conn, 1).expect("get").expect("kept");
    assert_eq!(old.review, super::Review::default(), "an older task has no review");
    assert_eq!(old.prompt, "old");
    let rated =
        super::reviewing::write_review(&conn, 1, &super::review::Change::Rate(Some(3)), 5).expect("rates an old task");
    assert_eq!(rated.review.rating, Some(3));
    let out_of_range = conn.execute("UPDATE tasks SET rating = 6 WHERE id = 1", []);
    assert!(out_of_range.is_err(), "the column holds 1 to 5 only");
    let plan: String = conn
        .query_row("EXPLAIN QUERY PLAN SELECT task_id FROM task_tags WHERE tag = ?1", ["keeper"], |r| r.get(3))
        .expect("plan");
    assert!(plan.contains("task_tags_by_tag"), "{plan}");
    let plan: Vec<String> = conn
        .prepare(
            "EXPLAIN QUERY PLAN SELECT * FROM tasks t WHERE t.rating BETWEEN ?1 AND ?2 ORDER BY t.id DESC LIMIT 200",
        )
        .and_then(|mut s| s.query_map([4, 255], |r| r.get(3))?.collect())
        .expect("plan");
    assert!(plan.iter().any(|p| p.contains("tasks_by_rating")), "{plan:?}");
    assert!(!plan.iter().any(|p| p.contains("TEMP B-TREE")), "read in order, not sorted: {plan:?}");
}

#[test]
fn migration_10_leaves_older_tasks_untagged_and_not_imported() {
    let mut conn = at_version(9);
    conn.execute(
        "INSERT INTO tasks (idempotency_key, base_url_id, model_id, prompt, seconds, resolution_id, ratio_id, \
         watermark, state_code, created_at, updated_at, sha256) VALUES ('k', 1, 1, 'old', 5, 1, 1, 0, 1, 1, 1, 'ab')",
        [],
    )
    .expect("a schema-9 task");
    conn.execute("INSERT INTO labels (id, text) VALUES (1, 'x')", []).expect("its labels");
    migrate(&mut conn).expect("migrates");
    let mut old = tasks::get(&conn, 1).expect("get").expect("kept");
    assert_eq!((old.file_sha256.as_deref(), old.imported_from.as_deref()), (None, None));
    assert_eq!(
        super::imported::known_files(&conn, &["ab".into(), "cd".into()]).expect("known"),
        ["ab".to_string()].into()
    );
    old.file_sha256 = Some("cd".into());
    tasks::save(&conn, &old).expect("save");
    assert_eq!(tasks::get(&conn, 1).expect("get").expect("kept").file_sha256.as_deref(), Some("cd"));
    let both = super::imported::known_files(&conn, &["ab".into(), "cd".into(), "ef".into()]).expect("known");
    assert_eq!(both, ["ab".to_string(), "cd".to_string()].into(), "the service's bytes and the tagged file");
}

#[test]
fn migration_13_leaves_older_tasks_without_a_rendered_account_and_keeps_a_new_one() {
    let mut conn = at_version(12);
    conn.execute("INSERT INTO labels (id, text) VALUES (1, '720P'), (2, '16:9')", []).expect("labels");
    conn.execute(
        "INSERT INTO tasks (idempotency_key, base_url_id, model_id, prompt, seconds, resolution_id, ratio_id, \
         watermark, state_code, created_at, updated_at, billed_seconds) \
         VALUES ('k', 1, 1, 'old', 5, 1, 2, 0, 1, 1, 1, 5.0)",
        [],
    )
    .expect("a schema-12 task");
    migrate(&mut conn).expect("migrates");
    assert_eq!(version(&conn).expect("version"), MIGRATIONS.len());
    let mut old = tasks::get(&conn, 1).expect("get").expect("kept");
    assert_eq!(old.rendered, Default::default(), "an older task says nothing of what was rendered");
    assert!(!old.rendered_otherwise());
    old.rendered = reel_rules::rendered::Rendered {
        size: Some("1920x1080".into()),
        seconds: Some(8.0),
        usage: Some(json!({"completion_tokens": 20})),
    };
    old.billed_seconds = Some(8.0);
    tasks::save(&conn, &old).expect("save");
    let back = tasks::get(&conn, 1).expect("get").expect("kept");
    assert_eq!((back.rendered.clone(), back.billed_seconds), (old.rendered.clone(), Some(8.0)), "kept as said");
    let otherwise: i64 = conn.query_row("SELECT rendered_otherwise FROM tasks", [], |r| r.get(0)).expect("flag");
    assert_eq!(otherwise, 1, "1920x1080 8 s is not 720P 16:9 5 s");
}
