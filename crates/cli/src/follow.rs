//! Runs the engine for a command until its tasks reach the point the command waits for.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use super::CliError;
use super::output::{Output, OutputError, allow_closed};
use super::progress::Board;
use reel_engine::{Engine, Event};
use reel_rules::text::{fit, one_line};
use reel_store::{LocalState, TaskRecord};

/// How following ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ended {
    Reached,
    /// `--timeout` ran out after this many seconds; the tasks go on in the engine.
    TimedOut(f64),
    Interrupted,
    /// The engine went away (its process, or the link to its machine): the tasks go on
    /// there, but this command can no longer follow them.
    Lost,
}

pub fn stderr_is_tty() -> bool {
    std::io::stderr().is_terminal()
}

/// Where a follower attaches again when its link to the engine drops: an engine on another
/// machine, over SSH, whose link can drop while the engine goes on (a local engine that went
/// away is said so; its tasks wait in the journal for the next one).
#[derive(Clone, Copy)]
pub struct Relink<'a> {
    settings: &'a reel_engine::config::Settings,
    reach: &'a reel_engine::session::Reach,
}

impl<'a> Relink<'a> {
    /// `Some` when `reach` is an engine over SSH.
    pub fn over_ssh(
        settings: &'a reel_engine::config::Settings,
        reach: &'a reel_engine::session::Reach,
    ) -> Option<Relink<'a>> {
        reach.far().map(|_| Relink { settings, reach })
    }
}

/// Whether a failed attach will fail the same way however long one waits: the host's key is not
/// the known one, the login is refused, the host's reel is another version or missing, or its
/// data folder cannot be used. Waiting on those would hang a script for ever.
fn for_good(said: &str) -> bool {
    [
        "man-in-the-middle",
        "Permission denied",
        "same version",
        "REEL_REMOTE_REEL",
        "cannot be used",
        "does not know the host's key",
    ]
    .iter()
    .any(|w| said.contains(w))
}

/// Attaches again after the link dropped, with the dashboard's back-off, for as long as it
/// takes (Ctrl-C and `--timeout` still end the wait); says so once, and each new reason. `None`
/// when an attempt fails in a way no wait mends (see [`for_good`]).
async fn reattach(relink: Relink<'_>, board: &mut Board) -> Option<reel_engine::session::Attached> {
    let far = relink.reach.far().unwrap_or_default();
    board.say(&format!(
        "reel: the link to the engine at ssh://{far} dropped; attaching again with back-off (its tasks go on \
         there; Ctrl-C stops waiting)"
    ));
    let mut said = String::new();
    for attempt in 1u32.. {
        let wait = reel_engine::service::backoff_ms(attempt);
        tokio::time::sleep(Duration::from_millis(wait.max(0) as u64)).await;
        match reel_engine::session::attach(relink.settings, relink.reach).await {
            Ok(attached) => {
                board.say(&format!("reel: attached again to the engine at ssh://{far} (attempt {attempt})"));
                return Some(attached);
            }
            Err(e) => {
                let why = e.to_string();
                if for_good(&why) {
                    board.say(&format!("reel: cannot attach again: {}", one_line(&why)));
                    return None;
                }
                if why != said {
                    board.say(&format!("reel: attempt {attempt} to attach again failed: {}", one_line(&why)));
                    said = why;
                }
            }
        }
    }
    None
}

/// Feeds engine events to the board (drawn on stderr) until `reached(board)` or Ctrl-C, then
/// ends its live view: the results follow on standard output. With `relink`, a dropped link is
/// attached again and the tasks read afresh; without, following stops there.
pub async fn follow(
    engine: &mut Engine,
    events: &mut UnboundedReceiver<Event>,
    board: &mut Board,
    reached: impl Fn(&Board) -> bool,
    relink: Option<Relink<'_>>,
) -> Ended {
    board.draw(true);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let results_here = std::io::stdout().is_terminal();
    // A refused key stops every send until reel runs with a working one: waiting helps nothing.
    while !reached(board) && !board.key_refused() {
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else {
                    if let Some(relink) = relink {
                        let attached = tokio::select! {
                            attached = reattach(relink, board) => match attached {
                                Some(attached) => attached,
                                None => {
                                    board.end(results_here);
                                    return Ended::Lost;
                                }
                            },
                            _ = tokio::signal::ctrl_c() => {
                                board.end(results_here);
                                board.say("reel: stopped waiting; unfinished tasks are not lost (reel wait --all follows them again)");
                                return Ended::Interrupted;
                            }
                        };
                        (*engine, *events) = (attached.engine, attached.events);
                        // What changed while the link was down.
                        match engine.tasks(board.ids()).await {
                            Ok(records) => {
                                for l in board.catch_up(records) {
                                    board.say(&l);
                                }
                            }
                            Err(e) => board.say(&format!("problem: cannot read the tasks again: {e}")),
                        }
                        board.draw(false);
                        continue;
                    }
                    board.end(results_here);
                    board.say("reel: stopped following: the engine went away; its tasks are not lost \
                               (reel wait --all follows them again)");
                    return Ended::Lost;
                };
                let lines = match event {
                    // Events were dropped on the way: the engine says where the tasks stand.
                    Event::Missed => match engine.tasks(board.ids()).await {
                        Ok(records) => board.catch_up(records),
                        Err(e) => vec![format!("problem: cannot read the tasks again: {e}")],
                    },
                    event => board.apply(&event),
                };
                for l in lines {
                    board.say(&l);
                }
                board.draw(false);
            }
            _ = tick.tick() => board.draw(false),
            _ = tokio::signal::ctrl_c() => {
                board.end(results_here);
                board.say("reel: stopped waiting; unfinished tasks are not lost (reel wait --all follows them again)");
                return Ended::Interrupted;
            }
        }
    }
    board.end(results_here);
    if let Some(why) = board.why_waiting() {
        board.say(&format!("reel: {why}"));
    }
    Ended::Reached
}

/// The end of every waiting command: stop the engine, print the tasks, choose the exit code.
pub async fn finish(
    engine: Engine,
    board: &Board,
    ended: Ended,
    json: bool,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    engine.shutdown().await;
    let records = board.records();
    allow_closed(print_tasks(&records, json, out))?;
    let timed_out = match ended {
        Ended::TimedOut(secs) => Some(secs),
        _ => None,
    };
    if timed_out.is_some() || ended.code().is_none() {
        for line in why_not_done(&records, timed_out) {
            super::output::note(&line);
        }
    }
    if let Some(code) = ended.code() {
        return Ok(code);
    }
    Ok(exit_code(&records, LocalState::is_success, board.saw_unreachable))
}

/// Most tasks named one by one in a reason; the rest are counted.
const NAMED: usize = 10;

/// Why waiting on `records` does not exit 0, one line per reason with the tasks concerned
/// (nothing when every task was saved): `--timeout` ran out (`timed_out`, its seconds) with
/// tasks unfinished, and each task that ended otherwise than saved, with what it says and, where
/// the user can act, what to do.
pub fn why_not_done(records: &[TaskRecord], timed_out: Option<f64>) -> Vec<String> {
    let mut lines = Vec::new();
    let unfinished: Vec<&TaskRecord> = records.iter().filter(|r| !r.state.is_settled()).collect();
    if let Some(secs) = timed_out
        && !unfinished.is_empty()
    {
        let named: Vec<String> = unfinished.iter().take(NAMED).map(|r| format!("{} {}", r.id, r.state)).collect();
        let more = unfinished.len().saturating_sub(NAMED);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let ids: Vec<String> = unfinished.iter().take(NAMED).map(|r| r.id.to_string()).collect();
        lines.push(format!(
            "--timeout {secs} s ran out with {} unfinished ({}{more}); they go on in the engine \
             (`reel wait {}` follows them again)",
            reel_rules::text::count(unfinished.len(), "task"),
            named.join(", "),
            ids.join(" ")
        ));
    }
    let ended_badly: Vec<&TaskRecord> =
        records.iter().filter(|r| r.state.is_settled() && !r.state.is_success()).collect();
    for r in ended_badly.iter().take(NAMED) {
        let said = r.error.as_ref().and_then(reel_api::types::message_of).map(|m| fit(&one_line(&m), 160));
        let mut line = match said {
            Some(m) => format!("task {} is {}: {m}", r.id, r.state),
            None => format!("task {} is {}", r.id, r.state),
        };
        if let Some(todo) = r.state.what_to_do(r.id) {
            line.push_str(&format!("; {todo}"));
        }
        lines.push(line);
    }
    if ended_badly.len() > NAMED {
        lines.push(format!("and {} more that did not end saved (`reel list` shows them)", ended_badly.len() - NAMED));
    }
    lines
}

impl Ended {
    /// The exit code when following stopped short of the end: Ctrl-C's, or a connection
    /// error's (not a task that ended badly); `None` when every task was followed.
    pub fn code(self) -> Option<ExitCode> {
        match self {
            Ended::Reached => None,
            Ended::TimedOut(_) => Some(ExitCode::from(1)),
            Ended::Interrupted => Some(ExitCode::from(130)),
            Ended::Lost => Some(ExitCode::from(2)),
        }
    }
}

/// 0 when every task ended well, 2 when the service could not be reached, 1 otherwise.
pub fn exit_code(records: &[TaskRecord], ok: impl Fn(LocalState) -> bool, unreachable: bool) -> ExitCode {
    if records.iter().all(|r| ok(r.state)) {
        ExitCode::SUCCESS
    } else if unreachable {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// Prints tasks as JSON, or one line each: id, remote id, state, and the file or the problem.
pub fn print_tasks(records: &[TaskRecord], json: bool, out: &mut Output<impl Write>) -> Result<(), OutputError> {
    if json {
        return out.json(&reel_engine::public::tasks(records));
    }
    // Cut to fit a terminal's line; a pipe or a file gets every word.
    let terminal = out.is_terminal();
    for r in records {
        let message = |e| reel_api::types::message_of(e).map(|m| if terminal { fit(&m, 100) } else { one_line(&m) });
        let detail = match (&r.file_path, &r.error) {
            // A saved task whose fresh copy could not be had says why after its file.
            (Some(p), Some(e)) if r.state == LocalState::Downloaded => {
                message(e).map_or_else(|| one_line(p), |m| format!("{} ({m})", one_line(p)))
            }
            (Some(p), _) if r.state == LocalState::Downloaded => one_line(p),
            (_, Some(e)) => message(e).unwrap_or_default(),
            _ => String::new(),
        };
        let remote = r.remote_id.as_deref().map(one_line).unwrap_or_else(|| "-".into());
        out.line(&format!("{}\t{}\t{}\t{}", r.id, remote, r.state, detail))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::record;

    fn with_error(id: i64, state: LocalState, message: &str) -> TaskRecord {
        let mut r = record(id, state);
        r.error = Some(serde_json::json!({ "message": message }));
        r
    }

    #[test]
    fn only_a_failure_no_wait_mends_ends_the_reattaching() {
        let cases = [
            ("cannot reach the engine at ssh://box: ssh: connect to host box port 22: Connection refused", false),
            ("cannot reach the engine at ssh://box: ssh closed the connection without a word", false),
            ("cannot reach the engine at ssh://box: ssh refused the host: … a man-in-the-middle attack …", true),
            ("cannot reach the engine at ssh://box: me@box: Permission denied (publickey).; reel logs in …", true),
            ("cannot reach the engine at ssh://box: … install the same version of reel on both machines", true),
            ("cannot reach the engine at ssh://box: the data folder /x cannot be used: …", true),
        ];
        for (said, want) in cases {
            assert_eq!(for_good(said), want, "{said}");
        }
    }

    #[test]
    fn every_reason_not_to_exit_0_is_said_with_its_tasks() {
        use LocalState::*;
        let saved = record(1, Downloaded);
        type Case = (&'static str, Vec<TaskRecord>, Option<f64>, Vec<&'static str>);
        let cases: Vec<Case> = vec![
            ("all saved", vec![saved.clone()], None, vec![]),
            (
                "a timeout",
                vec![saved.clone(), record(2, Queued), record(3, InProgress)],
                Some(2.0),
                vec![
                    "--timeout 2 s ran out with 2 tasks unfinished (2 queued, 3 in_progress); they go on in the engine (`reel wait 2 3` follows them again)",
                ],
            ),
            (
                "a failure and a lost answer",
                vec![with_error(4, Failed, "content policy"), record(5, SubmitUnknown)],
                None,
                vec!["task 4 is failed: content policy", "task 5 is submit_unknown; the send was cut off"],
            ),
            ("a timeout with everything ended", vec![record(6, Cancelled)], Some(1.0), vec!["task 6 is cancelled"]),
        ];
        for (name, records, timed_out, want) in cases {
            let got = why_not_done(&records, timed_out);
            assert_eq!(got.len(), want.len(), "{name}: {got:?}");
            for (line, w) in got.iter().zip(&want) {
                assert!(line.starts_with(w), "{name}: {line:?} should start with {w:?}");
            }
        }
        let many: Vec<TaskRecord> = (1..=13).map(|id| record(id, Failed)).collect();
        let got = why_not_done(&many, None);
        assert_eq!(got.len(), NAMED + 1);
        assert_eq!(got[NAMED], "and 3 more that did not end saved (`reel list` shows them)");
    }
}
