//! What to do, at start, with every task a previous run left unfinished.

use super::timeline::Entry;
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// Never sent: send it now.
    Send,
    Poll,
    Download,
    Nothing,
}

/// One unfinished task: its row (changed if recovery changes its state), the event to record,
/// and how to resume it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    pub record: TaskRecord,
    pub event: Option<Entry>,
    pub resume: Resume,
}

/// Profile name of tasks run against the embedded simulator, which forgets them when it stops.
pub const DEMO_PROFILE: &str = "demo";

/// `base_url` is the service this engine talks to: tasks of other services wait for their own
/// profile, except demo tasks, whose simulator is gone for good.
pub fn plan(record: TaskRecord, base_url: &str, now_ms: i64) -> Recovery {
    if record.base_url != base_url && record.state != LocalState::Submitting {
        if record.profile.as_deref() != Some(DEMO_PROFILE) {
            return Recovery { record, event: None, resume: Resume::Nothing };
        }
        let mut r = record;
        r.state = LocalState::Lost;
        r.finished_at = Some(now_ms);
        r.updated_at = now_ms;
        let message = "the demo simulator that ran this task has stopped, and its tasks with it";
        r.error = Some(serde_json::json!({ "message": message }));
        return Recovery { record: r, event: Some(Entry::said(message)), resume: Resume::Nothing };
    }
    match record.state {
        LocalState::Waiting => Recovery { record, event: None, resume: Resume::Send },
        LocalState::Submitting => {
            let mut r = record;
            r.state = LocalState::SubmitUnknown;
            r.finished_at = Some(now_ms);
            r.updated_at = now_ms;
            r.error = Some(serde_json::json!({
                "message": "reel stopped while this task was being submitted; the service may or may not have it"
            }));
            Recovery {
                record: r,
                event: Some(Entry::said("reel stopped during submission; not resubmitted, to avoid paying twice")),
                resume: Resume::Nothing,
            }
        }
        s if s.is_polled() => Recovery { record, event: None, resume: Resume::Poll },
        s if s.needs_download() => Recovery { record, event: None, resume: Resume::Download },
        _ => Recovery { record, event: None, resume: Resume::Nothing },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(state: LocalState) -> TaskRecord {
        reel_store::fixtures::record(1, state)
    }

    #[test]
    fn every_unfinished_state_has_a_plan() {
        let cases = [
            (LocalState::Waiting, LocalState::Waiting, Resume::Send),
            (LocalState::Submitting, LocalState::SubmitUnknown, Resume::Nothing),
            (LocalState::Queued, LocalState::Queued, Resume::Poll),
            (LocalState::InProgress, LocalState::InProgress, Resume::Poll),
            (LocalState::Unrecognized, LocalState::Unrecognized, Resume::Poll),
            (LocalState::Stalled, LocalState::Stalled, Resume::Poll),
            (LocalState::Completed, LocalState::Completed, Resume::Download),
            (LocalState::Downloading, LocalState::Downloading, Resume::Download),
            (LocalState::Downloaded, LocalState::Downloaded, Resume::Nothing),
        ];
        for (from, to, resume) in cases {
            let r = plan(record(from), "http://127.0.0.1:1/", 9);
            assert_eq!((r.record.state, r.resume), (to, resume), "{from}");
            assert_eq!(r.event.is_some(), from == LocalState::Submitting);
        }
    }

    #[test]
    fn tasks_of_another_service_wait_and_dead_demo_tasks_are_lost() {
        let other = plan(record(LocalState::InProgress), "http://127.0.0.1:2/", 9);
        assert_eq!((other.record.state, other.resume), (LocalState::InProgress, Resume::Nothing));
        let demo = TaskRecord { profile: Some(DEMO_PROFILE.into()), ..record(LocalState::InProgress) };
        let gone = plan(demo, "http://127.0.0.1:2/", 9);
        assert_eq!((gone.record.state, gone.resume), (LocalState::Lost, Resume::Nothing));
        assert!(gone.event.is_some());
    }
}
