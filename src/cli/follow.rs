//! Runs the engine for a command until its tasks reach the point the command waits for.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use super::CliError;
use super::output::{Output, OutputError, allow_closed};
use super::progress::Board;
use crate::engine::{Engine, Event};
use crate::store::{LocalState, TaskRecord};
use crate::text::{fit, one_line};

/// How following ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Reached,
    Interrupted,
    /// The engine went away (its process, or the link to its machine): the tasks go on
    /// there, but this command can no longer follow them.
    Lost,
}

pub fn stderr_is_tty() -> bool {
    std::io::stderr().is_terminal()
}

/// Feeds engine events to the board (drawn on stderr) until `reached(board)` or Ctrl-C, then
/// ends its live view: the results follow on standard output.
pub async fn follow(
    engine: &Engine,
    events: &mut UnboundedReceiver<Event>,
    board: &mut Board,
    reached: impl Fn(&Board) -> bool,
) -> Ended {
    board.draw(true);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let results_here = std::io::stdout().is_terminal();
    // A refused key stops every send until reel runs with a working one: waiting helps nothing.
    while !reached(board) && !board.key_refused() {
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else {
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
    if let Some(code) = ended.code() {
        return Ok(code);
    }
    Ok(exit_code(&records, LocalState::is_success, board.saw_unreachable))
}

impl Ended {
    /// The exit code when following stopped short of the end: Ctrl-C's, or a connection
    /// error's (not a task that ended badly); `None` when every task was followed.
    pub fn code(self) -> Option<ExitCode> {
        match self {
            Ended::Reached => None,
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
        return out.json(&crate::public::tasks(records));
    }
    for r in records {
        let message = |e| crate::api::types::message_of(e).map(|m| fit(&m, 100));
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
