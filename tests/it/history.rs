//! History over a seeded database: search, filters, lineage, the ledger, export round trips,
//! missing files and deletion.

use std::path::Path;
use std::process::Command;

use reel_engine::config::Pricing;
use reel_engine::public::PublicTask;
use reel_engine::query;
use reel_store::fixtures::new_task;
use reel_store::history::{HistoryQuery, Order};
use reel_store::tasks::{self, MediaRecord, NewTask, TaskRecord};
use reel_store::{LocalState, open_writer};
use serde_json::json;

const DAY: i64 = 86_400_000;
/// Noon UTC, so that local dates are the same days in every time zone within ±11 h.
const T0: i64 = 1_800_000_000_000 - 1_800_000_000_000 % DAY + DAY / 2;

struct Seeded {
    dir: tempfile::TempDir,
    ids: Vec<i64>,
}

impl Seeded {
    fn db(&self) -> std::path::PathBuf {
        self.dir.path().join("reel.db")
    }
}

fn seed() -> Seeded {
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = open_writer(&dir.path().join("reel.db")).expect("db");
    let present = dir.path().join("present.mp4");
    std::fs::write(&present, b"video").expect("file");
    let specs: Vec<(&str, &str, LocalState, i64, Option<usize>)> = vec![
        ("a red fox in fresh snow", "acme/aurora-3.0/text-to-video", LocalState::Downloaded, 0, None),
        ("a red fox in deep snow, at dusk", "acme/aurora-3.0/text-to-video", LocalState::Downloaded, 0, Some(0)),
        ("a blue whale under ice", "acme/aurora-2.7/text-to-video", LocalState::Failed, 1, None),
        ("foxes playing in a meadow", "acme/aurora-2.7/text-to-video", LocalState::Downloaded, 2, Some(0)),
        ("a lighthouse in a storm", "acme/swift-1.5/text-to-video", LocalState::Rejected, 2, None),
    ];
    let mut ids = Vec::new();
    for (i, (prompt, model, state, day, parent)) in specs.into_iter().enumerate() {
        let new = NewTask {
            model: model.into(),
            created_at: T0 + day * DAY + i as i64,
            parent_id: parent.map(|p| ids[p]),
            negative_prompt: (i == 2).then(|| "no boats".to_string()),
            seconds: 5 + i as i64,
            billed_seconds: Some((5 + i) as f64),
            media: if i == 1 {
                vec![MediaRecord {
                    kind: "reference_image".into(),
                    url: "https://x.org/a.png".into(),
                    seconds: None,
                    local: None,
                }]
            } else {
                vec![]
            },
            ..new_task(prompt)
        };
        let mut t = tasks::insert(&conn, &new).expect("insert");
        t.state = state;
        t.remote_id = Some(format!("task_{i}"));
        if state == LocalState::Downloaded {
            t.remote_created_at = Some(new.created_at / 1000);
            t.remote_completed_at = Some(new.created_at / 1000 + 60 * (i as i64 + 1));
            t.file_path = Some(if i == 0 {
                present.display().to_string()
            } else {
                dir.path().join(format!("gone-{i}.mp4")).display().to_string()
            });
            t.file_size = Some(5);
            t.sha256 = Some("ab".repeat(32));
        }
        if state == LocalState::Failed {
            t.error = Some(json!({"code": "nsfw", "message": "flagged, \"quoted\", comma"}));
        }
        tasks::save(&conn, &t).expect("save");
        tasks::add_event(&conn, t.id, new.created_at + 1, state.as_str(), Some("seeded")).expect("event");
        ids.push(t.id);
    }
    Seeded { dir, ids }
}

fn ids(rows: &[query::HistoryRow]) -> Vec<i64> {
    rows.iter().map(|r| r.record.id).collect()
}

#[test]
fn search_matches_prefixes_of_every_word_newest_first() {
    let s = seed();
    let q = |text: &str| {
        ids(&query::history(&s.db(), &HistoryQuery { text: text.into(), ..Default::default() }, None, 50)
            .expect("query"))
    };
    assert_eq!(q(""), vec![s.ids[4], s.ids[3], s.ids[2], s.ids[1], s.ids[0]]);
    assert_eq!(q("fox"), vec![s.ids[3], s.ids[1], s.ids[0]], "prefix: fox finds foxes");
    assert_eq!(q("red snow"), vec![s.ids[1], s.ids[0]], "every word must match");
    assert_eq!(q("RED fo"), vec![s.ids[1], s.ids[0]], "any case, last word as a prefix");
    assert_eq!(q("boats"), vec![s.ids[2]], "negative prompts are searched too");
    assert!(q("zebra").is_empty());
    assert_eq!(q("\"*)(-AND OR"), Vec::<i64>::new(), "user text is never FTS syntax");
}

#[test]
fn filters_by_model_state_and_date_and_pages() {
    let s = seed();
    let run = |q: HistoryQuery| ids(&query::history(&s.db(), &q, None, 50).expect("query"));
    assert_eq!(
        run(HistoryQuery { model: Some("acme/aurora-2.7/text-to-video".into()), ..Default::default() }),
        vec![s.ids[3], s.ids[2]]
    );
    assert_eq!(
        run(HistoryQuery { state: Some(LocalState::Downloaded), ..Default::default() }),
        vec![s.ids[3], s.ids[1], s.ids[0]]
    );
    assert_eq!(run(HistoryQuery { since: Some(T0 + DAY), ..Default::default() }), vec![s.ids[4], s.ids[3], s.ids[2]]);
    assert_eq!(
        run(HistoryQuery { since: Some(T0 + DAY), until: Some(T0 + 2 * DAY), ..Default::default() }),
        vec![s.ids[2]]
    );
    assert_eq!(
        run(HistoryQuery {
            text: "fox".into(),
            state: Some(LocalState::Downloaded),
            since: Some(T0 + DAY),
            ..Default::default()
        }),
        vec![s.ids[3]]
    );
    assert_eq!(run(HistoryQuery { order: Order::Oldest, ..Default::default() })[0], s.ids[0]);
    let first = query::history(&s.db(), &HistoryQuery::default(), None, 2).expect("page");
    let next = query::history(&s.db(), &HistoryQuery::default(), first.last().map(|r| r.record.id), 2).expect("page");
    assert_eq!((ids(&first), ids(&next)), (vec![s.ids[4], s.ids[3]], vec![s.ids[2], s.ids[1]]));
    let fox_pages =
        query::history(&s.db(), &HistoryQuery { text: "fox".into(), ..Default::default() }, Some(s.ids[3]), 1)
            .expect("page");
    assert_eq!(ids(&fox_pages), vec![s.ids[1]], "paging works on search results too");
}

#[test]
fn moved_files_are_missing_not_errors() {
    let s = seed();
    let rows = query::history(&s.db(), &HistoryQuery::default(), None, 50).expect("query");
    let presence: Vec<Option<bool>> = rows.iter().map(|r| r.file_present).collect();
    assert_eq!(presence, vec![None, Some(false), None, Some(false), Some(true)]);
}

#[test]
fn lineage_gives_parent_and_children() {
    let s = seed();
    let (parent, children) = query::lineage(&s.db(), s.ids[0]).expect("lineage");
    assert!(parent.is_none());
    assert_eq!(children.iter().map(|c| c.id).collect::<Vec<_>>(), vec![s.ids[1], s.ids[3]]);
    let (parent, children) = query::lineage(&s.db(), s.ids[1]).expect("lineage");
    assert_eq!(parent.map(|p| p.id), Some(s.ids[0]));
    assert!(children.is_empty());
}

#[test]
fn the_ledger_matches_hand_computed_figures() {
    let s = seed();
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.5)].into_iter().collect(),
    };
    let l = query::ledger(&s.db(), None, &pricing).expect("ledger");
    // Days: day 0 has tasks 0 and 1 (both rendered, billed 5 + 6 = 11 s at $0.50 = $5.50).
    assert_eq!(l.days.len(), 3);
    assert_eq!((l.days[0].tasks, l.days[0].succeeded, l.days[0].failed, l.days[0].billed_seconds), (2, 2, 0, 11.0));
    assert_eq!(l.days[0].cost.show(&pricing), "$5.50");
    // Day 1: one failed task, nothing billed, success rate 0.
    assert_eq!((l.days[1].tasks, l.days[1].failed, l.days[1].success_rate), (1, 1, Some(0.0)));
    // Day 2: foxes (2.7, rendered, 8 s billed, unpriced) and a rejected lighthouse.
    assert_eq!((l.days[2].tasks, l.days[2].succeeded, l.days[2].failed, l.days[2].rejected), (2, 1, 0, 1));
    assert_eq!(l.days[2].billed_seconds, 8.0);
    assert_eq!(l.days[2].cost.show(&pricing), "unpriced");
    // Models: aurora-3.0 render times 60 s and 120 s: p50 60, p90 120.
    let a3 = l.models.iter().find(|m| m.key == "acme/aurora-3.0/text-to-video").expect("model");
    assert_eq!((a3.tasks, a3.success_rate, a3.p50, a3.p90), (2, Some(1.0), Some(60.0), Some(120.0)));
    let a27 = l.models.iter().find(|m| m.key == "acme/aurora-2.7/text-to-video").expect("model");
    assert_eq!((a27.tasks, a27.success_rate, a27.p50), (2, Some(0.5), Some(240.0)));
    assert_eq!((l.total.tasks, l.total.billed_seconds), (5, 19.0));
    assert_eq!(l.total.cost.show(&pricing), "$5.50 + 8 s unpriced");
    let since = query::ledger(&s.db(), Some(T0 + 2 * DAY), &pricing).expect("ledger");
    assert_eq!(since.total.tasks, 2);
}

#[test]
fn deleting_a_record_removes_its_events_and_orphans_its_children() {
    let s = seed();
    let conn = open_writer(&s.db()).expect("db");
    let gone = reel_store::history::delete(&conn, s.ids[0]).expect("delete").expect("existed");
    assert_eq!(gone.id, s.ids[0]);
    assert!(tasks::events(&conn, s.ids[0]).expect("events").is_empty());
    let orphans: i64 = conn
        .query_row("SELECT count(*) FROM events WHERE task_id NOT IN (SELECT id FROM tasks)", [], |r| r.get(0))
        .expect("count");
    assert_eq!(orphans, 0);
    let child = tasks::get(&conn, s.ids[1]).expect("get").expect("kept");
    assert_eq!(child.parent_id, None);
    assert!(
        query::history(&s.db(), &HistoryQuery { text: "fresh".into(), ..Default::default() }, None, 10)
            .expect("q")
            .is_empty()
    );
}

fn reel(s: &Seeded, args: &[&str]) -> std::process::Output {
    let config = s.dir.path().join("config.toml");
    std::fs::write(&config, "[pricing]\ncurrency = \"$\"\nper_second = { \"acme/aurora-3.0/text-to-video\" = 0.5 }\n[budget]\ndaily = 1.0\n").expect("config");
    Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(args)
        .env("REEL_DATA_DIR", s.dir.path())
        .env("REEL_CONFIG", &config)
        .env_remove("REEL_API_KEY")
        .env_remove("REEL_BASE_URL")
        .output()
        .expect("runs")
}

fn records(s: &Seeded) -> Vec<TaskRecord> {
    let conn = reel_store::open_reader(&s.db()).expect("db");
    let mut all = Vec::new();
    reel_store::history::all(&conn, |t| {
        all.push(t);
        Ok(())
    })
    .expect("all");
    all
}

#[test]
fn jsonl_export_round_trips_every_field() {
    let s = seed();
    let out = reel(&s, &["history", "export", "--format", "jsonl"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let back: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a task per line"))
        .collect();
    assert_eq!(back, records(&s).iter().map(public).collect::<Vec<_>>());
}

/// A task as the exports show it.
fn public(t: &TaskRecord) -> serde_json::Value {
    serde_json::to_value(PublicTask::from(t)).expect("json")
}

#[test]
fn csv_export_round_trips_every_field() {
    let s = seed();
    let path = s.dir.path().join("out.csv");
    let out = reel(&s, &["history", "export", "--format", "csv", "--output", path.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut reader = csv::Reader::from_path(&path).expect("csv");
    let header: Vec<String> = reader.headers().expect("header").iter().map(str::to_string).collect();
    assert_eq!(header.get(..5), Some(&["id", "parent_id", "batch_id", "remote_id", "state"].map(String::from)[..]));
    let originals: Vec<serde_json::Value> = records(&s).iter().map(public).collect();
    let mut n = 0;
    for (row, original) in reader.records().zip(&originals) {
        let row = row.expect("row");
        let object: serde_json::Map<String, serde_json::Value> = header
            .iter()
            .zip(row.iter())
            .map(|(key, cell)| {
                let field = &original[key.as_str()];
                let value = match field {
                    serde_json::Value::String(_) => serde_json::Value::String(cell.to_string()),
                    _ if cell.is_empty() => serde_json::Value::Null,
                    _ => serde_json::from_str(cell).expect("a JSON cell"),
                };
                (key.clone(), value)
            })
            .collect();
        assert_eq!(&serde_json::Value::Object(object), original);
        n += 1;
    }
    assert_eq!(n, originals.len());
}

#[test]
fn headless_search_and_stats() {
    let s = seed();
    let out = reel(&s, &["history", "search", "fox", "--status", "downloaded", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(rows.as_array().map(Vec::len), Some(3));
    assert_eq!(rows[2]["file_present"], true);
    let out = reel(&s, &["history", "stats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Per model") && text.contains("unpriced") && text.contains("$5.50"), "{text}");
    let out = reel(&s, &["history", "search", "--since", "not-a-date"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn past_the_daily_budget_a_headless_submit_needs_yes() {
    let s = seed();
    // Today's spending is nothing yet; 5 s at $0.50 is $2.50, past the $1.00 budget.
    let out = reel(&s, &["submit", "--model", "acme/aurora-3.0/text-to-video", "--prompt", "p"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("past the daily budget of $1.00") && err.contains("--yes"), "{err}");
    assert_eq!(records(&s).len(), 5, "nothing was journaled");
}

#[allow(dead_code)]
fn exists(p: &Path) -> bool {
    p.exists()
}

#[test]
fn exports_carry_the_batch_id() {
    let s = seed();
    let conn = open_writer(&s.db()).expect("db");
    let grid = tasks::insert_batch(&conn, &[new_task("grid a"), new_task("grid b")]).expect("insert");
    let batch = grid[0].id;
    let out = reel(&s, &["history", "export", "--format", "jsonl"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    let batches: Vec<&serde_json::Value> = lines.iter().map(|t| &t["batch_id"]).collect();
    assert_eq!(batches.len(), 7);
    assert!(batches[..5].iter().all(|b| b.is_null()), "{batches:?}");
    assert_eq!(batches[5..], [&json!(batch), &json!(batch)]);

    let path = s.dir.path().join("out.csv");
    let out = reel(&s, &["history", "export", "--format", "csv", "--output", path.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut reader = csv::Reader::from_path(&path).expect("csv");
    let column = reader.headers().expect("header").iter().position(|h| h == "batch_id").expect("a batch_id column");
    let cells: Vec<String> = reader.records().map(|r| r.expect("row")[column].to_string()).collect();
    let id = batch.to_string();
    assert_eq!(cells, ["", "", "", "", "", id.as_str(), id.as_str()]);
}
