//! Questions before reel goes on: deleting a record, sending several paid tasks again,
//! quitting with unfinished tasks, and the daily budget guard in front of every submission
//! (the same rule `reel submit` checks).

use super::{App, Effect, Level, Overlay, Question};
use crate::keymap::Cmd;
use crate::labels::sentence;
use reel_rules::{ValidSubmission, check_budget};

/// The submissions an effect sends, and how many copies of each.
fn plan_of(effect: &Effect) -> (Vec<ValidSubmission>, u32) {
    match effect {
        Effect::Submit { plan, copies, .. } => (plan.clone(), *copies),
        Effect::SubmitAgain(items) => (items.iter().map(|(_, v)| v.clone()).collect(), 1),
        Effect::SubmitBatch(parts) => {
            (parts.iter().flat_map(|p| std::iter::repeat_n(p.submission.clone(), p.count as usize)).collect(), 1)
        }
        Effect::PastBudget(inner) => plan_of(inner),
        _ => (Vec::new(), 1),
    }
}

impl App {
    /// The answer to the open question. Keys that answer nothing leave it open.
    pub(crate) fn answer(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(Overlay::Confirm(q)) = self.overlay.take() else { return Vec::new() };
        match (q, cmd) {
            (Question::Delete(id), Cmd::Yes) => vec![Effect::Delete { id, remove_file: false }],
            (Question::Delete(id), Cmd::YesWithFile) => vec![Effect::Delete { id, remove_file: true }],
            (Question::Budget { then, planned, .. }, Cmd::Yes) => {
                self.spent_today += planned;
                vec![Effect::PastBudget(then)]
            }
            (Question::Again { then, .. }, Cmd::Yes) => self.guarded(*then),
            (Question::Batch { then, count: n, .. }, Cmd::Yes) => {
                self.say(Level::Info, format!("Sending {}…", crate::labels::count(n, "task")));
                self.guarded(*then)
            }
            // A second Ctrl-C (or q) says yes to quitting.
            (Question::Quit { .. }, Cmd::Yes | Cmd::ForceQuit | Cmd::Quit) => self.quit_effects(),
            (Question::Vary(t), Cmd::Yes) => {
                self.vary_now(&t);
                Vec::new()
            }
            (Question::Quit { .. }, Cmd::No) => {
                self.status = None;
                Vec::new()
            }
            (_, Cmd::No) => {
                self.say(Level::Info, "Nothing was done");
                Vec::new()
            }
            (q, _) => {
                self.overlay = Some(Overlay::Confirm(q));
                Vec::new()
            }
        }
    }

    /// A submission, or the budget question when it would pass today's budget.
    pub(crate) fn guarded(&mut self, then: Effect) -> Vec<Effect> {
        // Demo work costs nothing, here as in the engine's admission and the ledger.
        if self.header.demo {
            return vec![then];
        }
        let (plan, copies) = plan_of(&then);
        match check_budget(&self.budget, &self.pricing, self.spent_today, &plan, copies) {
            Ok(planned) => {
                self.spent_today += planned;
                vec![then]
            }
            Err(over) => {
                let text = format!("{}. Send anyway?", sentence(&over.to_string()));
                self.say(Level::Warn, text.clone());
                let planned = over.planned;
                self.overlay = Some(Overlay::Confirm(Question::Budget { then: Box::new(then), planned, text }));
                Vec::new()
            }
        }
    }
}
