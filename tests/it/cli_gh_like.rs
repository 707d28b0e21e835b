//! The command line as gh and llm users reach for it (issue 23, item 5): completions, the man
//! page, the prompt as an argument or from stdin, short flags, a default model, models by
//! suffix, and the commands for one task: rerun, vary, resend, rm, open. The real binary
//! against the simulator on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::folder::{Folder, folder};
use crate::common::*;
use reel_sim::{Faults, SimHandle};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// A data folder and a config file with fast polling and, when given, `[defaults] model`.
fn env(default_model: Option<&str>) -> Folder {
    folder(1.0, 50).with_config(
        &default_model
            .map(|m| {
                format!(
                    "[defaults]
model = \"{m}\"
"
                )
            })
            .unwrap_or_default(),
    )
}

/// (exit code, stdout, stderr), with `stdin` written to the command's standard input.
async fn run_with_stdin(mut command: Command, stdin: Option<&str>) -> (i32, String, String) {
    if stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().expect("runs");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("stdin");
        pipe.write_all(text.as_bytes()).await.expect("writes stdin");
        drop(pipe);
    }
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("finishes within a minute")
        .expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

async fn run(env: &Folder, sim: &SimHandle, args: &[&str]) -> (i32, String, String) {
    run_with_stdin(env.reel(sim, args), None).await
}

/// The one task a `--json` command printed.
fn one_task(out: &str) -> Value {
    let tasks: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("json ({e}): {out}"));
    assert_eq!(tasks.as_array().map(Vec::len), Some(1), "{out}");
    tasks[0].clone()
}

async fn listed(env: &Folder, sim: &SimHandle) -> Vec<Value> {
    let (code, out, err) = run(env, sim, &["list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out).expect("json").as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn completions_for_three_shells_and_a_man_page() {
    let sim = start(fast_config()).await;
    let env = env(None);
    for (shell, mark) in [("bash", "complete -F _reel"), ("zsh", "#compdef reel"), ("fish", "complete -c reel")] {
        let (code, out, err) = run(&env, &sim, &["completions", shell]).await;
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(mark), "{shell}: no {mark:?} in the script");
        for command in ["rerun", "vary", "resend", "open", "submit"] {
            assert!(out.contains(command), "{shell}: {command} is not completed");
        }
    }
    let script = env.dir.path().join("reel.bash");
    let (_, out, _) = run(&env, &sim, &["completions", "bash"]).await;
    std::fs::write(&script, out).expect("script");
    if let Some(checked) = installed(std::process::Command::new("bash").arg("-n").arg(&script)) {
        assert!(checked.status.success(), "bash cannot parse the script: {}", String::from_utf8_lossy(&checked.stderr));
    }
    // Values that are not files are not completed as files; the states are offered by name.
    let bash = std::fs::read_to_string(&script).expect("script");
    for option in ["--model", "--ratio", "--resolution", "--seconds", "--status"] {
        let lines: Vec<&str> = bash.lines().collect();
        for (i, _) in lines.iter().enumerate().filter(|(_, l)| l.trim() == format!("{option})")) {
            assert!(!lines[i + 1].contains("compgen -f"), "{option} completes files: {}", lines[i + 1]);
        }
    }
    assert!(bash.contains("waiting submitting submit_unknown"), "the states by name");
    let (code, out, err) = run(&env, &sim, &["completions", "tcsh"]).await;
    assert_eq!(code, 2, "an unknown shell is a usage error: {out}");
    assert!(err.contains("bash") && err.contains("fish"), "the shells are listed: {err}");
    let (code, page, err) = run(&env, &sim, &["man"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH reel 1"), "a roff page of section 1");
    assert!(page.contains(".SH \"EXIT STATUS\"") && !page.contains("EXTRA"), "the notes under their own titles");
    for command in ["rerun", "vary", "completions"] {
        assert!(page.contains(command), "the page lists {command}");
    }
    let file = env.dir.path().join("reel.1");
    std::fs::write(&file, &page).expect("page");
    if let Some(shown) = installed(std::process::Command::new("nroff").arg("-man").arg(&file)) {
        assert!(shown.status.success(), "nroff renders the page");
        // Bold is overstruck (X backspace X): a backspace takes back the letter before it.
        let mut text = String::new();
        for c in String::from_utf8_lossy(&shown.stdout).chars() {
            if c == '\u{8}' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        assert!(text.contains("SYNOPSIS") && text.contains("reel-rerun(1)"), "{text}");
    }
    let dir = env.dir.path().join("man1");
    let (code, out, err) = run(&env, &sim, &["man", "--dir", dir.to_str().expect("utf-8")]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Wrote the manual pages"), "{out}");
    for name in ["reel.1", "reel-submit.1", "reel-vary.1", "reel-completions.1"] {
        let page = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(page.contains(".TH"), "{name} is a page");
    }
    let submit = std::fs::read_to_string(dir.join("reel-submit.1")).unwrap_or_default();
    assert!(submit.contains("model") && submit.contains("PROMPT"), "submit's page has its options");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prompt_comes_as_an_argument_or_from_stdin_with_the_default_model() {
    let sim = start(fast_config()).await;
    let env = env(Some("aurora-3.0/t2v"));
    let (code, out, err) = run(&env, &sim, &["submit", "a red fox", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let task = one_task(&out);
    assert_eq!(task["prompt"], "a red fox");
    assert_eq!(task["model"], "acme/aurora-3.0/text-to-video", "the config's default, by suffix");
    for args in
        [&["submit", "-", "--json"][..], &["submit", "--prompt", "-", "--json"], &["submit", "-p", "-", "--json"]]
    {
        let (code, out, err) = run_with_stdin(env.reel(&sim, args), Some("a fox\nin the snow\n")).await;
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(one_task(&out)["prompt"], "a fox\nin the snow", "{args:?}: the prompt is stdin's, not \"-\"");
    }
    let (code, out, err) =
        run(&env, &sim, &["submit", "-m", "swift-1.5/text-to-video", "-s", "8", "-n", "2", "two foxes", "--json"])
            .await;
    assert_eq!(code, 0, "{err}");
    let tasks: Value = serde_json::from_str(&out).expect("json");
    let tasks = tasks.as_array().expect("array");
    assert_eq!(tasks.len(), 2, "-n is the count");
    assert!(tasks.iter().all(|t| t["model"] == "acme/swift-1.5/text-to-video" && t["seconds"] == 8), "{out}");
    let sent = sim.task_count();
    assert_eq!(sent, 6);
    // Refused before anything is sent: an ambiguous suffix, an empty stdin, two prompts.
    let (code, _, err) = run(&env, &sim, &["submit", "-m", "t2v", "a fox"]).await;
    assert_eq!(code, 2);
    for candidate in ["acme/aurora-3.0/text-to-video", "acme/aurora-2.7/text-to-video", "acme/swift-1.5/text-to-video"]
    {
        assert!(err.contains(candidate), "the candidates are listed: {err}");
    }
    let (code, _, err) = run(&env, &sim, &["submit", "-m", "nothing/t2v", "a fox"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("no known model ends with \"nothing/t2v\""), "{err}");
    let (code, _, err) = run_with_stdin(env.reel(&sim, &["submit", "-"]), Some("\n")).await;
    assert_eq!(code, 2);
    assert!(err.contains("standard input is empty"), "{err}");
    let (code, _, _) = run(&env, &sim, &["submit", "a fox", "--prompt", "a wolf"]).await;
    assert_eq!(code, 2, "a prompt given twice is a usage error");
    assert_eq!(sim.task_count(), sent, "nothing more was sent");
    assert_eq!(listed(&env, &sim).await.len(), sent, "nothing more was journaled");
}

/// A prompt piped in as `-` is the prompt on every path: a template or list given with it
/// expands as if typed, a dry run shows it, and an ambiguous suffix is named before any row.
#[tokio::test(flavor = "multi_thread")]
async fn a_piped_prompt_expands_like_a_typed_one() {
    let sim = start(fast_config()).await;
    let env = env(Some("aurora-3.0/t2v"));
    let dry = env.reel(&sim, &["submit", "-", "-s", "5,10", "--dry-run", "--json"]);
    let (code, out, err) = run_with_stdin(dry, Some("a {red|blue} fox\n")).await;
    assert_eq!(code, 0, "{err}");
    let tasks: Value = serde_json::from_str(&out).expect("json");
    let mut prompts: Vec<String> = tasks
        .as_array()
        .expect("the expanded tasks")
        .iter()
        .map(|t| format!("{} {}", t["prompt"].as_str().unwrap_or("?"), t["seconds"]))
        .collect();
    prompts.sort();
    assert_eq!(prompts, ["a blue fox 10", "a blue fox 5", "a red fox 10", "a red fox 5"], "{out}");
    let sent = env.reel(&sim, &["submit", "--prompt", "-", "-s", "5,10", "--json"]);
    let (code, out, err) = run_with_stdin(sent, Some("a fox from stdin\n")).await;
    assert_eq!(code, 0, "{err}");
    let journaled: Value = serde_json::from_str(&out).expect("json");
    let journaled = journaled.as_array().expect("tasks");
    assert_eq!(journaled.len(), 2);
    assert!(journaled.iter().all(|t| t["prompt"] == "a fox from stdin"), "never the prompt \"-\": {out}");
    let (code, _, err) = run(&env, &sim, &["submit", "-m", "t2v", "-s", "5,10", "a fox", "--dry-run"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("model \"t2v\" matches") && err.contains("acme/swift-1.5/text-to-video"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_long_prompts_and_control_characters_are_refused_before_anything_is_journaled() {
    let sim = start(fast_config()).await;
    let env = env(Some("acme/aurora-3.0/text-to-video"));
    let long = "x".repeat(10_001);
    let cases: [(&[&str], &str); 4] = [
        (
            &["submit", "--prompt", &long],
            "prompt: prompt is 10,001 characters long; at most 10,000 are allowed (the [prompt] max_chars)",
        ),
        (&["submit", "a fox\u{1b}]0;pwned\u{7}"], "prompt: prompt holds U+001B (a control character) at character 6"),
        (
            &["submit", "a fox", "--negative", "blur \u{202e}"],
            "metadata.negative_prompt: metadata.negative_prompt holds U+202E (a bidi embedding or override) at \
             character 6",
        ),
        // The batch path (a template) checks every task with the same rules.
        (&["submit", "{a|b} fox\u{7f}"], "command line: prompt: prompt holds U+007F (DEL) at character 6"),
    ];
    for (args, want) in cases {
        let (code, out, err) = run(&env, &sim, args).await;
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("nothing was sent"), "{args:?}: {err}");
    }
    assert!(listed(&env, &sim).await.is_empty(), "nothing was journaled");
    // At the bound, and with newlines and tabs, the prompt is sent.
    let at_bound = "x".repeat(10_000);
    let (code, out, err) = run(&env, &sim, &["submit", "--prompt", &at_bound, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(one_task(&out)["prompt"].as_str().map(str::len), Some(10_000));
    let (code, _, err) = run(&env, &sim, &["submit", "a fox\n\tin snow", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(listed(&env, &sim).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_default_model_the_error_says_where_to_set_one() {
    let sim = start(fast_config()).await;
    let (none, ambiguous) = (env(None), env(Some("t2v")));
    let (code, _, err) = run(&none, &sim, &["submit", "a fox"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("--model") && err.contains("[defaults] model"), "{err}");
    let (code, _, err) = run(&ambiguous, &sim, &["submit", "a fox"]).await;
    assert_eq!(code, 2);
    assert!(err.starts_with("reel: [defaults] model in the config file: model \"t2v\" matches"), "{err}");
    assert_eq!(sim.task_count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn rerun_vary_open_and_rm_act_on_one_task() {
    let sim = start(fast_config()).await;
    let env = env(None);
    let model = "acme/aurora-3.0/text-to-video";
    let (code, out, err) = run(&env, &sim, &["submit", "-m", model, "a red fox", "-s", "6", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let first = one_task(&out);
    let id = first["id"].as_i64().expect("id");
    let file = PathBuf::from(first["file_path"].as_str().expect("saved"));

    let (code, out, err) = run(&env, &sim, &["rerun", &id.to_string(), "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let rerun = one_task(&out);
    assert_eq!(rerun["parent_id"], id, "a re-run records its parent");
    for field in ["model", "prompt", "seconds", "resolution", "ratio", "watermark"] {
        assert_eq!(rerun[field], first[field], "{field} is as it was");
    }
    assert_ne!(rerun["id"], first["id"]);

    let (code, out, err) =
        run(&env, &sim, &["vary", &id.to_string(), "--prompt", "a grey wolf", "-s", "10", "--ratio", "16:9", "--json"])
            .await;
    assert_eq!(code, 0, "{err}");
    let varied = one_task(&out);
    assert_eq!(varied["parent_id"], id);
    assert_eq!((varied["prompt"].as_str(), varied["seconds"].as_i64()), (Some("a grey wolf"), Some(10)));
    assert_eq!((varied["ratio"].as_str(), varied["model"].as_str()), (Some("16:9"), Some(model)));
    let (code, _, err) = run(&env, &sim, &["vary", &id.to_string(), "-s", "99"]).await;
    assert_eq!(code, 2, "a variation is validated like a submission");
    assert!(err.contains("seconds") && err.contains("nothing was sent"), "{err}");
    assert_eq!(sim.task_count(), 3);

    // `open` hands the saved file to $REEL_PLAYER, which here records its argument.
    let record = env.dir.path().join("played.txt");
    let player = env.dir.path().join("player.sh");
    std::fs::write(&player, format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", record.display())).expect("script");
    make_executable(&player);
    let mut open = env.reel(&sim, &["open", &id.to_string()]);
    open.env("REEL_PLAYER", &player);
    let (code, out, err) = run_with_stdin(open, None).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Opening"), "{out}");
    let played = wait_for_file(&record).await;
    assert_eq!(Path::new(&played), file, "the player got the saved file");
    let mut open = env.reel(&sim, &["open", &varied["id"].to_string()]);
    open.env("REEL_PLAYER", &player);
    let (code, _, err) = run_with_stdin(open, None).await;
    assert_eq!(code, 1, "a task without a saved video cannot be opened");
    assert!(err.contains("no saved video") || err.contains("missing"), "{err}");

    let rerun_id = rerun["id"].to_string();
    let (code, _, _) = run(&env, &sim, &["wait", &rerun_id]).await;
    assert_eq!(code, 0);
    let (code, out, err) = run(&env, &sim, &["rm", &rerun_id]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("Deleted task {rerun_id}")) && out.contains("its file stays"), "{out}");
    let (code, out, err) = run(&env, &sim, &["rm", &id.to_string(), "--file"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("and its file"), "{out}");
    assert!(!file.exists(), "--file deletes the video");
    let ids: Vec<i64> = listed(&env, &sim).await.iter().filter_map(|t| t["id"].as_i64()).collect();
    assert!(!ids.contains(&id) && !ids.contains(&rerun["id"].as_i64().expect("id")), "{ids:?}");
    let (code, _, err) = run(&env, &sim, &["rm", &id.to_string()]).await;
    assert_eq!(code, 2, "a deleted task is no more: {err}");
    assert!(err.contains(&id.to_string()), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn resend_sends_a_submit_unknown_task_again_with_its_key() {
    let sim = start(fast_config()).await;
    let env = env(Some("aurora-3.0/t2v"));
    // The service records the task but the answer never comes back.
    sim.set_faults(Faults { drop: 1.0, ..Faults::default() });
    let (code, out, err) = run(&env, &sim, &["submit", "a lost answer", "--json"]).await;
    assert_eq!(code, 1, "{err}");
    let lost = one_task(&out);
    assert_eq!(lost["state"], "submit_unknown", "{out}");
    assert_eq!(sim.task_count(), 1, "the service did take it");
    sim.set_faults(Faults::default());
    let id = lost["id"].to_string();
    let (code, out, err) = run(&env, &sim, &["resend", &id, "--wait", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let resent = one_task(&out);
    assert_eq!((resent["id"].clone(), resent["state"].as_str()), (lost["id"].clone(), Some("downloaded")));
    assert_eq!(sim.task_count(), 1, "the same idempotency key: the service recognised the first task");
    let (code, _, err) = run(&env, &sim, &["resend", &id]).await;
    assert_eq!(code, 2, "a downloaded task is not sent again");
    assert!(err.contains("does not apply"), "{err}");
}

/// The program's output, or `None` (the check is skipped) when it is not installed.
fn installed(command: &mut std::process::Command) -> Option<std::process::Output> {
    match command.output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(std::env::var_os("CI").is_none(), "CI must install {command:?} (see .ci/run)");
            eprintln!("skipped: {command:?} is not installed");
            None
        }
        Err(e) => panic!("{command:?}: {e}"),
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The file's text once something has written it (the player runs on after `reel open`).
async fn wait_for_file(path: &Path) -> String {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} was never written", path.display());
}
