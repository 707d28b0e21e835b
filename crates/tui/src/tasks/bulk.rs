//! Actions on the marked tasks (or the selected one): which tasks each action applies to,
//! the one message that reports what it did to all of them, and the question before sending
//! several paid tasks again.

use crate::app::{App, Effect, Level, Op, Overlay, Question, resubmission};
use crate::compose::billed_and_cost;
use crate::keymap::Cmd;
use crate::labels::{count, sentence};
use reel_store::{LocalState, TaskRecord};

/// Why an engine action does not apply to a task: `task 27 is still rendering`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task {id} {why}")]
pub struct Ineligible {
    pub id: i64,
    pub why: &'static str,
}

/// Whether an engine action applies to a task; the reason when it does not (it mirrors the
/// engine's own rules, so the user hears it before anything is asked).
pub fn eligible(op: Op, t: &TaskRecord) -> Result<(), Ineligible> {
    use LocalState as S;
    let id = t.id;
    let why = match (op, t.state) {
        (_, S::Waiting | S::Submitting) => "is not sent yet",
        (Op::Resend, S::SubmitUnknown | S::Rejected) => return Ok(()),
        (Op::Resend, _) => "was accepted by the service; nothing to resend",
        (Op::Download, S::Queued | S::InProgress | S::Stalled | S::Unrecognized) => "is still rendering",
        (Op::Download | Op::Recheck, S::Downloading | S::Completed) => "is being downloaded",
        (Op::Download, S::Downloaded | S::DownloadFailed | S::Expired) if t.remote_id.is_some() => return Ok(()),
        (Op::Recheck, S::Queued | S::InProgress | S::Stalled | S::Unrecognized | S::Expired | S::Lost)
            if t.remote_id.is_some() =>
        {
            return Ok(());
        }
        (Op::Recheck, S::DownloadFailed) => return Ok(()),
        (Op::Recheck, S::Downloaded) => "is saved; there is nothing to check",
        (_, S::Failed) => "failed at the service; there is no video",
        (_, S::Rejected | S::SubmitUnknown) => "was never accepted; send it again instead",
        (_, S::Lost) => "is lost; there is no video",
        _ => "has no id at the service",
    };
    Err(Ineligible { id, why })
}

/// What an action on several tasks did, in one line: `2 re-downloads started; task 27 is
/// still rendering`.
pub fn bulk_message(op: Op, done: usize, failed: &[(i64, String)], skipped: &[String]) -> (Level, String) {
    let head = match (op, done) {
        (Op::Download, 0) => "no re-download started".to_string(),
        (Op::Download, n) => format!("{} started", count(n, "re-download")),
        (Op::Recheck, 0) => "nothing was checked again".to_string(),
        (Op::Recheck, n) => format!("checking {} again", count(n, "task")),
        (Op::Resend, 0) => "nothing was sent again".to_string(),
        (Op::Resend, n) => format!("sent {} again", count(n, "task")),
    };
    let mut parts = vec![head];
    parts.extend(skipped.iter().cloned());
    parts.extend(failed.iter().map(|(_, why)| reel_rules::text::clean(why)));
    let level = if !failed.is_empty() {
        Level::Error
    } else if done == 0 {
        Level::Warn
    } else {
        Level::Info
    };
    (level, sentence(&parts.join("; ")))
}

impl App {
    /// An action on the marked tasks, or on the selected one when none is marked.
    pub(crate) fn on_targets(&mut self, cmd: Cmd) -> Vec<Effect> {
        let ids = self.table.targets();
        if ids.is_empty() {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        }
        let records: Vec<TaskRecord> =
            ids.iter().filter_map(|id| self.table.row(*id)).map(|r| r.record.clone()).collect();
        self.table.clear_marks();
        match cmd {
            Cmd::Vary => {
                if let Some(t) = records.first() {
                    self.vary(t);
                }
                Vec::new()
            }
            Cmd::Resubmit => self.send_again(&records),
            Cmd::Download => self.bulk(Op::Download, &records),
            Cmd::Recheck => self.bulk(Op::Recheck, &records),
            _ => Vec::new(),
        }
    }

    /// One engine action on every task it applies to; the others are named in the report.
    pub(crate) fn bulk(&mut self, op: Op, records: &[TaskRecord]) -> Vec<Effect> {
        let (mut ids, mut skipped) = (Vec::new(), Vec::new());
        for t in records {
            match eligible(op, t) {
                Ok(()) => ids.push(t.id),
                Err(why) => skipped.push(why.to_string()),
            }
        }
        if ids.is_empty() {
            let (level, text) = bulk_message(op, 0, &[], &skipped);
            self.say(level, text);
            return Vec::new();
        }
        vec![Effect::Bulk { op, ids, skipped }]
    }

    /// `r`: unknown submissions are resent with their idempotency key; the others are sent
    /// again as new tasks, after a question when several paid ones would go.
    pub(crate) fn send_again(&mut self, records: &[TaskRecord]) -> Vec<Effect> {
        let unknown: Vec<TaskRecord> =
            records.iter().filter(|t| t.state == LocalState::SubmitUnknown).cloned().collect();
        let mut effects = if unknown.is_empty() { Vec::new() } else { self.bulk(Op::Resend, &unknown) };
        let mut again = Vec::new();
        let mut refused = Vec::new();
        for t in records.iter().filter(|t| t.state != LocalState::SubmitUnknown) {
            match resubmission(t, &self.catalog) {
                Ok(v) => again.push((t.id, v)),
                Err(e) => refused.push(format!("task {} cannot be sent again: {e}", t.id)),
            }
        }
        if !refused.is_empty() {
            self.say(Level::Error, refused.join("; "));
        }
        if again.is_empty() {
            return effects;
        }
        let n = again.len();
        let plan: Vec<_> = again.iter().map(|(_, v)| v.clone()).collect();
        let then = Effect::SubmitAgain(again);
        if n > 1 && !self.header.demo {
            let (billed, cost) = billed_and_cost(&plan, 1, &self.pricing);
            self.overlay = Some(Overlay::Confirm(Question::Again { then: Box::new(then), count: n, billed, cost }));
        } else {
            effects.extend(self.guarded(then));
        }
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::record;

    #[test]
    fn which_tasks_each_action_applies_to() {
        use LocalState as S;
        let cases: &[(Op, S, Option<&str>)] = &[
            (Op::Download, S::Downloaded, None),
            (Op::Download, S::Expired, None),
            (Op::Download, S::DownloadFailed, None),
            (Op::Download, S::InProgress, Some("task 1 is still rendering")),
            (Op::Download, S::Downloading, Some("task 1 is being downloaded")),
            (Op::Download, S::Failed, Some("task 1 failed at the service; there is no video")),
            (Op::Download, S::Waiting, Some("task 1 is not sent yet")),
            (Op::Recheck, S::Stalled, None),
            (Op::Recheck, S::Lost, None),
            (Op::Recheck, S::DownloadFailed, None),
            (Op::Recheck, S::Downloaded, Some("task 1 is saved; there is nothing to check")),
            (Op::Resend, S::SubmitUnknown, None),
            (Op::Resend, S::Queued, Some("task 1 was accepted by the service; nothing to resend")),
        ];
        for (op, state, want) in cases {
            let got = eligible(*op, &record(1, *state));
            assert_eq!(got.err().map(|e| e.to_string()).as_deref(), *want, "{op:?} {state}");
        }
        let no_id = TaskRecord { remote_id: None, ..record(1, LocalState::Expired) };
        assert!(eligible(Op::Download, &no_id).is_err());
    }

    #[test]
    fn one_message_for_all_of_them() {
        let still = vec!["task 27 is still rendering".to_string()];
        type Case<'a> = (Op, usize, Vec<(i64, String)>, Vec<String>, Level, &'a str);
        let cases: Vec<Case> = vec![
            (Op::Download, 2, vec![], still.clone(), Level::Info, "2 re-downloads started; task 27 is still rendering"),
            (Op::Download, 1, vec![], vec![], Level::Info, "1 re-download started"),
            (Op::Download, 0, vec![], still, Level::Warn, "No re-download started; task 27 is still rendering"),
            (Op::Resend, 3, vec![], vec![], Level::Info, "Sent 3 tasks again"),
            (Op::Recheck, 1, vec![(4, "no task 4".into())], vec![], Level::Error, "Checking 1 task again; no task 4"),
        ];
        for (op, done, failed, skipped, level, text) in cases {
            assert_eq!(bulk_message(op, done, &failed, &skipped), (level, text.to_string()));
        }
    }
}
