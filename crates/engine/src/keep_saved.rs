//! A task saved before stays saved: what a later look-up for a fresh copy of its video (a poll,
//! a download) may and may not do to it. Pure: the row before, the step a transition decided
//! and what is known of the file in, the step to take out.

use serde_json::json;

use super::timeline::Entry;
use super::transition::{Next, Step};
use reel_api::types::message_of;
use reel_store::{LocalState, TaskRecord};

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
    } else if step.record.state == LocalState::Cancelled {
        "the service now says this task was cancelled".to_string()
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

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::with_remote;

    #[test]
    fn a_saved_task_stays_saved_whatever_a_fresh_copy_meets() {
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
}
