//! The local states of a task (see DESIGN.md, "Local states of a task").

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LocalState {
    /// Journaled, waiting for its turn to be sent: nothing has left the machine yet, so it can
    /// always be sent after a crash without any risk of paying twice.
    Waiting,
    /// Written just before its own POST is handed to the network.
    Submitting,
    /// The POST may or may not have reached the service; never resubmitted unless asked.
    SubmitUnknown,
    /// The service refused the submission, or it could not be sent.
    Rejected,
    Queued,
    InProgress,
    /// The service sent a status the spec does not name; kept in `remote_status`, polled slowly.
    Unrecognized,
    /// Past the client timeout and not finished; still checked, slowly.
    Stalled,
    /// The service says completed; the file is not saved yet.
    Completed,
    Downloading,
    Downloaded,
    Failed,
    /// The service cancelled it: it ended without a video.
    Cancelled,
    /// The file is gone before it was saved: its URL stopped working, or the service says the
    /// video expired.
    Expired,
    /// Saving the file kept failing; retryable by command.
    DownloadFailed,
    /// The service answers 404 for an id it gave us.
    Lost,
}

impl LocalState {
    /// Every state, in the order of the enum.
    pub const ALL: &'static [LocalState] = <LocalState as strum::VariantArray>::VARIANTS;

    /// The name in the journal, in JSON and on the command line (`submit_unknown`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Not yet accepted by the service: waiting to be sent, or its POST under way.
    pub fn is_sending(self) -> bool {
        matches!(self, LocalState::Waiting | LocalState::Submitting)
    }

    /// The service still works on it: the scheduler polls it.
    pub fn is_polled(self) -> bool {
        matches!(self, LocalState::Queued | LocalState::InProgress | LocalState::Unrecognized | LocalState::Stalled)
    }

    /// The file is due: the downloader fetches it.
    pub fn needs_download(self) -> bool {
        matches!(self, LocalState::Completed | LocalState::Downloading)
    }

    /// Nothing more will happen without the user asking.
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            LocalState::SubmitUnknown
                | LocalState::Rejected
                | LocalState::Downloaded
                | LocalState::Failed
                | LocalState::Cancelled
                | LocalState::Expired
                | LocalState::DownloadFailed
                | LocalState::Lost
        )
    }

    /// Ended well.
    pub fn is_success(self) -> bool {
        self == LocalState::Downloaded
    }

    /// What is known of a task that has no id from the service, in its state: a lost answer is
    /// not a refusal (the service may well have the task).
    pub fn without_remote_id(self) -> &'static str {
        match self {
            LocalState::Waiting | LocalState::Submitting => "not sent yet",
            LocalState::SubmitUnknown => "answer lost: the service may have it",
            LocalState::Rejected => "not accepted",
            _ => "no id from the service",
        }
    }

    /// What the user can do about a task in this state, when it needs them.
    pub fn what_to_do(self, id: i64) -> Option<String> {
        match self {
            LocalState::SubmitUnknown => Some(format!(
                "the send was cut off before the service answered, so it may have the task and bill it; \
                 `reel resend {id}` (r in the dashboard) sends it again with the same idempotency key, which a \
                 service that took the first uses to refuse a second"
            )),
            _ => None,
        }
    }
}

/// The ends `--retry-failed` sends again: the service made no video (failed, rejected, lost,
/// expired before it was saved, cancelled). A saved take, or one whose file could not be
/// fetched (`download_failed`: rendered and paid), is never sent again by it.
pub const FAILED_STATES: [LocalState; 5] =
    [LocalState::Failed, LocalState::Rejected, LocalState::Lost, LocalState::Expired, LocalState::Cancelled];

impl fmt::Display for LocalState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the local states.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown state \"{}\"; the states are {}", .0, LocalState::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnknownState(pub String);

impl FromStr for LocalState {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LocalState::ALL.iter().copied().find(|st| st.as_str() == s).ok_or_else(|| UnknownState(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_without_a_service_id_says_what_is_known_of_it() {
        use LocalState::*;
        let cases = [
            (Waiting, "not sent yet"),
            (Submitting, "not sent yet"),
            (SubmitUnknown, "answer lost: the service may have it"),
            (Rejected, "not accepted"),
            (Lost, "no id from the service"),
        ];
        for (state, want) in cases {
            assert_eq!(state.without_remote_id(), want, "{state}");
        }
        let todo = SubmitUnknown.what_to_do(7).expect("something to do");
        assert!(todo.contains("`reel resend 7`") && todo.contains("same idempotency key"), "{todo}");
        assert!(LocalState::ALL.iter().filter(|s| **s != SubmitUnknown).all(|s| s.what_to_do(7).is_none()));
    }

    #[test]
    fn every_state_round_trips_and_belongs_to_exactly_one_phase() {
        for &s in LocalState::ALL {
            assert_eq!(s.as_str().parse::<LocalState>(), Ok(s));
            let phases = [s.is_sending(), s.is_polled(), s.needs_download(), s.is_settled()];
            assert_eq!(phases.iter().filter(|p| **p).count(), 1, "{s}");
        }
        let unknown = "done".parse::<LocalState>().expect_err("not a state");
        assert!(
            unknown.to_string().starts_with("unknown state \"done\"; the states are waiting, submitting, "),
            "{unknown}"
        );
    }
}
