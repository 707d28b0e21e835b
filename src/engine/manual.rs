//! What a user's request does to a task: send it again, check it again, download it again.
//! Pure: the row in, the new row and what the engine does next out, or why it does not apply.

use serde_json::json;

use super::queue::Job;
use super::timeline::Entry;
use super::transition::{Next, Step};
use super::{EngineError, Refused};
use crate::api::types::message_of;
use crate::store::{LocalState, TaskRecord};

/// Event recorded when a task is sent again.
pub const RESENT: &str = "sent again at the user's request, with the same idempotency key";
/// Event recorded when a download is requested.
pub const DOWNLOAD_REQUESTED: &str = "download requested";

/// A `submit_unknown` or `rejected` task goes out again with its original idempotency key, so a
/// service that did take the first POST can recognise the second.
pub fn resend(r: &TaskRecord, now_ms: i64) -> Result<TaskRecord, EngineError> {
    if !matches!(r.state, LocalState::SubmitUnknown | LocalState::Rejected) {
        return Err(Refused::NotApplicable { id: r.id, state: r.state, action: "sending it again".into() }.into());
    }
    let mut r = r.clone();
    r.state = LocalState::Waiting;
    r.error = None;
    r.finished_at = None;
    r.updated_at = now_ms;
    Ok(r)
}

/// What checking a task again means for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Recheck {
    /// Poll it now (its URL may be refreshed once more).
    Poll(Box<TaskRecord>),
    /// A failed download: fetch the file again instead.
    Download,
}

pub fn recheck(r: &TaskRecord) -> Result<Recheck, EngineError> {
    match r.state {
        LocalState::DownloadFailed => return Ok(Recheck::Download),
        s if s.is_polled() || matches!(s, LocalState::Expired | LocalState::Lost) => {}
        s => return Err(Refused::NotApplicable { id: r.id, state: s, action: "checking it again".into() }.into()),
    }
    if r.remote_id.is_none() {
        return Err(Refused::NotApplicable {
            id: r.id,
            state: r.state,
            action: "checking it (it has no remote id)".into(),
        }
        .into());
    }
    let mut r = r.clone();
    r.url_refreshes = 0;
    Ok(Recheck::Poll(Box::new(r)))
}

/// Fetching the file again: from the URL it has, or after a poll for a fresh one. `busy` is
/// whether a request or transfer for the task is under way.
pub fn redownload(r: &TaskRecord, busy: bool, now_ms: i64) -> Result<(TaskRecord, Job), EngineError> {
    if busy {
        return Err(
            Refused::NotApplicable { id: r.id, state: r.state, action: "downloading it again now".into() }.into()
        );
    }
    let downloadable = matches!(
        r.state,
        LocalState::Completed
            | LocalState::Downloading
            | LocalState::Downloaded
            | LocalState::DownloadFailed
            | LocalState::Expired
    );
    if r.remote_id.is_none() || !downloadable {
        return Err(Refused::NotApplicable { id: r.id, state: r.state, action: "downloading it".into() }.into());
    }
    let mut r = r.clone();
    // A saved task keeps its end time: elapsed stays its render time, not the time since.
    if r.state != LocalState::Downloaded {
        r.finished_at = None;
    }
    r.state = LocalState::Completed;
    r.download_attempts = 0;
    r.url_refreshes = 0;
    r.error = None;
    r.updated_at = now_ms;
    let job = if r.url.is_some() { Job::Download } else { Job::Poll };
    Ok((r, job))
}

/// A task saved before stays saved: a fresh copy the service can no longer give (its URL dead,
/// the download failing, or its id forgotten: gateways forget after a day) leaves it
/// `downloaded`, with its file, rating and pick, never `lost` or `expired`. The reason is kept
/// as its error and said in its timeline. `on_disk` is whether the saved file is still there
/// (`None`: not looked at); a file deleted since stays missing and is said to be.
pub fn keep_saved(before: &TaskRecord, step: Step, on_disk: Option<bool>) -> Step {
    // Any end but a new copy saved: a later look-up never undoes what happened to the render.
    let failed = step.next == Next::Stop && step.record.state != LocalState::Downloaded;
    if before.file_path.is_none() || !failed {
        return step;
    }
    let why = if step.record.state == LocalState::Lost {
        "the service no longer has this task".to_string()
    } else if step.record.state == LocalState::Failed {
        "the service now says this task failed".to_string()
    } else {
        let said = step.record.error.as_ref().and_then(message_of).unwrap_or_default();
        format!("a fresh copy could not be fetched ({said})")
    };
    let file = match on_disk {
        Some(true) => "the saved file is kept",
        Some(false) => "the saved file is still missing",
        None => "the file saved before is left as it was",
    };
    let message = format!("{why}; {file}");
    let mut record = step.record;
    record.state = LocalState::Downloaded;
    record.finished_at = before.finished_at;
    record.error = Some(json!({ "message": message }));
    Step { record, event: Some(Entry::said(message)), next: Next::Stop }
}

/// A task can be deleted only when the engine is not working on it.
pub fn deletable(id: i64, running: Option<LocalState>) -> Result<(), EngineError> {
    match running {
        Some(state) => Err(Refused::NotApplicable { id, state, action: "deleting it while it runs".into() }.into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures::record;

    fn with_remote(state: LocalState) -> TaskRecord {
        TaskRecord { remote_id: Some("r".into()), url: Some("http://127.0.0.1:1/f".into()), ..record(1, state) }
    }

    #[test]
    fn resend_applies_only_to_unsent_or_refused_tasks() {
        for state in LocalState::ALL {
            let got = resend(&with_remote(state), 7);
            let ok = matches!(state, LocalState::SubmitUnknown | LocalState::Rejected);
            assert_eq!(got.is_ok(), ok, "{state}");
            if let Ok(r) = got {
                assert_eq!((r.state, r.error, r.finished_at, r.updated_at), (LocalState::Waiting, None, None, 7));
            }
        }
    }

    #[test]
    fn recheck_table() {
        for state in LocalState::ALL {
            let got = recheck(&with_remote(state));
            let want_poll = state.is_polled() || matches!(state, LocalState::Expired | LocalState::Lost);
            match got {
                Ok(Recheck::Poll(r)) => assert!(want_poll && r.url_refreshes == 0, "{state}"),
                Ok(Recheck::Download) => assert_eq!(state, LocalState::DownloadFailed),
                Err(_) => assert!(!want_poll && state != LocalState::DownloadFailed, "{state}"),
            }
        }
        let no_remote = TaskRecord { remote_id: None, ..record(1, LocalState::Stalled) };
        assert!(recheck(&no_remote).is_err());
    }

    #[test]
    fn redownload_table() {
        let cases = [
            (LocalState::Downloaded, true, false, Some(Job::Download)),
            (LocalState::Expired, true, false, Some(Job::Download)),
            (LocalState::DownloadFailed, false, false, Some(Job::Poll)),
            (LocalState::Downloading, true, true, None),
            (LocalState::InProgress, true, false, None),
            (LocalState::Failed, true, false, None),
        ];
        for (state, has_url, busy, want) in cases {
            let mut r = with_remote(state);
            if !has_url {
                r.url = None;
            }
            r.download_attempts = 5;
            let got = redownload(&r, busy, 9).map(|(r, job)| {
                assert_eq!((r.state, r.download_attempts, r.updated_at), (LocalState::Completed, 0, 9));
                job
            });
            assert_eq!(got.ok(), want, "{state} url {has_url} busy {busy}");
        }
    }

    #[test]
    fn a_saved_task_stays_saved_whatever_a_fresh_copy_meets() {
        use crate::engine::transition::{Next, Step};
        let mut before = with_remote(LocalState::Completed);
        before.file_path = Some("/v/1.mp4".into());
        before.finished_at = Some(5);
        let ended = |state: LocalState, message: &str| Step {
            record: TaskRecord {
                state,
                finished_at: Some(99),
                error: Some(json!({ "message": message })),
                ..before.clone()
            },
            event: Some(Entry::said(message)),
            next: Next::Stop,
        };
        let lost = "the service has no task with this id (HTTP 404), although it gave this id; the task is lost";
        let cases = [
            (LocalState::Lost, Some(true), "the service no longer has this task; the saved file is kept"),
            (LocalState::Lost, Some(false), "the service no longer has this task; the saved file is still missing"),
            (
                LocalState::Expired,
                Some(false),
                "a fresh copy could not be fetched (refused); the saved file is still missing",
            ),
            (
                LocalState::DownloadFailed,
                Some(true),
                "a fresh copy could not be fetched (refused); the saved file is kept",
            ),
            (
                LocalState::DownloadFailed,
                None,
                "a fresh copy could not be fetched (refused); the file saved before is left as it was",
            ),
            (LocalState::Failed, Some(true), "the service now says this task failed; the saved file is kept"),
        ];
        for (state, on_disk, want) in cases {
            let why = if state == LocalState::Lost { lost } else { "refused" };
            let got = keep_saved(&before, ended(state, why), on_disk);
            assert_eq!(got.record.state, LocalState::Downloaded, "{state}");
            assert_eq!((got.record.finished_at, got.next.clone()), (Some(5), Next::Stop), "{state}");
            assert_eq!(got.record.file_path.as_deref(), Some("/v/1.mp4"));
            assert_eq!(got.event.as_ref().and_then(Entry::detail), Some(want), "{state} {on_disk:?}");
            assert_eq!(got.record.error.as_ref().and_then(message_of).as_deref(), Some(want));
        }
        // Never saved: what happened stands. Saved and saved again, or still on its way: untouched.
        let never = TaskRecord { file_path: None, ..before.clone() };
        assert_eq!(keep_saved(&never, ended(LocalState::Lost, lost), Some(false)).record.state, LocalState::Lost);
        let going = [
            (LocalState::Downloaded, Next::Stop),
            (LocalState::Completed, Next::Download),
            (LocalState::Downloading, Next::RetryDownload(std::time::Duration::from_secs(1))),
            (LocalState::Stalled, Next::Poll(std::time::Duration::from_secs(20))),
        ];
        for (state, next) in going {
            let step = Step { next, ..ended(state, "x") };
            assert_eq!(keep_saved(&before, step.clone(), Some(true)), step, "{state}");
        }
    }

    #[test]
    fn running_tasks_cannot_be_deleted() {
        assert!(deletable(1, Some(LocalState::InProgress)).is_err());
        assert!(deletable(1, None).is_ok());
    }
}
