//! What the headless commands write, on the real binary: a closed pipe ends them quietly, and
//! nothing a server sent reaches the terminal as a control sequence, in any format.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use reel::store::fixtures::new_task;
use reel::store::tasks::{self, MediaRecord, NewTask, TaskRecord};
use reel::store::{LocalState, open_writer};
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
/// and isolates. Written out here rather than taken from `reel::text`, to check it independently.
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
    let back: TaskRecord = serde_json::from_str(line).expect("a task");
    assert_eq!(back, stored, "jsonl export loses nothing");
    let shown: Value = serde_json::from_str(&outputs[5]).expect("json");
    assert_eq!(shown["task"], serde_json::to_value(&stored).expect("json"));

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
