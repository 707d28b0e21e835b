//! Reviewing the selected task from the keyboard: `+` and `-` rate it a step up or down, `*`
//! picks it (or takes the pick back), `t` opens a line for tags (`-word` takes one off). Each
//! change goes to the engine, the journal's one writer, and is shown at once (so `+` pressed
//! three times quickly rates 3); the engine's news of the task confirms it, here and in every
//! other dashboard attached.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Level, Overlay, Screen};
use crate::keymap::Cmd;
use reel_store::review::{BadReview, Change, apply, checked};
use reel_store::{Review, TaskRecord};

/// The line where tags are typed for a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagInput {
    pub id: i64,
    pub text: String,
    /// The task's tags when the line was opened, shown above it.
    pub tags: Vec<String>,
}

/// The rating one step up (`up`) or down: unrated goes up to 1, 5 stays 5, 1 goes down to
/// unrated.
pub fn rate_step(rating: Option<u8>, up: bool) -> Option<u8> {
    match (rating, up) {
        (None, true) => Some(1),
        (Some(n), true) => Some(n.saturating_add(1).min(5)),
        (None | Some(0..=1), false) => None,
        (Some(n), false) => Some(n - 1),
    }
}

/// The changes a typed line asks for, checked: words add tags, `-word` takes one off; spaces
/// and commas separate them.
pub fn tag_changes(text: &str) -> Result<Vec<Change>, BadReview> {
    let (mut add, mut remove) = (Vec::new(), Vec::new());
    for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
        match word.strip_prefix('-') {
            Some(w) => remove.push(w.to_string()),
            None => add.push(word.to_string()),
        }
    }
    let mut out = Vec::new();
    if !add.is_empty() {
        out.push(checked(&Change::Tag(add))?);
    }
    if !remove.is_empty() {
        out.push(checked(&Change::Untag(remove))?);
    }
    Ok(out)
}

impl App {
    /// Whether the review part takes `cmd` now: its keys with nothing open over the screen,
    /// and the tag line's own keys while it is open.
    pub(crate) fn takes_review(&self, cmd: Cmd) -> bool {
        match &self.overlay {
            Some(Overlay::Tags(_)) => matches!(cmd, Cmd::Choose | Cmd::CloseOverlay | Cmd::ClearLine),
            None => matches!(cmd, Cmd::RateUp | Cmd::RateDown | Cmd::TogglePick | Cmd::EditTags),
            Some(_) => false,
        }
    }

    /// The task the review keys apply to: the history's selected row on the history screen,
    /// else the table's.
    pub(crate) fn review_subject(&self) -> Option<&TaskRecord> {
        match self.screen {
            Screen::History => self.history.selected_row().map(|r| &r.record),
            Screen::Dashboard => self.table.selected_row().map(|r| &r.record),
        }
    }

    pub(crate) fn review_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        if let Some(Overlay::Tags(input)) = &mut self.overlay {
            match cmd {
                Cmd::ClearLine => input.text.clear(),
                Cmd::Choose => return self.apply_tags(),
                _ => self.overlay = None,
            }
            return Vec::new();
        }
        let Some(t) = self.review_subject() else {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        };
        let (id, review) = (t.id, t.review.clone());
        let change = match cmd {
            Cmd::RateUp | Cmd::RateDown => {
                let rating = rate_step(review.rating, cmd == Cmd::RateUp);
                if rating == review.rating {
                    let text = match rating {
                        None => format!("Task {id} has no rating; + rates it"),
                        Some(n) => format!("Task {id} is rated {n} already, the most"),
                    };
                    self.say(Level::Info, text);
                    return Vec::new();
                }
                Change::Rate(rating)
            }
            Cmd::TogglePick => {
                if !review.picked {
                    self.pick_moving = Some((id, self.picked_beside(id)));
                }
                Change::Pick(!review.picked)
            }
            _ => {
                self.overlay = Some(Overlay::Tags(TagInput { id, text: String::new(), tags: review.tags }));
                return Vec::new();
            }
        };
        self.ask_review(id, review, vec![change])
    }

    /// The other takes of `id`'s batch the table shows picked: where a pick of `id` moves from.
    pub(crate) fn picked_beside(&self, id: i64) -> Vec<i64> {
        let Some(batch) = self.table.row(id).and_then(|r| r.record.batch_id) else { return Vec::new() };
        let mut was: Vec<i64> = self
            .table
            .rows()
            .filter(|r| r.record.id != id && r.record.batch_id == Some(batch) && r.record.review.picked)
            .map(|r| r.record.id)
            .collect();
        was.sort_unstable();
        was
    }

    /// The task's review as the table or, failing that, the history shows it.
    pub(crate) fn shown_review(&self, id: i64) -> Option<Review> {
        self.table
            .row(id)
            .map(|r| r.record.review.clone())
            .or_else(|| self.history.rows().iter().find(|r| r.record.id == id).map(|r| r.record.review.clone()))
    }

    /// A review given in the compare view: the task's review as the table or the history has
    /// it, changed, said only if it fails.
    pub(crate) fn review_take(&mut self, id: i64, change: Change) -> Vec<Effect> {
        let review = self.shown_review(id).unwrap_or_default();
        let asked = self.ask_review(id, review, vec![change]);
        asked
            .into_iter()
            .map(|e| match e {
                Effect::Review { id, change } => Effect::ReviewTake { id, change },
                other => other,
            })
            .collect()
    }

    /// The engine asked to record `changes` to a task's review, shown at once while an engine is
    /// attached (without one the effects are refused, and nothing changes on screen).
    pub(crate) fn ask_review(&mut self, id: i64, review: Review, changes: Vec<Change>) -> Vec<Effect> {
        if self.link.attached() && !changes.is_empty() {
            let shown = changes.iter().fold(review, |r, c| apply(&r, c).0);
            self.table.set_review(id, &shown);
            self.history.set_review(id, &shown);
            *self.reviewing.entry(id).or_default() += changes.len();
        }
        changes.into_iter().map(|change| Effect::Review { id, change }).collect()
    }

    /// The engine answered one change: once it has answered them all, the task shows the
    /// review the journal holds (which differs from the one shown only if a change failed).
    pub(crate) fn reviewed(
        &mut self,
        id: i64,
        quiet: bool,
        result: Result<(), super::EffectError>,
        truth: Option<TaskRecord>,
    ) -> Vec<Effect> {
        let left = self.reviewing.get(&id).map_or(0, |n| n.saturating_sub(1));
        let mut effects = Vec::new();
        if left == 0 {
            self.reviewing.remove(&id);
            if let Some(t) = truth {
                self.table.set_review(id, &t.review);
                self.history.set_review(id, &t.review);
                if self.table.timeline(id).is_some() {
                    effects.push(Effect::LoadTimeline(id));
                }
            }
        } else {
            self.reviewing.insert(id, left);
        }
        match result {
            Ok(()) if quiet => {}
            Ok(()) => {
                let summary = self.shown_review(id).unwrap_or_default().summary();
                let batch = self.table.row(id).and_then(|r| r.record.batch_id);
                let moved = match self.pick_moving.take() {
                    Some((picked, was)) if picked == id => reel_store::review::moved(id, batch, &was),
                    _ => None,
                };
                self.say(Level::Info, moved.unwrap_or_else(|| format!("Task {id}: {summary}")));
            }
            Err(e) => self.say_error("", &e),
        }
        effects
    }

    /// Enter on the tag line: the changes it asks for, or why not (the line stays open to be
    /// corrected).
    pub(crate) fn apply_tags(&mut self) -> Vec<Effect> {
        let Some(Overlay::Tags(input)) = &self.overlay else { return Vec::new() };
        let (id, tags) = (input.id, input.tags.clone());
        match tag_changes(&input.text) {
            Ok(changes) => {
                self.overlay = None;
                // The task the line was opened for, wherever it is shown (the selection may
                // have moved under the line).
                let review = self
                    .table
                    .row(id)
                    .map(|r| r.record.review.clone())
                    .or_else(|| self.history.rows().iter().find(|r| r.record.id == id).map(|r| r.record.review.clone()))
                    .unwrap_or(Review { tags, ..Review::default() });
                self.ask_review(id, review, changes)
            }
            Err(e) => {
                self.say(Level::Warn, crate::labels::sentence(&e.to_string()));
                Vec::new()
            }
        }
    }

    /// A key typed on the tag line.
    pub(crate) fn tags_typed(&mut self, ev: KeyEvent) {
        let Some(Overlay::Tags(input)) = &mut self.overlay else { return };
        let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match ev.code {
            // A line of a few tags: long enough for many, never a page.
            KeyCode::Char(c) if plain && !c.is_control() && input.text.chars().count() < 200 => input.text.push(c),
            KeyCode::Backspace => {
                input.text.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_steps_from_unrated_to_five_and_back() {
        let cases = [
            (None, true, Some(1)),
            (Some(1), true, Some(2)),
            (Some(4), true, Some(5)),
            (Some(5), true, Some(5)),
            (Some(5), false, Some(4)),
            (Some(2), false, Some(1)),
            (Some(1), false, None),
            (None, false, None),
        ];
        for (rating, up, want) in cases {
            assert_eq!(rate_step(rating, up), want, "{rating:?} {}", if up { "up" } else { "down" });
        }
    }

    #[test]
    fn a_tag_line_adds_words_and_takes_off_dashed_ones() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            ("keeper", Ok(vec![Change::Tag(words(&["keeper"]))])),
            ("  Keeper, night ", Ok(vec![Change::Tag(words(&["keeper", "night"]))])),
            ("keeper -draft", Ok(vec![Change::Tag(words(&["keeper"])), Change::Untag(words(&["draft"]))])),
            ("-draft", Ok(vec![Change::Untag(words(&["draft"]))])),
            ("", Ok(vec![])),
            ("  , ", Ok(vec![])),
            ("-", Err(BadReview::EmptyTag)),
        ];
        for (text, want) in cases {
            assert_eq!(tag_changes(text), want, "{text:?}");
        }
        let long = "x".repeat(reel_store::review::MAX_TAG + 1);
        assert!(matches!(tag_changes(&long), Err(BadReview::LongTag(_))));
    }
}
