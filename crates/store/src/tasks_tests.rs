//! Task rows and events: round trips, lookups, order.

use serde_json::json;

use super::*;
use crate::schema::migrate;

fn db() -> Connection {
    let mut conn = Connection::open_in_memory().expect("db");
    conn.pragma_update(None, "foreign_keys", "ON").expect("fk");
    migrate(&mut conn).expect("migrate");
    conn
}

fn new_task(prompt: &str) -> NewTask {
    NewTask {
        negative_prompt: Some("blurry".into()),
        media: vec![MediaRecord {
            kind: "reference_video".into(),
            url: "https://x.org/v.mp4".into(),
            seconds: Some(3.0),
            local: None,
        }],
        billed_seconds: Some(8.0),
        created_at: 1_000,
        ..crate::fixtures::new_task(prompt)
    }
}

#[test]
fn insert_save_get_round_trip() {
    let conn = db();
    let mut t = insert(&conn, &new_task("a fox")).expect("insert");
    assert_eq!((t.state, t.media.len(), t.billed_seconds), (LocalState::Waiting, 1, Some(8.0)));
    t.remote_id = Some("task_abc".into());
    t.state = LocalState::Failed;
    t.error = Some(serde_json::json!({"code": "x", "message": "m"}));
    t.updated_at = 2_000;
    save(&conn, &t).expect("save");
    assert_eq!(get(&conn, t.id).expect("get"), Some(t.clone()));
    assert_eq!(events(&conn, t.id).expect("events")[0].state, "waiting");
    t.id = 999;
    assert!(matches!(save(&conn, &t), Err(StoreError::Missing(999))));
}

#[test]
fn opening_shows_the_unfinished_and_what_changed_since() {
    let conn = db();
    let mut rows = Vec::new();
    for (updated, state) in
        [(1_000, LocalState::Downloaded), (5_000, LocalState::Failed), (2_000, LocalState::InProgress)]
    {
        let mut t = insert(&conn, &new_task("p")).expect("insert");
        t.state = state;
        t.updated_at = updated;
        save(&conn, &t).expect("save");
        rows.push(t.id);
    }
    let ids: Vec<i64> = unfinished_or_since(&conn, 4_000, 10).expect("read").iter().map(|t| t.id).collect();
    assert_eq!(ids, vec![rows[1], rows[2]], "the one that changed since, and the unfinished one");
}

#[test]
fn resolves_local_remote_and_prefixes() {
    let conn = db();
    let mut ids = Vec::new();
    for (prompt, remote) in [("a", "task_abc123"), ("b", "task_abd999"), ("c", "other*[x]")] {
        let mut t = insert(&conn, &new_task(prompt)).expect("insert");
        t.remote_id = Some(remote.into());
        save(&conn, &t).expect("save");
        ids.push(t.id);
    }
    let r = |text: &str| resolve(&conn, text).expect("resolve");
    assert_eq!(r(&ids[0].to_string()), vec![ids[0]]);
    assert_eq!(r("task_abc123"), vec![ids[0]]);
    assert_eq!(r("task_abc"), vec![ids[0]]);
    assert_eq!(r("task_ab"), vec![ids[0], ids[1]], "ambiguous prefix");
    assert_eq!(r("other*"), vec![ids[2]], "glob characters match literally");
    assert_eq!(r("other"), vec![ids[2]]);
    assert!(r("nothing").is_empty() && r("  ").is_empty());
}

#[test]
fn list_unfinished_and_search_index() {
    let conn = db();
    let a = insert(&conn, &new_task("a red fox")).expect("insert");
    let mut b = insert(&conn, &NewTask { created_at: 2_000, ..new_task("a blue whale") }).expect("insert");
    b.state = LocalState::Downloaded;
    save(&conn, &b).expect("save");
    assert_eq!(list(&conn, None, None, 10).expect("list").iter().map(|t| t.id).collect::<Vec<_>>(), vec![b.id, a.id]);
    assert_eq!(list(&conn, Some(LocalState::Downloaded), None, 10).expect("list").len(), 1);
    assert_eq!(unfinished(&conn).expect("unfinished").iter().map(|t| t.id).collect::<Vec<_>>(), vec![a.id]);
    let hits: Vec<i64> = conn
        .prepare("SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH 'wha*'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("search");
    assert_eq!(hits, vec![b.id]);
}

#[test]
fn deleting_a_task_removes_its_events_and_search_entry() {
    let conn = db();
    let t = insert(&conn, &new_task("ephemeral")).expect("insert");
    add_event(&conn, t.id, 5, "queued", Some("x")).expect("event");
    conn.execute("DELETE FROM tasks WHERE id = ?1", [t.id]).expect("delete");
    let left: i64 = conn.query_row("SELECT count(*) FROM events", [], |r| r.get(0)).expect("count");
    let found: i64 = conn
        .query_row("SELECT count(*) FROM tasks_fts WHERE tasks_fts MATCH 'ephemeral'", [], |r| r.get(0))
        .expect("fts");
    assert_eq!((left, found), (0, 0));
}

#[test]
fn a_path_splits_into_folder_and_name_and_joins_back() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("/videos/2027-01-15/1-a-fox.mp4", Some("/videos/2027-01-15/"), "1-a-fox.mp4"),
        (r"C:\Videos\1.mp4", Some(r"C:\Videos\"), "1.mp4"),
        ("1.mp4", None, "1.mp4"),
        ("/videos/", Some("/videos/"), ""),
        ("/", Some("/"), ""),
        ("", None, ""),
    ];
    for (path, dir, name) in cases {
        assert_eq!(split_path(path), (*dir, *name), "{path}");
    }
    let conn = db();
    for (path, _, _) in cases {
        let mut t = insert(&conn, &new_task("p")).expect("insert");
        t.file_path = Some(path.to_string());
        save(&conn, &t).expect("save");
        assert_eq!(get(&conn, t.id).expect("get").and_then(|t| t.file_path).as_deref(), Some(*path));
    }
}

#[test]
fn events_keep_their_order_and_their_statement_is_prepared_once() {
    let conn = db();
    let t = insert(&conn, &new_task("p")).expect("insert");
    for (at, state) in [(5, "queued"), (5, "in_progress"), (3, "custom"), (9, "completed"), (5, "stalled")] {
        add_event(&conn, t.id, at, state, None).expect("event");
    }
    let states: Vec<String> = events(&conn, t.id).expect("events").into_iter().map(|e| e.state).collect();
    assert_eq!(
        states,
        ["custom", "queued", "in_progress", "stalled", "completed", "waiting"],
        "by time, then as written"
    );
    let stmt = conn.prepare_cached(ADD_EVENT).expect("cached");
    assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0, "planned once, not per event");
}

#[test]
fn render_times_per_model() {
    let conn = db();
    for secs in [60, 90] {
        let mut t = insert(&conn, &new_task("x")).expect("insert");
        t.remote_created_at = Some(1_000);
        t.remote_completed_at = Some(1_000 + secs);
        save(&conn, &t).expect("save");
    }
    let times = render_times(&conn, 10).expect("times");
    assert_eq!(times["acme/aurora-3.0/text-to-video"], vec![90.0, 60.0]);
}

#[test]
fn the_tasks_of_one_submission_share_the_first_ones_id_as_their_batch() {
    let conn = db();
    let batch = |rows: &[NewTask]| -> Vec<(i64, Option<i64>)> {
        insert_batch(&conn, rows).expect("insert").iter().map(|t| (t.id, t.batch_id)).collect()
    };
    assert_eq!(batch(&[new_task("alone")]), [(1, None)], "a task sent alone has no batch");
    assert_eq!(batch(&[new_task("a"), new_task("b"), new_task("c")]), [(2, Some(2)), (3, Some(2)), (4, Some(2))]);
    assert_eq!(batch(&[new_task("d"), new_task("e")]), [(5, Some(5)), (6, Some(5))], "another submission, another");
    assert_eq!(batch(&[]), []);
    let joining = NewTask { batch_id: Some(2), ..new_task("f") };
    assert_eq!(batch(&[joining.clone(), new_task("g")]), [(7, Some(2)), (8, Some(2))], "rows may join a batch");
    assert_eq!(batch(&[joining]), [(9, Some(2))]);
    assert_eq!(get(&conn, 3).expect("get").and_then(|t| t.batch_id), Some(2), "as stored");
    let ids =
        |state, batch| -> Vec<i64> { list(&conn, state, batch, 10).expect("list").iter().map(|t| t.id).collect() };
    assert_eq!(ids(None, Some(2)), [9, 8, 7, 4, 3, 2], "newest first");
    assert_eq!(ids(None, Some(1)), Vec::<i64>::new(), "a lone task's id is no batch");
    assert_eq!(ids(Some(LocalState::Waiting), Some(5)), [6, 5]);
    assert_eq!(ids(Some(LocalState::Queued), Some(5)), Vec::<i64>::new());
    let plan: String = conn
        .query_row("EXPLAIN QUERY PLAN SELECT id FROM tasks t WHERE t.batch_id = ?1 ORDER BY t.id DESC", [2], |r| {
            r.get(3)
        })
        .expect("plan");
    assert!(plan.contains("tasks_by_batch"), "{plan}");
}

#[test]
fn a_duplicate_names_the_task_holding_its_id() {
    let with = |error: Option<Value>| TaskRecord { error, ..crate::fixtures::record(2, LocalState::Lost) };
    let cases = [
        ("no error", None, None),
        ("another error", Some(json!({"message": "gone"})), None),
        ("a duplicate", Some(json!({"message": "same id as task 1", "duplicate_of": 1})), Some(1)),
        ("not a number", Some(json!({"duplicate_of": "1"})), None),
        ("an error that is text", Some(json!("duplicate_of")), None),
    ];
    for (name, error, want) in cases {
        assert_eq!(with(error).duplicate_of(), want, "{name}");
    }
}

#[test]
fn a_batch_of_a_thousand_returns_exactly_the_rows_it_journaled() {
    let conn = db();
    let rows: Vec<NewTask> = (0..1000)
        .map(|i| NewTask {
            profile: (i % 2 == 0).then(|| "work".into()),
            resolution: if i % 3 == 0 { "1080P".into() } else { "720P".into() },
            ..new_task(&format!("take {i}"))
        })
        .collect();
    let journaled = insert_batch(&conn, &rows).expect("insert");
    assert_eq!(journaled.len(), 1000);
    for (row, written) in rows.iter().zip(&journaled) {
        let stored = get(&conn, written.id).expect("get").expect("stored");
        assert_eq!(&stored, written, "the answer is what a reader finds");
        assert_eq!(stored.prompt, row.prompt, "in order");
        assert_eq!(stored.batch_id, Some(journaled[0].id), "one batch, named after its first task");
    }
    let first_events: i64 = conn.query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0)).expect("events");
    assert_eq!(first_events, 1000, "every task has its first event");
}

#[test]
fn marks_are_journaled_with_their_timeline_and_read_by_every_reader() {
    use crate::review::Change;
    let mark = crate::reviewing::write_review;
    let conn = db();
    let t = insert(&conn, &new_task("a fox")).expect("insert");
    let other = insert(&conn, &new_task("a cat")).expect("insert");
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    mark(&conn, t.id, &Change::Rate(Some(4)), 2_000).expect("rate");
    mark(&conn, t.id, &Change::Rate(Some(4)), 2_001).expect("the same rating again");
    mark(&conn, t.id, &Change::Tag(words(&["Keeper", "night"])), 2_002).expect("tag");
    let now = mark(&conn, t.id, &Change::Pick(true), 2_003).expect("pick");
    let want = crate::Review { rating: Some(4), picked: true, tags: words(&["keeper", "night"]) };
    assert_eq!(now.review, want, "the answer");
    assert_eq!(get(&conn, t.id).expect("get").map(|r| r.review), Some(want.clone()), "a reader");
    assert_eq!(list(&conn, None, None, 10).expect("list")[1].review, want, "the list, newest first");
    assert_eq!(get(&conn, other.id).expect("get").map(|r| r.review), Some(crate::Review::default()));
    let timeline: Vec<String> = events(&conn, t.id).expect("events").into_iter().map(|e| e.state).collect();
    assert_eq!(timeline, ["waiting", "rated 4", "tagged keeper", "tagged night", "picked"]);

    mark(&conn, t.id, &Change::Untag(words(&["keeper"])), 3_000).expect("untag");
    mark(&conn, t.id, &Change::Rate(None), 3_001).expect("unrate");
    let back = get(&conn, t.id).expect("get").expect("kept");
    assert_eq!(back.review, crate::Review { rating: None, picked: true, tags: words(&["night"]) });
    assert!(matches!(mark(&conn, 999, &Change::Pick(true), 1), Err(StoreError::Missing(999))));
    assert!(matches!(
        mark(&conn, t.id, &Change::Rate(Some(7)), 1),
        Err(StoreError::Review(crate::review::BadReview::Rating(7)))
    ));
    conn.execute("DELETE FROM tasks WHERE id = ?1", [t.id]).expect("delete");
    let tags: i64 = conn.query_row("SELECT count(*) FROM task_tags", [], |r| r.get(0)).expect("count");
    assert_eq!(tags, 0, "a deleted task's tags go with it");
}

#[test]
fn a_history_search_on_marks_finds_what_admits_admits() {
    use crate::history::{HistoryQuery, page};
    use crate::review::Change;
    let mark = crate::reviewing::write_review;
    let conn = db();
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let prompts = ["red fox", "red owl", "blue fox", "blue owl", "green fox"];
    let ids: Vec<i64> = prompts.iter().map(|p| insert(&conn, &new_task(p)).expect("insert").id).collect();
    for (i, rating) in [(0, 5), (1, 4), (2, 2), (3, 1)] {
        mark(&conn, ids[i], &Change::Rate(Some(rating)), 2_000).expect("rate");
    }
    mark(&conn, ids[0], &Change::Tag(words(&["keeper"])), 2_000).expect("tag");
    mark(&conn, ids[2], &Change::Tag(words(&["keeper", "dusk"])), 2_000).expect("tag");
    mark(&conn, ids[4], &Change::Tag(words(&["dusk"])), 2_000).expect("tag");
    mark(&conn, ids[1], &Change::Pick(true), 2_000).expect("pick");
    mark(&conn, ids[2], &Change::Pick(true), 2_000).expect("pick");
    let all = list(&conn, None, None, 10).expect("all");
    let cases: &[(&str, &[usize])] = &[
        ("rating:>=4", &[1, 0]),
        ("rating:5", &[0]),
        ("rating:<3", &[3, 2]),
        ("rating:>=1 fox", &[2, 0]),
        ("tag:keeper", &[2, 0]),
        ("tag:keeper tag:dusk", &[2]),
        ("tag:dusk fox", &[4, 2]),
        ("picked", &[2, 1]),
        ("picked owl", &[1]),
        ("picked rating:>=4 red", &[1]),
        ("tag:none", &[]),
        ("", &[4, 3, 2, 1, 0]),
    ];
    for (text, want) in cases {
        let q = HistoryQuery { text: text.to_string(), ..HistoryQuery::default() };
        let found: Vec<i64> = page(&conn, &q, None, 100).expect("page").iter().map(|t| t.id).collect();
        let want: Vec<i64> = want.iter().map(|i| ids[*i]).collect();
        assert_eq!(found, want, "{text}");
        let admitted: Vec<i64> = all.iter().filter(|t| q.admits(t)).map(|t| t.id).collect();
        assert_eq!(admitted, want, "admits agrees with the SQL: {text}");
    }
}

#[test]
fn with_failures_left_out_a_row_counts_as_sent_only_when_none_of_its_copies_failed() {
    let conn = db();
    let keyed = |key: &str, state: LocalState| {
        let t = NewTask { row_key: Some(key.into()), ..crate::fixtures::new_task(key) };
        let mut r = insert(&conn, &t).expect("insert");
        r.state = state;
        save(&conn, &r).expect("save");
    };
    keyed("saved", LocalState::Downloaded);
    keyed("failed", LocalState::Failed);
    keyed("partly", LocalState::Downloaded);
    keyed("partly", LocalState::Rejected);
    let keys: Vec<String> = ["saved", "failed", "partly", "never"].map(String::from).to_vec();
    let mut any: Vec<String> =
        crate::admitted::existing_row_keys(&conn, &keys, false).expect("keys").into_iter().collect();
    any.sort();
    assert_eq!(any, ["failed", "partly", "saved"]);
    let good: Vec<String> = crate::admitted::existing_row_keys(&conn, &keys, true).expect("keys").into_iter().collect();
    assert_eq!(good, ["saved"], "a row with a failed copy goes to the engine, which sends what is missing");
}
