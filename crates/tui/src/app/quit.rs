//! Quitting: what becomes of unfinished tasks (said before and after), the question while
//! some are unfinished, and the one-line summary printed on the way out.

use super::{App, Effect, Overlay, Question};
use crate::labels::count;
use crate::labels::is_running;
use reel_store::LocalState;

/// What becomes of unfinished tasks when the dashboard quits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterQuit {
    /// The engine is a process of its own (demo mode too: its simulator lives there): the
    /// work goes on.
    Continue,
    /// The engine runs in this process: unfinished tasks wait for the next start.
    Pause,
    /// Demo mode with the engine in this process: the simulator stops with reel.
    Lost,
}

/// The quit question's text: what is lost and what goes on. `key_refused`: the service refuses
/// the API key, so nothing goes on until a working key is in use.
pub fn quit_question(after: AfterQuit, unfinished: usize, held: usize, key_refused: bool) -> String {
    let mut parts = Vec::new();
    if held > 0 {
        let (n, verb) = (count(held, "held submission"), if held == 1 { "is" } else { "are" });
        parts.push(format!("{n} {verb} not sent yet (no engine is attached) and {verb} dropped"));
    }
    if unfinished > 0 && key_refused && after != AfterQuit::Lost {
        let (tasks, verb) = (count(unfinished, "task"), if unfinished == 1 { "waits" } else { "wait" });
        parts.push(format!(
            "{tasks} {verb}: the service refuses the API key, so nothing is sent or checked until a reel runs with a \
             working one"
        ));
    } else if unfinished > 0 {
        parts.push(after.fate(unfinished));
    }
    format!("Quit? {}.", crate::labels::sentence(&parts.join("; ")))
}

impl AfterQuit {
    pub fn of(outlives_this_process: bool, demo: bool) -> AfterQuit {
        match (outlives_this_process, demo) {
            (true, _) => AfterQuit::Continue,
            (false, true) => AfterQuit::Lost,
            (false, false) => AfterQuit::Pause,
        }
    }

    /// What becomes of `n` unfinished tasks, as one clause.
    pub fn fate(self, n: usize) -> String {
        let tasks = count(n, "task");
        let one = n == 1;
        match self {
            AfterQuit::Continue => format!(
                "{tasks} {} on in the background; `reel` or `reel wait --all` shows {} again",
                if one { "goes" } else { "go" },
                if one { "it" } else { "them" }
            ),
            AfterQuit::Pause => format!("{tasks} {} until reel starts again", if one { "pauses" } else { "pause" }),
            AfterQuit::Lost => {
                format!("{tasks} {} lost: the demo simulator stops with reel", if one { "is" } else { "are" })
            }
        }
    }
}

/// What this run did, for the line printed on the way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Tasks sent in this run.
    pub sent: usize,
    pub saved: usize,
    /// Sent in this run and ended badly.
    pub problems: usize,
    /// Tasks the engine still works on, this run's or older.
    pub unfinished: usize,
}

impl Summary {
    /// One line, or nothing when nothing happened.
    pub fn farewell(&self, after: AfterQuit) -> Option<String> {
        let mut parts = Vec::new();
        if self.sent > 0 {
            let mut what = vec![format!("{} saved", self.saved)];
            if self.problems > 0 {
                what.push(format!("{} with a problem", self.problems));
            }
            parts.push(format!("sent {} this run ({})", count(self.sent, "task"), what.join(", ")));
        }
        if self.unfinished > 0 {
            parts.push(after.fate(self.unfinished));
        }
        (!parts.is_empty()).then(|| format!("reel: {}.", parts.join("; ")))
    }
}

impl App {
    /// What this run did so far.
    pub fn summary(&self) -> Summary {
        let states: Vec<LocalState> =
            self.sent.iter().filter_map(|id| self.table.row(*id)).map(|r| r.record.state).collect();
        Summary {
            sent: self.sent.len() + self.sent_deleted,
            saved: states.iter().filter(|s| **s == LocalState::Downloaded).count(),
            problems: states.iter().filter(|s| !is_running(**s) && **s != LocalState::Downloaded).count(),
            unfinished: self.table.running(),
        }
    }

    /// Quits, or asks first while tasks are unfinished or submissions are held.
    pub(crate) fn request_quit(&mut self) -> Vec<Effect> {
        let (unfinished, held) = (self.table.running(), self.held.len());
        if unfinished == 0 && held == 0 {
            return self.quit_effects();
        }
        self.overlay = Some(Overlay::Confirm(Question::Quit { unfinished, held }));
        Vec::new()
    }

    pub(crate) fn quit_effects(&mut self) -> Vec<Effect> {
        self.quit = true;
        let mut effects = Vec::new();
        if self.history.unsaved() || self.history.search_pending() {
            effects.push(self.save_prefs());
        }
        // An unsent draft is kept for the next start; none clears the one kept before.
        if self.form.has_draft() {
            self.draft_kept = true;
            let saved = self.form.saved();
            self.draft_keeper.wrote(Some(saved.clone()));
            effects.push(Effect::SaveDraft(Some(saved)));
        } else if self.draft_kept {
            self.draft_keeper.wrote(None);
            effects.push(Effect::SaveDraft(None));
        }
        effects.push(Effect::Quit);
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_becomes_of_unfinished_tasks() {
        let cases = [
            (AfterQuit::Continue, 1, "1 task goes on in the background; `reel` or `reel wait --all` shows it again"),
            (AfterQuit::Continue, 3, "3 tasks go on in the background; `reel` or `reel wait --all` shows them again"),
            (AfterQuit::Pause, 1, "1 task pauses until reel starts again"),
            (AfterQuit::Pause, 2, "2 tasks pause until reel starts again"),
            (AfterQuit::Lost, 1, "1 task is lost: the demo simulator stops with reel"),
            (AfterQuit::Lost, 4, "4 tasks are lost: the demo simulator stops with reel"),
        ];
        for (after, n, want) in cases {
            assert_eq!(after.fate(n), want);
        }
        assert_eq!(AfterQuit::of(true, true), AfterQuit::Continue, "the demo simulator lives in the engine process");
        assert_eq!(AfterQuit::of(false, true), AfterQuit::Lost);
        assert_eq!(AfterQuit::of(false, false), AfterQuit::Pause);
    }

    #[test]
    fn the_quit_question_says_what_is_dropped() {
        let cases = [
            (2, 0, "Quit? 2 tasks go on in the background; `reel` or `reel wait --all` shows them again."),
            (0, 1, "Quit? 1 held submission is not sent yet (no engine is attached) and is dropped."),
            (
                1,
                2,
                "Quit? 2 held submissions are not sent yet (no engine is attached) and are dropped; 1 task goes on \
                 in the background; `reel` or `reel wait --all` shows it again.",
            ),
        ];
        for (unfinished, held, want) in cases {
            assert_eq!(quit_question(AfterQuit::Continue, unfinished, held, false), want);
        }
        // With the key refused nothing goes on in the background: the question says so.
        assert_eq!(
            quit_question(AfterQuit::Continue, 2, 0, true),
            "Quit? 2 tasks wait: the service refuses the API key, so nothing is sent or checked until a reel runs \
             with a working one."
        );
    }

    #[test]
    fn the_farewell_is_one_line() {
        let s = |sent, saved, problems, unfinished| Summary { sent, saved, problems, unfinished };
        assert_eq!(s(0, 0, 0, 0).farewell(AfterQuit::Pause), None);
        assert_eq!(
            s(3, 2, 1, 0).farewell(AfterQuit::Pause).as_deref(),
            Some("reel: sent 3 tasks this run (2 saved, 1 with a problem).")
        );
        assert_eq!(
            s(1, 0, 0, 1).farewell(AfterQuit::Continue).as_deref(),
            Some(
                "reel: sent 1 task this run (0 saved); 1 task goes on in the background; `reel` or `reel wait --all` \
                 shows it again."
            )
        );
        assert_eq!(
            s(0, 0, 0, 2).farewell(AfterQuit::Lost).as_deref(),
            Some("reel: 2 tasks are lost: the demo simulator stops with reel.")
        );
    }
}
