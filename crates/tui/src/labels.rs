//! Words every view of the dashboard writes the same way: numbers of things, sentences, the
//! groups of states, a task's state and model in a word or two, its render time. A leaf: it
//! uses nothing of the dashboard.

use serde::{Deserialize, Serialize};

pub use reel_rules::text::count;
use reel_rules::text::excerpt;
use reel_rules::{Mode, ModelId};
use reel_store::{LocalState, TaskRecord};

/// The message with a capital first letter, to stand alone on the status line.
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The few groups of states every view filters by (the table, the history, the picker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Filter {
    #[default]
    All,
    /// Being sent, rendered or downloaded.
    #[serde(alias = "Running")]
    Active,
    /// Rendered and saved.
    #[serde(alias = "Saved")]
    Done,
    /// Failed, rejected, lost, expired, stalled, unrecognized or a failed download.
    Problems,
}

impl Filter {
    pub const ALL: [Filter; 4] = [Filter::All, Filter::Active, Filter::Done, Filter::Problems];

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Active => "active",
            Filter::Done => "done",
            Filter::Problems => "problems",
        }
    }

    /// The group's tasks in a sentence: "Showing tasks with problems".
    pub fn tasks(self) -> &'static str {
        match self {
            Filter::All => "all tasks",
            Filter::Active => "active tasks",
            Filter::Done => "done tasks",
            Filter::Problems => "tasks with problems",
        }
    }

    /// What the group holds, for the picker.
    pub fn describe(self) -> &'static str {
        match self {
            Filter::All => "every task",
            Filter::Active => "being sent, rendered or downloaded",
            Filter::Done => "rendered and saved",
            Filter::Problems => "failed, rejected, lost, expired, stalled, unrecognized, not saved",
        }
    }

    pub fn admits(self, s: LocalState) -> bool {
        match self {
            Filter::All => true,
            Filter::Active => is_running(s),
            Filter::Done => s == LocalState::Downloaded,
            Filter::Problems => !is_running(s) && s != LocalState::Downloaded,
        }
    }

    /// The states of the group, for a query; empty for all.
    pub fn states(self) -> Vec<LocalState> {
        if self == Filter::All {
            Vec::new()
        } else {
            LocalState::ALL.iter().copied().filter(|s| self.admits(*s)).collect()
        }
    }
}

/// The engine still works on it.
pub fn is_running(s: LocalState) -> bool {
    s.is_sending() || (s.is_polled() && s != LocalState::Stalled) || s.needs_download()
}

/// `acme/aurora-3.0/image-to-video` as `aurora-3.0 · i2v`.
pub fn short_model(model: &str) -> String {
    match model.parse::<ModelId>() {
        Ok(m) => {
            let mode = match m.mode {
                Mode::TextToVideo => "t2v",
                Mode::ImageToVideo => "i2v",
                Mode::ReferenceToVideo => "r2v",
            };
            format!("{} · {mode}", excerpt(&format!("{}-{}", m.family, m.version), 14))
        }
        Err(_) => excerpt(model, 20),
    }
}

/// The state as every view writes it in one word or two.
pub fn state_label(t: &TaskRecord) -> String {
    match (t.state, &t.remote_status) {
        (LocalState::Unrecognized, Some(s)) => format!("\"{}\"", excerpt(s, 13)),
        (LocalState::Lost, _) => match t.duplicate_of() {
            Some(other) => format!("lost: dup of {other}"),
            None => "lost".into(),
        },
        (s, _) => s.to_string(),
    }
}

/// A duration setting as every view writes it: `auto` for the service's choice (-1), else
/// `10 s`.
pub fn seconds_label(seconds: i64) -> String {
    if seconds < 0 { "auto".into() } else { format!("{seconds} s") }
}

/// How long the task took to render, in ms: the service's own times once it finished, else
/// from sending to its end (or to now). Downloading again never changes it.
pub fn elapsed_ms(t: &TaskRecord, now_ms: i64) -> i64 {
    match (t.remote_created_at, t.remote_completed_at) {
        (Some(start), Some(end)) => (end - start).max(0) * 1000,
        _ => (t.finished_at.unwrap_or(now_ms) - t.submitted_at.unwrap_or(t.created_at)).max(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::record;

    #[test]
    fn labels_models_and_elapsed_times() {
        let mut r = record(1, LocalState::Unrecognized);
        r.remote_status = Some(" Queued\u{1b}[2J ".into());
        assert_eq!(state_label(&r), "\"Queued [2J\"", "as the service sent it, cleaned");
        r.state = LocalState::Lost;
        r.error = Some(serde_json::json!({"message": "same id", "duplicate_of": 12}));
        assert_eq!(state_label(&r), "lost: dup of 12");
        r.state = LocalState::InProgress;
        assert_eq!(state_label(&r), "in_progress");
        assert_eq!(short_model("acme/aurora-3.0/image-to-video"), "aurora-3.0 · i2v");
        assert_eq!(short_model("acme/aurora-2.7/reference-to-video-global"), "aurora-2.7 · r2v");
        assert_eq!(short_model("not a model id"), "not a model id");
        // Elapsed is the render time once the service finished, however often the file is fetched.
        let mut t = record(1, LocalState::Downloaded);
        t.submitted_at = Some(1_000);
        t.remote_created_at = Some(1);
        t.remote_completed_at = Some(61);
        t.finished_at = None;
        assert_eq!(elapsed_ms(&t, 999_999), 60_000);
        t.remote_completed_at = None;
        assert_eq!(elapsed_ms(&t, 31_000), 30_000, "still rendering: until now");
        t.finished_at = Some(11_000);
        assert_eq!(elapsed_ms(&t, 31_000), 10_000, "ended without a render: until its end");
    }
}
