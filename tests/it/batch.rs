//! `reel submit --from FILE`, templates and resumable batches: the real binary against the
//! simulator on 127.0.0.1.

use std::path::Path;
use std::time::Duration;

use crate::common::folder::{Folder, folder};
use crate::common::*;
use reel_sim::SimHandle;
use serde_json::Value;

fn env(extra: &str) -> Folder {
    folder(1.0, 50).with_config(extra)
}

/// (exit code, stdout, stderr) of `reel ARGS` run in the test's folder, within a minute.
async fn run(env: &Folder, sim: &SimHandle, args: &[&str]) -> (i32, String, String) {
    let mut c = env.reel(sim, args);
    c.current_dir(env.dir.path());
    let out = tokio::time::timeout(Duration::from_secs(60), c.output())
        .await
        .expect("finishes within a minute")
        .expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn json(out: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(out).expect("json").as_array().cloned().expect("an array")
}

async fn listed(env: &Folder, sim: &SimHandle) -> Vec<Value> {
    let (code, out, err) = run(env, sim, &["list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    json(&out)
}

fn prompts(tasks: &[Value]) -> Vec<&str> {
    let mut p: Vec<&str> = tasks.iter().filter_map(|t| t["prompt"].as_str()).collect();
    p.sort_unstable();
    p
}

const MODEL: &str = "acme/aurora-3.0/text-to-video";

#[tokio::test(flavor = "multi_thread")]
async fn all_three_formats_send_one_batch_each() {
    let sim = start(fast_config()).await;
    let env = env("");
    let csv = env.file("p.csv", "prompt,seconds,ratio\na red fox,10,16:9\n\"a fox, at dawn\",,9:16\n");
    let jsonl = env.file(
        "p.jsonl",
        "{\"prompt\": \"a grey owl\", \"seconds\": 8, \"copies\": 2}\n\n{\"prompt\": \"a barn\", \"watermark\": true}\n",
    );
    let text = env.file("p.txt", "# birds\na heron\na crane\n");
    let mut batches = Vec::new();
    for (file, count) in [(&csv, 2), (&jsonl, 3), (&text, 2)] {
        let (code, out, err) =
            run(&env, &sim, &["submit", "--from", file, "--model", MODEL, "--wait", "--json", "--yes"]).await;
        assert_eq!(code, 0, "{file}: {err}");
        let tasks = json(&out);
        assert_eq!(tasks.len(), count, "{file}");
        let batch = tasks[0]["batch_id"].as_i64().expect("a batch id");
        assert!(tasks.iter().all(|t| t["batch_id"] == batch && t["state"] == "downloaded"), "{file}: {out}");
        batches.push(batch);
    }
    let all = listed(&env, &sim).await;
    let by_prompt = |p: &str| all.iter().find(|t| t["prompt"] == p).expect(p).clone();
    assert_eq!(
        (by_prompt("a red fox")["seconds"].as_i64(), by_prompt("a red fox")["ratio"].as_str()),
        (Some(10), Some("16:9"))
    );
    assert_eq!(by_prompt("a fox, at dawn")["ratio"], "9:16");
    assert_eq!(by_prompt("a barn")["watermark"], true);
    assert_eq!(all.iter().filter(|t| t["prompt"] == "a grey owl").count(), 2, "copies");
    assert_eq!(prompts(&all).len(), 7);
    let (code, out, _) = run(&env, &sim, &["list", "--batch", &batches[2].to_string(), "--json"]).await;
    assert_eq!(code, 0);
    assert_eq!(prompts(&json(&out)), ["a crane", "a heron"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_row_stops_everything_unless_skipped() {
    let sim = start(fast_config()).await;
    let env = env("");
    let csv = env.file("p.csv", "prompt,seconds\na red fox,5\na blue fox,31\n,5\n");
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &csv, "--model", MODEL, "--wait", "--yes"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("p.csv:3: seconds: seconds 31 is out of range"), "{err}");
    assert!(err.contains("p.csv:4: prompt: prompt is required"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(listed(&env, &sim).await.is_empty(), "nothing was journaled");

    let (code, out, err) =
        run(&env, &sim, &["submit", "--from", &csv, "--model", MODEL, "--skip-invalid", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped ") && err.contains("p.csv:3: seconds"), "the skipped rows are listed: {err}");
    assert_eq!(prompts(&json(&out)), ["a red fox"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn templates_and_lists_expand_and_a_dry_run_sends_nothing() {
    let sim = start(fast_config()).await;
    let env = env("");
    env.file("subjects.txt", "fox\nowl\n");
    let args = [
        "submit",
        "--model",
        MODEL,
        "--prompt",
        "a {red|blue} {subject}",
        "--var",
        "subject=@subjects.txt",
        "--ratio",
        "16:9,9:16",
        "--seconds",
        "5,10",
        "--dry-run",
        "--json",
    ];
    let (code, out, err) = run(&env, &sim, &args).await;
    assert_eq!(code, 0, "{err}");
    let planned = json(&out);
    assert_eq!(planned.len(), 16, "2 colours × 2 subjects × 2 ratios × 2 durations");
    assert_eq!(planned[0]["prompt"], "a red fox");
    assert_eq!((planned[0]["ratio"].as_str(), planned[0]["seconds"].as_i64()), (Some("16:9"), Some(5)));
    assert_eq!(planned[15]["prompt"], "a blue owl");
    assert!(err.contains("16 tasks, billed 120 s"), "the count and billed seconds of the whole expansion: {err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(listed(&env, &sim).await.is_empty());

    // A column of the row gives a variable its value; text output names the row.
    let csv = env.file("v.csv", "prompt,subject\na {subject} in snow,wolf\n");
    let (code, out, err) = run(&env, &sim, &["submit", "--from", &csv, "--model", MODEL, "--dry-run"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("v.csv:2") && out.contains("a wolf in snow"), "{out}");

    let (code, _, err) =
        run(&env, &sim, &["submit", "--model", MODEL, "--prompt", "a {colour} car", "--dry-run"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("command line: prompt: {colour} has no values"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_threshold_it_asks_and_without_a_terminal_refuses() {
    let sim = start(fast_config()).await;
    let env = env("[batch]\nconfirm_over = 2\n");
    let text = env.file("p.txt", "one\ntwo\nthree\n");
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &text, "--model", MODEL, "--wait"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("3 tasks is more than the [batch] confirm_over of 2; add --yes"), "{err}");
    assert!(listed(&env, &sim).await.is_empty());
    let (code, out, err) =
        run(&env, &sim, &["submit", "--from", &text, "--model", MODEL, "--wait", "--yes", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_file_is_refused_in_bounded_memory_and_nothing_is_journaled() {
    let sim = start(fast_config()).await;
    let env = env("");
    // Before the bound, `--from /dev/zero` grew by gigabytes a minute: refused here at once.
    let started = std::time::Instant::now();
    let (code, out, err) = run(&env, &sim, &["submit", "--from", "/dev/zero", "--model", MODEL, "--dry-run"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("/dev/zero:1: a line longer than 1 MiB (the [batch] max_line_bytes)"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());

    // A file past the size bound is refused unread; a --var file is read within the same bounds.
    let env = env.with_config("[batch]\nmax_file_bytes = 100\nmax_line_bytes = 20\n");
    let big = env.file("big.txt", &"a fox\n".repeat(20));
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &big, "--model", MODEL, "--yes"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("big.txt: the file is 120 bytes, more than 100 bytes (the [batch] max_file_bytes)"), "{err}");
    env.file("subjects.txt", &format!("fox\n{}\n", "o".repeat(21)));
    let args = ["submit", "--model", MODEL, "--prompt", "a {subject}", "--var", "subject=@subjects.txt", "--yes"];
    let (code, _, err) = run(&env, &sim, &args).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "--var subject=@subjects.txt: subjects.txt:2: a line longer than 20 bytes (the [batch] max_line_bytes)"
        ),
        "{err}"
    );
    assert!(listed(&env, &sim).await.is_empty(), "nothing was journaled");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_past_max_tasks_is_refused_whole_even_when_skipping_invalid_rows() {
    let sim = start(fast_config()).await;
    let env = env("[batch]\nmax_tasks = 5\n");
    let csv = env.file("p.csv", "prompt,copies\na {red|blue} fox,2\nan owl,1\nan {old|young} cat,1\n");
    let args = ["submit", "--from", &csv, "--model", MODEL, "--skip-invalid", "--yes", "--wait"];
    let (code, _, err) = run(&env, &sim, &args).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("this batch expands to more than 5 tasks (the [batch] max_tasks); counting stopped at "),
        "{err}"
    );
    assert!(err.contains("p.csv:4, with 7 tasks (copies counted)"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    // A template on the command line counts the same way.
    let args = ["submit", "--model", MODEL, "--prompt", "{a|b|c} fox", "--ratio", "16:9,9:16", "--dry-run"];
    let (code, _, err) = run(&env, &sim, &args).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("counting stopped at command line, with 6 tasks"), "{err}");
    assert!(listed(&env, &sim).await.is_empty(), "nothing was journaled");
}

#[tokio::test(flavor = "multi_thread")]
async fn rows_whose_prompts_break_the_text_rules_are_named() {
    let sim = start(fast_config()).await;
    let env = env("[prompt]\nmax_chars = 12\n");
    let jsonl = env.file("p.jsonl", "{\"prompt\": \"a fox\\u001b[2J\"}\n{\"prompt\": \"a very long owl\"}\n");
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &jsonl, "--model", MODEL, "--yes"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("p.jsonl:1: prompt: prompt holds U+001B (a control character) at character 6"), "{err}");
    assert!(
        err.contains(
            "p.jsonl:2: prompt: prompt is 15 characters long; at most 12 are allowed (the [prompt] max_chars)"
        ),
        "{err}"
    );
    assert!(listed(&env, &sim).await.is_empty(), "nothing was journaled");
}

#[tokio::test(flavor = "multi_thread")]
async fn running_a_file_again_sends_only_the_new_rows() {
    let sim = start(fast_config()).await;
    let env = env("");
    let path = env.file("p.txt", "a red fox\na grey owl\n");
    let send = |extra: &'static [&'static str]| {
        let mut args = vec!["submit", "--from", path.as_str(), "--model", MODEL, "--wait", "--json", "--yes"];
        args.extend_from_slice(extra);
        args
    };
    let (code, out, err) = run(&env, &sim, &send(&[])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 2);

    std::fs::write(Path::new(&path), "a red fox\na grey owl\na barn at night\n").expect("write");
    let (code, out, err) = run(&env, &sim, &send(&["--dry-run"])).await;
    assert_eq!(code, 0, "{err}");
    let marks: Vec<bool> = json(&out).iter().map(|t| t["already_sent"].as_bool().expect("bool")).collect();
    assert_eq!(marks, [true, true, false]);

    let (code, out, err) = run(&env, &sim, &send(&[])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(prompts(&json(&out)), ["a barn at night"], "only the new row");
    assert!(err.contains("2 tasks sent by an earlier run are left out"), "{err}");

    let (code, out, err) = run(&env, &sim, &send(&[])).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.trim().is_empty() || json(&out).is_empty(), "{out}");
    assert!(err.contains("every task was already sent"), "{err}");

    let (code, out, err) = run(&env, &sim, &send(&["--again"])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 3, "--again sends them all");
    assert_eq!(listed(&env, &sim).await.len(), 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn rows_with_media_are_checked_once_per_list_and_billed_as_measured() {
    let sim = start(fast_config()).await;
    let env = env("");
    let base = sim.base_url();
    let r2v = "acme/aurora-3.0/reference-to-video-global";
    let video = format!("reference_video={base}/media/v.mp4?seconds=8@5");
    let jsonl = env.file(
        "m.jsonl",
        &format!(
            "{{\"prompt\": \"a {{red|blue}} fox\", \"media\": [\"{video}\"]}}\n\
             {{\"prompt\": \"a gone fox\", \"media\": [\"reference_image={base}/media/gone.gif\"]}}\n"
        ),
    );
    let media_checks = |sim: &SimHandle| sim.requests().iter().filter(|r| r.path.starts_with("/media/")).count();
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &jsonl, "--model", r2v, "--wait", "--yes"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no such file (404)") && err.contains("nothing was sent"), "{err}");
    assert!(listed(&env, &sim).await.is_empty());

    let good = env.file("g.jsonl", &format!("{{\"prompt\": \"a {{red|blue}} fox\", \"media\": [\"{video}\"]}}\n"));
    let before = media_checks(&sim);
    let (code, out, err) =
        run(&env, &sim, &["submit", "--from", &good, "--model", r2v, "--wait", "--yes", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks = json(&out);
    assert_eq!(tasks.len(), 2);
    assert!(tasks.iter().all(|t| t["billed_seconds"].as_f64() == Some(13.0)), "5 s out + 8 s measured: {out}");
    let two = media_checks(&sim) - before;
    let one = env.file("o.jsonl", &format!("{{\"prompt\": \"a grey fox\", \"media\": [\"{video}\"]}}\n"));
    let before = media_checks(&sim);
    let (code, _, err) = run(&env, &sim, &["submit", "--from", &one, "--model", r2v, "--wait", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(two, media_checks(&sim) - before, "two tasks with one media list check it once, as one task does");
    assert!(two >= 1);

    let (code, _, err) = run(&env, &sim, &["submit", "--from", &good, "--model", r2v, "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("every task was already sent"), "the key is the task's content, measured: {err}");
    assert_eq!(listed(&env, &sim).await.len(), 3);
}

/// The tmux server of a test, killed when the test ends, passed or not.
struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("tmux").args(["-L", &self.0]).args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once `ready` holds for it.
    fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let screen = self.run(&["capture-pane", "-p", "-t", "reel"]);
            if ready(&screen) {
                return screen;
            }
            assert!(std::time::Instant::now() < deadline, "{what} never came:\n{screen}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// On a terminal, past the threshold, the question decides: "n" sends nothing, "y" sends.
#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_past_the_threshold_it_asks() {
    let sim = start(fast_config()).await;
    let env = env("[batch]\nconfirm_over = 2\n");
    let text = env.file("p.txt", "one\ntwo\nthree\n");
    let tmux = Tmux(format!("reel-batch-test-{}", std::process::id()));
    let command = format!(
        // Exported: both commands run against the simulator, on the test's own data folder.
        "export REEL_BASE_URL={} REEL_API_KEY={} REEL_DATA_DIR={} REEL_CONFIG={}; {bin} submit --from {text} --model {MODEL} \
         --wait; echo first-exited-$?; {bin} submit --from {text} --model {MODEL} --wait; echo second-exited-$?; \
         sleep 600",
        sim.base_url(),
        sim.api_key(),
        env.data.display(),
        env.config.display(),
        bin = env!("CARGO_BIN_EXE_reel"),
    );
    tmux.run(&["new-session", "-d", "-s", "reel", "-x", "160", "-y", "40", &command]);
    let question = "send 3 tasks? [y/N]";
    let screen = tmux.wait_until("the question", |s| s.contains(question));
    assert!(screen.contains("3 tasks, billed 15 s"), "the count and billed seconds come first: {screen}");
    tmux.run(&["send-keys", "-t", "reel", "n", "Enter"]);
    tmux.wait_until("the first exit", |s| s.contains("first-exited-2"));
    assert!(listed(&env, &sim).await.is_empty(), "\"n\" sends nothing");
    tmux.wait_until("the second question", |s| s.matches(question).count() == 2);
    tmux.run(&["send-keys", "-t", "reel", "y", "Enter"]);
    tmux.wait_until("the second exit", |s| s.contains("second-exited-0"));
    assert_eq!(prompts(&listed(&env, &sim).await), ["one", "three", "two"], "\"y\" sends");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_wait_a_file_returns_once_journaled_and_wait_batch_follows_it() {
    let sim = start(fast_config()).await;
    // Four requests a second: sending these 30 takes seconds; journaling them does not.
    let env = env("[batch]\nconfirm_over = 100\n").with_budget(4);
    let file = env.file("many.txt", &(1..=30).map(|i| format!("take {i}\n")).collect::<String>());
    let (code, out, err) = run(&env, &sim, &["submit", "--from", &file, "--model", MODEL, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks = json(&out);
    assert_eq!(tasks.len(), 30);
    let batch = tasks[0]["batch_id"].as_i64().expect("a batch id");
    let waiting = tasks.iter().filter(|t| t["state"] == "waiting").count();
    assert!(waiting >= 25, "returned before the engine sent them: {out}");
    assert!(err.contains(&format!("journaled 30 tasks as batch {batch}")), "{err}");
    assert!(err.contains(&format!("reel wait --batch {batch}")), "{err}");

    let (code, out, err) = run(&env, &sim, &["wait", "--batch", &batch.to_string(), "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let done = json(&out);
    assert_eq!(done.len(), 30);
    assert!(done.iter().all(|t| t["state"] == "downloaded" && t["batch_id"] == batch), "{out}");
    let (code, _, err) = run(&env, &sim, &["wait", "--batch", "999999"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no batch 999999"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_engine_process_a_file_is_followed_until_sent() {
    let sim = start(fast_config()).await;
    let env = env("");
    let file = env.file("few.txt", "a heron\na crane\na stork\n");
    let (code, out, err) =
        run(&env, &sim, &["--no-service", "submit", "--from", &file, "--model", MODEL, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let tasks = json(&out);
    assert_eq!(tasks.len(), 3);
    // The engine ended with the command: returning at journaling would have cut its sends short.
    assert!(
        tasks.iter().all(|t| t["state"] == "queued"
            || t["state"] == "in_progress"
            || t["state"] == "completed"
            || t["state"] == "downloaded"),
        "{out}"
    );
    assert!(!err.contains("journaled 3 tasks"), "{err}");
}
