//! What a user's request does to a task: send it again, check it again, download it again.
//! Pure: the row in, the new row and what the engine does next out, or why it does not apply.

use super::queue::Job;
use super::{EngineError, Refused};
use reel_store::{LocalState, TaskRecord};

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

/// What deleting a task does to the engine's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletion {
    /// The engine does not work on it.
    Settled,
    /// The engine holds it (waiting to be sent, or followed though the service says nothing
    /// reel can use): it stops, and the record goes.
    Held,
}

/// A task can be deleted when the engine does not work on it, or only holds it: one waiting to
/// be sent (never sent, so nothing is lost), or one `unrecognized` or `stalled` (no longer
/// followed; the service may still have it). `running` is its state and whether a request for
/// it is under way, when the engine tracks it.
pub fn deletable(id: i64, running: Option<(LocalState, bool)>) -> Result<Deletion, EngineError> {
    let refuse = |state, action: &str| Err(Refused::NotApplicable { id, state, action: action.into() }.into());
    match running {
        None => Ok(Deletion::Settled),
        Some((state, true)) => refuse(state, "deleting it while a request for it is under way (try again in a moment)"),
        Some((LocalState::Waiting | LocalState::Unrecognized | LocalState::Stalled, false)) => Ok(Deletion::Held),
        Some((state, false)) => refuse(state, "deleting it while it runs"),
    }
}

/// For a task deleted while the service had it and its end was not known: it may still be
/// rendered, and billed, there.
pub fn still_at_service(t: &TaskRecord) -> Option<String> {
    match (&t.remote_id, t.state) {
        (Some(remote), LocalState::Unrecognized | LocalState::Stalled) => Some(format!(
            "reel no longer follows it, but the service may still have it (id {}) and may bill it",
            reel_rules::text::one_line(remote)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::{record, with_remote};

    #[test]
    fn resend_applies_only_to_unsent_or_refused_tasks() {
        for &state in LocalState::ALL {
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
        for &state in LocalState::ALL {
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
    fn running_tasks_cannot_be_deleted_but_held_ones_can() {
        use LocalState::*;
        let cases = [
            (None, Some(Deletion::Settled)),
            (Some((Waiting, false)), Some(Deletion::Held)),
            (Some((Unrecognized, false)), Some(Deletion::Held)),
            (Some((Stalled, false)), Some(Deletion::Held)),
            (Some((Waiting, true)), None),
            (Some((Stalled, true)), None),
            (Some((Submitting, true)), None),
            (Some((Queued, false)), None),
            (Some((InProgress, false)), None),
            (Some((Completed, false)), None),
            (Some((Downloading, false)), None),
        ];
        for (running, want) in cases {
            assert_eq!(deletable(1, running).ok(), want, "{running:?}");
        }
    }
}
