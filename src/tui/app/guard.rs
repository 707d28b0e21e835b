//! Questions before reel goes on: deleting a record, and the daily budget guard in front of
//! every submission (the same rule `reel submit` checks).

use super::{App, Effect, Level, Overlay, Question};
use crate::rules::{ValidSubmission, check_budget};
use crate::tui::keymap::Cmd;

impl App {
    /// The answer to the open question.
    pub(super) fn answer(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(Overlay::Confirm(q)) = self.overlay.take() else { return Vec::new() };
        match (q, cmd) {
            (Question::Delete(id), Cmd::Yes) => vec![Effect::Delete { id, remove_file: false }],
            (Question::Delete(id), Cmd::YesWithFile) => vec![Effect::Delete { id, remove_file: true }],
            (Question::Budget { plan, copies, parent, planned }, Cmd::Yes) => {
                self.spent_today += planned;
                vec![Effect::Submit { plan, copies, parent }]
            }
            // f means nothing to the budget question: it stays open.
            (q, Cmd::YesWithFile) => {
                self.overlay = Some(Overlay::Confirm(q));
                Vec::new()
            }
            _ => {
                self.say(Level::Info, "Nothing was done");
                Vec::new()
            }
        }
    }

    /// A submission, or the budget question when it would pass today's budget.
    pub(super) fn guarded(&mut self, plan: Vec<ValidSubmission>, copies: u32, parent: Option<i64>) -> Vec<Effect> {
        match check_budget(&self.budget, &self.pricing, self.spent_today, &plan, copies) {
            Ok(planned) => {
                self.spent_today += planned;
                vec![Effect::Submit { plan, copies, parent }]
            }
            Err(over) => {
                self.say(Level::Warn, format!("{}. Send anyway? y / n", sentence(&over.to_string())));
                let planned = over.planned;
                self.overlay = Some(Overlay::Confirm(Question::Budget { plan, copies, parent, planned }));
                Vec::new()
            }
        }
    }
}

/// The message with a capital first letter, to stand alone on the status line.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
