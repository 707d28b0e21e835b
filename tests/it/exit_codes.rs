//! What the waiting and sending commands exit with, and what they say on stderr when it is not 0,
//! on the binary against the simulator on 127.0.0.1: a task held by the engine is said to be held
//! (exit 3, never the "nothing was sent" of 2) and is sent once the service answers; `wait
//! --timeout` names the tasks still unfinished; `wait --all` counts a lost answer and says what
//! to do about it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crate::common::folder::*;
use crate::common::*;
use reel_sim::SimHandle;
use reel_store::fixtures::new_task;
use reel_store::{LocalState, open_writer, tasks};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn a_send_held_while_the_service_is_down_exits_3_and_goes_when_it_answers() {
    // A service that is gone: its port is known, nothing listens there. `placeholder` only gives
    // the commands their environment; the base URL is the gone one's.
    let gone = start(slow_sim()).await;
    let port = gone.addr().port();
    gone.stop().await;
    let url = format!("http://127.0.0.1:{port}");
    let placeholder = start(slow_sim()).await;
    let f = folder(60.0, 50);
    let run = async |args: &[&str]| {
        let mut cmd = f.reel(&placeholder, args);
        cmd.env("REEL_BASE_URL", &url);
        let out = tokio::time::timeout(PATIENCE, cmd.output()).await.expect("in time").expect("runs");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let (code, stdout, stderr) = run(&["submit", "-m", MODEL, "-s", "5", "--json", "a heron, held"]).await;
    assert_eq!(code, Some(3), "held, not 'nothing was sent': {stdout}\n{stderr}");
    let held: Vec<Value> = serde_json::from_str(&stdout).expect("json");
    let id = held[0]["id"].as_i64().expect("id");
    assert_eq!(held[0]["state"], "waiting", "{stdout}");
    assert!(stderr.contains(&format!("task {id} is held, not sent yet")), "{stderr}");
    // The service comes back where it was: the engine sends the held task by itself, once.
    let back = SimHandle::start(slow_sim(), port).await.expect("the same port again");
    let (code, _, stderr) = run(&["wait", &id.to_string()]).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(back.requests().iter().filter(|r| r.method == "POST").count(), 1, "sent once");
    let _ = run(&["engine", "stop"]).await;
    back.stop().await;
    placeholder.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_says_which_tasks_a_timeout_left_unfinished() {
    let sim = start(slow_sim()).await;
    let f = folder(60.0, 50);
    // Long enough to outlast the timeout: the slow simulator renders for 1.5 to 2.5 s.
    let (code, out, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--json", "a heron"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let id = serde_json::from_str::<Vec<Value>>(&out).expect("json")[0]["id"].as_i64().expect("id").to_string();
    let (code, _, err) = f.run(&sim, &["wait", &id, "--timeout", "0.3"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--timeout 0.3 s ran out with 1 task unfinished"), "{err}");
    assert!(err.contains(&format!("`reel wait {id}` follows them again")), "{err}");
    let (code, _, err) = f.run(&sim, &["wait", &id]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("ran out"), "{err}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_all_counts_a_lost_answer_and_says_what_to_do() {
    let sim = start(slow_sim()).await;
    let f = folder(60.0, 50);
    // A task saved first, so the journal exists and holds something that ended well.
    let (code, _, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--wait", "saved first"]).await;
    assert_eq!(code, 0, "{err}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    let conn = open_writer(&f.data.join("reel.db")).expect("db");
    let mut lost = tasks::insert(&conn, &new_task("an answer lost")).expect("insert");
    lost.state = LocalState::SubmitUnknown;
    tasks::save(&conn, &lost).expect("save");
    drop(conn);
    let (code, out, err) = f.run(&sim, &["wait", "--all"]).await;
    assert_eq!(code, 1, "not all is well: {out}\n{err}");
    assert!(err.contains(&format!("task {} is submit_unknown", lost.id)), "{err}");
    assert!(err.contains(&format!("`reel resend {}`", lost.id)), "what to do: {err}");
    let (_, shown, _) = f.run(&sim, &["show", &lost.id.to_string()]).await;
    assert!(shown.contains("answer lost: the service may have it"), "{shown}");
    assert!(!shown.contains("not accepted"), "{shown}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}
