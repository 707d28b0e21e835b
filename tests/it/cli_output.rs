//! What the headless commands write, on the real binary: a closed pipe ends them quietly, and
//! nothing a server sent reaches the terminal as a control sequence, in any format.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use reel_engine::public::PublicTask;
use reel_store::fixtures::new_task;
use reel_store::tasks::{self, MediaRecord, NewTask, TaskRecord};
use reel_store::{LocalState, open_writer};
use serde_json::{Value, json};

struct Data {
    dir: tempfile::TempDir,
}

impl Data {
    fn new() -> Data {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("config.toml"), "[engine]\nidle_exit_secs = 1\n").expect("config");
        Data { dir }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("reel.db")
    }

    fn reel(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
        c.args(args)
            .env("REEL_DATA_DIR", self.dir.path())
            .env("REEL_CONFIG", self.dir.path().join("config.toml"))
            .env_remove("REEL_API_KEY")
            .env_remove("REEL_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.reel(args).output().expect("runs")
    }
}

/// `n` plain tasks, in one transaction.
fn seed_many(db: &Path, n: usize) {
    let conn = open_writer(db).expect("db");
    conn.execute_batch("BEGIN").expect("begin");
    for i in 0..n {
        let t = tasks::insert(&conn, &new_task(&format!("a red fox number {i} running through fresh snow")))
            .expect("insert");
        tasks::add_event(&conn, t.id, t.created_at, "queued", None).expect("event");
    }
    conn.execute_batch("COMMIT").expect("commit");
}

/// Enough rows that every format is far larger than a pipe's buffer (64 KiB on Linux), so the
/// reader really is gone before the command ends.
const ROWS: usize = 3000;

/// Reads one line of the command's output, closes the pipe, and returns how the command ended.
fn read_one_line_and_close(data: &Data, args: &[&str]) -> Output {
    let mut child = data.reel(args).spawn().expect("spawns");
    let stdout = child.stdout.take().expect("piped");
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).expect("reads a line");
    assert!(!first.is_empty(), "{args:?} printed something");
    // The reader is dropped here: the pipe is closed with most of the output unread.
    child.wait_with_output().expect("ends")
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let data = Data::new();
    seed_many(&data.db(), ROWS);
    let whole = data.run(&["list", "--limit", "100000"]);
    assert!(
        whole.stdout.len() > 4 * 65_536,
        "the smallest output is {} bytes, more than a pipe holds",
        whole.stdout.len()
    );
    let commands: [&[&str]; 6] = [
        &["list", "--limit", "100000"],
        &["list", "--json", "--limit", "100000"],
        &["history", "search", "fox", "--limit", "100000"],
        &["history", "search", "--json", "--limit", "100000"],
        &["history", "export", "--format", "csv"],
        &["history", "export", "--format", "jsonl"],
    ];
    for args in commands {
        let out = read_one_line_and_close(&data, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?} wrote to stderr: {}", String::from_utf8_lossy(&out.stderr));
    }
}

const OSC52: &str = "\u{1b}]52;c;cm0gLXJmIH4K\u{7}";
const TITLE: &str = "\u{1b}]0;you have been pwned\u{7}";
const CLEAR: &str = "\u{1b}[2J\u{1b}[H";
const LINK: &str = "\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\";

/// A task whose every server-sent field carries control sequences.
fn seed_hostile(db: &Path) -> TaskRecord {
    let conn = open_writer(db).expect("db");
    let new = NewTask {
        model: "evil/\u{9b}31m-3.0/text-to-video".into(),
        prompt: format!("a fox{TITLE}\r\nin snow \u{202e}txt.exe"),
        negative_prompt: Some(format!("{CLEAR}\u{2066}boats\u{2069}")),
        media: vec![MediaRecord {
            kind: "reference_image".into(),
            url: format!("https://x.example/a.png{LINK}"),
            seconds: None,
            local: None,
        }],
        ..new_task("")
    };
    let mut t = tasks::insert(&conn, &new).expect("insert");
    t.state = LocalState::Failed;
    t.remote_id = Some(format!("task_{OSC52}"));
    t.remote_status = Some(format!("\u{9b}2J failed{TITLE}"));
    t.url = Some(format!("https://cdn.example/v.mp4{LINK}"));
    t.error = Some(json!({
        "message": format!("{CLEAR}flagged \u{9b}31m\r overwritten{OSC52}"),
        format!("key{TITLE}"): [format!("\u{202e}{LINK}\u{7f}")],
    }));
    tasks::save(&conn, &t).expect("save");
    tasks::add_event(&conn, t.id, t.created_at + 1, "failed", Some(&format!("poll said {CLEAR}{OSC52}")))
        .expect("event");
    tasks::get(&conn, t.id).expect("get").expect("saved")
}

/// What a terminal must never receive: C0 controls but newline and tab, DEL, C1, bidi overrides
/// and isolates. Written out here rather than taken from `reel_rules::text`, to check it independently.
fn forbidden(c: char) -> bool {
    (c < ' ' && c != '\n' && c != '\t')
        || ('\u{7f}'..='\u{9f}').contains(&c)
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    assert!(!bytes.contains(&0x1b), "{what}: a raw ESC byte");
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    let bad: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
    assert!(bad.is_empty(), "{what}: {bad:?} in\n{text}");
}

#[test]
fn server_text_is_made_safe_in_every_output() {
    let data = Data::new();
    let stored = seed_hostile(&data.db());
    let id = stored.id.to_string();
    let commands: [&[&str]; 8] = [
        &["history", "export", "--format", "csv"],
        &["history", "export", "--format", "jsonl"],
        &["list"],
        &["list", "--json"],
        &["show", &id],
        &["show", &id, "--json"],
        &["history", "search"],
        &["history", "search", "--json"],
    ];
    let mut outputs = Vec::new();
    for args in commands {
        let out = data.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_terminal_safe(&format!("{args:?} stdout"), &out.stdout);
        assert_terminal_safe(&format!("{args:?} stderr"), &out.stderr);
        outputs.push(String::from_utf8(out.stdout).expect("utf-8"));
    }

    // Plain text shows the escapes instead of hiding them.
    let show = &outputs[4];
    assert!(show.contains(r"task_\u001b]52;c;cm0gLXJmIH4K\u0007"), "{show}");
    assert!(show.contains(r"\u009b2J failed") && show.contains(r"\u202etxt.exe"), "{show}");

    // JSON escapes them the JSON way, so every string decodes to exactly what was stored.
    let line = outputs[1].lines().next().expect("a jsonl line");
    let public = serde_json::to_value(PublicTask::from(&stored)).expect("json");
    let back: Value = serde_json::from_str(line).expect("a task");
    assert_eq!(back, public, "jsonl export loses nothing");
    let shown: Value = serde_json::from_str(&outputs[5]).expect("json");
    assert_eq!(shown["task"], public);

    // CSV keeps the prompt's newline inside its quoted cell and escapes the carriage return;
    // structured cells stay JSON that decodes to the original.
    let mut reader = csv::Reader::from_reader(outputs[0].as_bytes());
    let header = reader.headers().expect("header").clone();
    let row = reader.records().next().expect("a row").expect("csv");
    let cell = |name: &str| row.get(header.iter().position(|h| h == name).expect("column")).expect("cell").to_string();
    assert!(cell("prompt").contains("\\u000d\nin snow"), "{:?}", cell("prompt"));
    assert_eq!(serde_json::from_str::<Value>(&cell("error")).expect("json cell"), stored.error.clone().expect("error"));
}

#[test]
fn other_output_failures_name_what_failed() {
    let data = Data::new();
    seed_many(&data.db(), 10);
    let target = data.dir.path().join("no-such-folder").join("out.csv");
    let out = data.run(&["history", "export", "--format", "csv", "--output", target.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.starts_with("reel: cannot create ") && err.contains("out.csv"), "{err}");
    let full = Path::new("/dev/full");
    if full.exists() {
        let out = data.reel(&["list"]).stdout(std::fs::File::create(full).expect("opens")).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2));
        assert!(err.starts_with("reel: cannot write to standard output: "), "{err}");
    }
}

/// A failed task nothing was rendered for, and a saved one the service finished.
fn seed_ended(db: &Path) -> (TaskRecord, TaskRecord) {
    let conn = open_writer(db).expect("db");
    let mut failed = tasks::insert(&conn, &new_task("a fox that fails")).expect("insert");
    failed.state = LocalState::Failed;
    failed.finished_at = Some(failed.created_at + 9_000);
    tasks::save(&conn, &failed).expect("save");
    tasks::add_event(&conn, failed.id, failed.created_at, "failed", None).expect("event");
    let mut saved = tasks::insert(&conn, &new_task("a fox that renders")).expect("insert");
    saved.state = LocalState::Downloaded;
    saved.remote_id = Some("task_1".into());
    saved.remote_created_at = Some(saved.created_at / 1000);
    saved.remote_completed_at = Some(saved.created_at / 1000 + 60);
    saved.url_deadline = Some(saved.created_at + 3_600_000);
    tasks::save(&conn, &saved).expect("save");
    (failed, saved)
}

/// Every time in a task object is an RFC 3339 string (or null); none is a number.
fn assert_times(what: &str, task: &serde_json::Map<String, Value>) {
    for (name, value) in task {
        if name.ends_with("_at") || name == "url_deadline" {
            match value {
                Value::Null => {}
                Value::String(s) => {
                    s.parse::<jiff::Timestamp>().unwrap_or_else(|e| panic!("{what}: {name} = {s:?}: {e}"));
                }
                other => panic!("{what}: {name} is {other}, not an RFC 3339 string"),
            }
        }
    }
}

#[test]
fn json_and_exports_show_one_time_format_and_no_billing_for_nothing_rendered() {
    let data = Data::new();
    let (failed, saved) = seed_ended(&data.db());
    let json = |args: &[&str]| -> Value {
        let out = data.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let listed = json(&["list", "--json"]);
    let searched = json(&["history", "search", "--json"]);
    let shown = json(&["show", &saved.id.to_string(), "--json"]);
    let mut objects: Vec<(String, Value)> = Vec::new();
    for (what, array) in [("list", &listed), ("search", &searched)] {
        objects.extend(array.as_array().expect("array").iter().map(|t| (what.to_string(), t.clone())));
    }
    objects.push(("show".into(), shown["task"].clone()));
    let out = data.run(&["history", "export", "--format", "jsonl"]);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        objects.push(("jsonl".into(), serde_json::from_str(line).expect("json line")));
    }
    assert_eq!(objects.len(), 2 + 2 + 1 + 2);
    for (what, t) in &objects {
        assert_times(what, t.as_object().expect("object"));
        let id = t["id"].as_i64().expect("id");
        let billed = if id == failed.id { Value::Null } else { json!(5.0) };
        assert_eq!(t["billed_seconds"], billed, "{what}: task {id}");
    }
    let saved_json = objects.iter().find(|(w, t)| w == "jsonl" && t["id"] == saved.id).map(|(_, t)| t).expect("saved");
    // Every time in one shape, milliseconds always written (`.000Z`), whatever its unit.
    let completed = reel_engine::public::time_s(saved.remote_completed_at.expect("completed")).expect("time");
    assert_eq!(saved_json["remote_completed_at"], completed, "the service's seconds, as a time");
    assert!(completed.ends_with(".000Z"), "{completed}");
    let created = reel_engine::public::time_ms(saved.created_at).expect("time");
    assert_eq!(saved_json["created_at"], created, "the journal's milliseconds, as a time");
    for event in shown["events"].as_array().expect("events") {
        assert!(event["at"].as_str().is_some_and(|s| s.parse::<jiff::Timestamp>().is_ok()), "{event}");
    }

    // CSV: id first, then the columns in the JSON's order, the same times and an empty bill.
    let out = data.run(&["history", "export", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = reader.headers().expect("header").iter().map(str::to_string).collect();
    let first = String::from_utf8_lossy(&data.run(&["history", "export", "--format", "jsonl"]).stdout)
        .lines()
        .next()
        .map(str::to_string)
        .expect("a line");
    let keys: Vec<String> = first
        .trim_matches(|c| c == '{' || c == '}')
        .split(",\"")
        .filter_map(|member| member.trim_start_matches('"').split_once("\":").map(|(k, _)| k.to_string()))
        .collect();
    assert_eq!(header.first().map(String::as_str), Some("id"));
    assert_eq!(header, keys, "CSV columns in the JSON's order");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let cell =
        |row: &csv::StringRecord, name: &str| row[header.iter().position(|h| h == name).expect("column")].to_string();
    assert_eq!(cell(&rows[0], "billed_seconds"), "", "the failed task bills nothing");
    assert_eq!(cell(&rows[1], "billed_seconds"), "5.0");
    assert_eq!(cell(&rows[1], "created_at"), created.to_string());
}

#[test]
fn an_unusable_data_folder_is_an_error_naming_it() {
    let data = Data::new();
    let run_in = |dir: &Path| data.reel(&["list"]).env("REEL_DATA_DIR", dir).output().expect("runs");

    // No folder yet, or a folder without a journal: no tasks, which is fine.
    let fresh = data.dir.path().join("fresh");
    let out = run_in(&fresh);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("No tasks yet"));

    let file = data.dir.path().join("a-file");
    std::fs::write(&file, b"not a folder").expect("file");
    let garbage = data.dir.path().join("garbage");
    std::fs::create_dir(&garbage).expect("dir");
    std::fs::write(garbage.join("reel.db"), b"this is not a database at all, just text ".repeat(200)).expect("db");
    let foreign = data.dir.path().join("foreign");
    std::fs::create_dir(&foreign).expect("dir");
    rusqlite::Connection::open(foreign.join("reel.db"))
        .and_then(|c| c.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');"))
        .expect("another program's database");
    for (dir, named) in
        [(&file, file.clone()), (&garbage, garbage.join("reel.db")), (&foreign, foreign.join("reel.db"))]
    {
        for args in [&["list"][..], &["history", "search"], &["history", "export", "--format", "csv"], &["show", "1"]] {
            let out = data.reel(args).env("REEL_DATA_DIR", dir).output().expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} in {}: {err}", dir.display());
            assert!(err.contains(&format!("{} is not usable", named.display())), "{args:?}: {err}");
            assert!(!String::from_utf8_lossy(&out.stdout).contains("No tasks"), "{args:?}");
        }
    }
}

#[test]
fn the_dashboard_without_a_terminal_says_it_needs_one() {
    let data = Data::new();
    let out = data.run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "no escape codes written: {:?}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("the dashboard needs a terminal") && err.contains("reel list"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert_terminal_safe("stderr", &out.stderr);
}

#[test]
fn wait_all_fails_when_a_task_it_waited_on_ends_submit_unknown() {
    let data = Data::new();
    let conn = open_writer(&data.db()).expect("db");
    let mut cut = tasks::insert(&conn, &new_task("a send cut short by a crash")).expect("insert");
    cut.state = LocalState::Submitting;
    tasks::save(&conn, &cut).expect("save");
    drop(conn);
    // The engine that starts now finds the send cut short: whether the service has it is unknown.
    let out = data.run(&["wait", "--all", "--no-service", "--json", "--timeout", "60"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let tasks: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(tasks[0]["id"], cut.id, "{tasks}");
    assert_eq!(tasks[0]["state"], "submit_unknown", "{tasks}");
    let one = data.run(&["wait", &cut.id.to_string(), "--no-service"]);
    assert_eq!(one.status.code(), Some(1), "the same as waiting on it by id");
}

#[test]
fn a_list_says_when_rows_are_left_out_and_a_batch_is_listed_whole() {
    let data = Data::new();
    let conn = open_writer(&data.db()).expect("db");
    // A batch's id is its first task's: 1 in a new journal.
    for i in 0..60 {
        let mut t = new_task(&format!("a swan number {i}"));
        t.batch_id = Some(1);
        let r = tasks::insert(&conn, &t).expect("insert");
        assert_eq!(r.batch_id, Some(1), "task {}", r.id);
    }
    drop(conn);
    let rows = |out: &Output| serde_json::from_slice::<Vec<Value>>(&out.stdout).expect("json").len();
    let newest = data.run(&["list", "--json"]);
    assert_eq!(rows(&newest), 50);
    let said = String::from_utf8_lossy(&newest.stderr);
    assert!(said.contains("the newest 50 are shown and more match"), "{said}");
    let whole = data.run(&["list", "--json", "--batch", "1"]);
    assert_eq!(rows(&whole), 60, "the whole batch: {}", String::from_utf8_lossy(&whole.stderr));
    assert!(whole.stderr.is_empty(), "nothing left out: {}", String::from_utf8_lossy(&whole.stderr));
    let all = data.run(&["list", "--json", "--limit", "0"]);
    assert_eq!(rows(&all), 60, "--limit 0 is all, never none");
    let exact = data.run(&["list", "--json", "--limit", "60"]);
    assert_eq!(rows(&exact), 60);
    assert!(exact.stderr.is_empty(), "60 of 60 leaves nothing out");
}

#[test]
fn show_json_keeps_lists_field_order_and_every_time_has_three_digits() {
    let data = Data::new();
    let conn = open_writer(&data.db()).expect("db");
    let mut t = new_task("a swan at midday");
    t.created_at = 1_764_033_123_640;
    let r = tasks::insert(&conn, &t).expect("insert");
    tasks::add_event(&conn, r.id, 1_764_033_124_000, "queued", None).expect("event");
    drop(conn);
    let text = |args: &[&str]| String::from_utf8_lossy(&data.run(args).stdout).into_owned();
    let (list, show) = (text(&["list", "--json"]), text(&["show", &r.id.to_string(), "--json"]));
    let order = |json: &str| {
        let keys = ["\"id\"", "\"parent_id\"", "\"state\"", "\"model\"", "\"prompt\"", "\"base_url\""];
        keys.iter().map(|k| json.find(k).unwrap_or_else(|| panic!("{k} in {json}"))).collect::<Vec<_>>()
    };
    let sorted = |v: Vec<usize>| v.windows(2).all(|w| w[0] < w[1]);
    assert!(sorted(order(&list)) && sorted(order(&show)), "one order in both:\n{list}\n{show}");
    assert!(show.contains("\"created_at\": \"2025-11-25T01:12:03.640Z\""), "{show}");
    assert!(show.contains("\"at\": \"2025-11-25T01:12:04.000Z\""), "{show}");
}

#[test]
fn a_search_filter_that_filters_nothing_is_named_not_answered_with_no_match() {
    let data = Data::new();
    seed_many(&data.db(), 3);
    for (filter, said) in [
        ("rating:>=6", "`rating:>=6` admits no rating: ratings are 1 to 5"),
        ("rating:abc", "`rating:abc` is not a rating filter"),
    ] {
        let out = data.run(&["history", "search", &format!("fox {filter}")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{filter}: {err}");
        assert!(err.contains(said), "{filter}: {err}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("No task matches"), "{filter}");
    }
    let fine = data.run(&["history", "search", "fox rating:>=4"]);
    assert_eq!(fine.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&fine.stdout).contains("No task matches"), "a filter that reads, nothing rated");
}

#[test]
fn demo_work_is_free_in_the_ledger_as_in_the_budget() {
    let data = Data::new();
    let config = data.dir.path().join("config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("[pricing]\ncurrency = \"$\"\nper_second = { \"acme/aurora-3.0/text-to-video\" = 0.5 }\n");
    std::fs::write(&config, text).expect("config");
    let conn = open_writer(&data.db()).expect("db");
    for (profile, base_url) in [(Some("demo"), "http://127.0.0.1:8787/"), (None, "https://api.example.com/")] {
        let mut t = new_task("a heron");
        t.profile = profile.map(String::from);
        t.base_url = base_url.into();
        let mut r = tasks::insert(&conn, &t).expect("insert");
        r.state = LocalState::Downloaded;
        r.remote_completed_at = Some(r.created_at / 1000 + 60);
        tasks::save(&conn, &r).expect("save");
    }
    drop(conn);
    let out = data.run(&["history", "stats", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stats["total"]["tasks"], 2, "{stats}");
    assert_eq!(stats["total"]["cost"]["amount"], 2.5, "only the real service's 5 s at $0.50: {stats}");
}

#[test]
fn a_read_only_data_folder_is_named_as_such_not_as_a_broken_database() {
    let Some(fs) = reel_store::disk::testing::Tmpfs::mount(8 << 20) else { return };
    let data = fs.path().join("data");
    std::fs::create_dir_all(&data).expect("data");
    let conn = open_writer(&data.join("reel.db")).expect("db");
    tasks::insert(&conn, &new_task("a heron")).expect("insert");
    drop(conn);
    let remounted = Command::new("mount").args(["-o", "remount,ro"]).arg(fs.path()).status().expect("mount");
    assert!(remounted.success(), "remount read-only");
    let out = Command::new(env!("CARGO_BIN_EXE_reel"))
        .args(["list"])
        .env("REEL_DATA_DIR", &data)
        .env("REEL_CONFIG", "/dev/null")
        .env_remove("REEL_API_KEY")
        .env_remove("REEL_BASE_URL")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("read-only file system"), "{err}");
    assert!(!err.contains("not a reel database"), "{err}");
}
