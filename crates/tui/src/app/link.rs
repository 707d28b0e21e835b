//! The engine's link as `update` sees it: the socket closed, attempts to attach again, the
//! rows read again once attached, and engine commands made while no engine is attached
//! (submissions are held and sent once one is; the rest are refused, with a message).

use super::{Action, App, Effect, Level, Reload};
use crate::labels::count;
use crate::link::{Link, Outage, backoff_ms, reload_since};

/// What becomes of an effect while no engine is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WhileDown {
    /// It needs no engine.
    Go,
    /// A submission: kept, and sent once an engine is attached.
    Hold,
    /// An action on tasks the engine knows: said to wait, so that nothing happens later
    /// that the user no longer expects.
    Refuse,
}

fn while_down(effect: &Effect) -> WhileDown {
    match effect {
        Effect::Submit { .. } | Effect::SubmitAgain(_) | Effect::SubmitBatch(_) | Effect::PastBudget(_) => {
            WhileDown::Hold
        }
        Effect::Bulk { .. } | Effect::Delete { .. } | Effect::Review { .. } | Effect::ReviewTake { .. } => {
            WhileDown::Refuse
        }
        _ => WhileDown::Go,
    }
}

impl App {
    /// News of the link to the engine process.
    pub(crate) fn link_news(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::LinkLost => self.link_lost(),
            Action::Reattaching(attempt) => {
                if let Link::Down(o) = &mut self.link
                    && o.attempt == attempt
                {
                    o.next_try_ms = None;
                }
                Vec::new()
            }
            Action::ReattachFailed { attempt, error } => match &mut self.link {
                Link::Down(o) if o.attempt == attempt => {
                    o.attempt += 1;
                    let after_ms = backoff_ms(o.attempt);
                    o.next_try_ms = Some(self.now_ms + after_ms);
                    let attempt = o.attempt;
                    // Said once per reason: every few seconds again, it would hide what the
                    // user did meanwhile (a send refused); the header counts the attempts.
                    if self.reattach_error.as_deref() != Some(error.as_str()) {
                        let text = format!(
                            "Cannot attach to the engine yet (reel keeps trying): {}",
                            reel_rules::text::clean(&error)
                        );
                        self.say(Level::Warn, text);
                        self.reattach_error = Some(error);
                    }
                    vec![Effect::Reattach { attempt, after_ms }]
                }
                _ => Vec::new(),
            },
            Action::Reattached { restarted, activity } => {
                let lost = match &self.link {
                    Link::Down(o) => Some(o.since_ms),
                    _ => None,
                };
                self.link = Link::Reloading { restarted };
                if let Some(a) = activity {
                    self.header.service = a.service;
                }
                // Running rows are asked about by id: one deleted meanwhile would spin forever.
                let check = self.table.rows().filter(|r| crate::labels::is_running(r.record.state));
                let check = check.map(|r| r.record.id).collect();
                let mut since_ms = reload_since(self.now_ms, lost);
                // Another machine's clock may be behind this one's: its own mark counts too.
                if self.header.far.is_some()
                    && let Some(mark) = self.engine_mark
                {
                    since_ms = since_ms.min(mark);
                }
                vec![Effect::Reload { since_ms, check }]
            }
            Action::Reloaded(result) => self.reloaded(result),
            _ => Vec::new(),
        }
    }

    /// Engine news was dropped on its way here: the rows are read again (news waits meanwhile,
    /// so that the read takes nothing back), as after a reattachment.
    pub(crate) fn catch_up(&mut self) -> Vec<Effect> {
        if self.link != Link::Up {
            return Vec::new();
        }
        self.link = Link::CatchingUp;
        let check = self.table.rows().filter(|r| crate::labels::is_running(r.record.state));
        let check = check.map(|r| r.record.id).collect();
        vec![Effect::Reload { since_ms: reload_since(self.now_ms, None), check }]
    }

    pub(crate) fn link_lost(&mut self) -> Vec<Effect> {
        if !self.link.attached() {
            return Vec::new();
        }
        let after_ms = backoff_ms(1);
        self.reattach_error = None;
        self.link = Link::Down(Outage { since_ms: self.now_ms, attempt: 1, next_try_ms: Some(self.now_ms + after_ms) });
        let text = match &self.header.far {
            Some(host) => format!("The link to {host} dropped; reel reconnects (the engine there goes on working)"),
            None => "The engine process stopped; reel starts it again (every task is in the journal)".into(),
        };
        self.say(Level::Warn, text);
        vec![Effect::Reattach { attempt: 1, after_ms }]
    }

    /// The rows read from the store: shown as they are, then engine news flows again, and
    /// what was held is sent.
    pub(crate) fn reloaded(&mut self, result: Result<Reload, super::EffectError>) -> Vec<Effect> {
        let after_loss = match self.link {
            Link::CatchingUp => {
                self.link = Link::Up;
                return self.caught_up(result);
            }
            Link::Opening => None,
            Link::Reloading { restarted } => Some(restarted),
            // Lost again before the read was done (the engine died at start): its rows are still
            // the truth of the store; news waits for the next attachment and its own read.
            Link::Down(_) => {
                if let Ok(r) = result {
                    self.show_read(r.records);
                }
                return Vec::new();
            }
            // No read is asked while news flows: an older one must not take news back.
            Link::Up => return Vec::new(),
        };
        self.link = Link::Up;
        let mut effects = Vec::new();
        let mut level = Level::Info;
        let mut text = match (after_loss, &self.header.far) {
            (Some(_), Some(host)) => format!("Reconnected to {host}"),
            (Some(true), None) => "Engine restarted".to_string(),
            (Some(false), None) => "Engine attached again".to_string(),
            (None, _) => String::new(),
        };
        match result {
            Ok(Reload { records, gone, mark }) => {
                self.engine_mark = self.engine_mark.max(Some(mark));
                let n = records.len();
                self.show_read(records);
                for id in gone {
                    self.table.remove(id);
                    self.history.remove(id);
                }
                if after_loss.is_some() {
                    // The timelines on screen missed what happened meanwhile: read them again.
                    self.table.forget_timelines();
                    self.last_selected = None;
                    effects.extend(self.history_again());
                    text.push_str(&format!("; reloaded {}", count(n, "task")));
                }
            }
            Err(e) => {
                level = Level::Error;
                let what = if after_loss.is_some() {
                    "; the tasks could not be read again: "
                } else {
                    "Cannot read the earlier tasks: "
                };
                text.push_str(what);
                text.push_str(&reel_rules::text::clean(&e.to_string()));
            }
        }
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            if !text.is_empty() {
                text.push_str("; ");
            }
            text.push_str(&format!("sending {} held meanwhile", count(held.len(), "submission")));
            effects.extend(held);
        }
        if !text.is_empty() {
            self.say(level, text);
        }
        effects
    }

    /// The rows read after news was dropped: shown, and news flows again.
    pub(crate) fn caught_up(&mut self, result: Result<Reload, super::EffectError>) -> Vec<Effect> {
        match result {
            Ok(Reload { records, gone, mark }) => {
                self.engine_mark = self.engine_mark.max(Some(mark));
                self.show_read(records);
                for id in gone {
                    self.table.remove(id);
                    self.history.remove(id);
                }
                self.table.forget_timelines();
                self.last_selected = None;
                self.history_again()
            }
            Err(e) => {
                let text = format!(
                    "Cannot read the tasks again after missed news: {}",
                    reel_rules::text::clean(&e.to_string())
                );
                self.say(Level::Error, text);
                Vec::new()
            }
        }
    }

    /// The history's rows missed what happened meanwhile: read again if it is shown, else
    /// when it is opened next.
    pub(crate) fn history_again(&mut self) -> Vec<Effect> {
        if self.screen == super::Screen::History {
            self.requery(false)
        } else {
            self.history.mark_stale();
            Vec::new()
        }
    }

    /// Engine commands made while no engine is attached: submissions are held, the rest refused.
    pub(crate) fn while_down(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        let mut go = Vec::new();
        let (mut held, mut refused) = (0, 0);
        let far = self.header.far.clone();
        for effect in effects {
            // Over SSH a link may stay down for long (a laptop asleep, a train): a submission
            // is refused rather than sent at a moment the user no longer expects.
            let rule = match while_down(&effect) {
                WhileDown::Hold if far.is_some() => WhileDown::Refuse,
                rule => rule,
            };
            match rule {
                WhileDown::Go => go.push(effect),
                WhileDown::Hold => {
                    self.held.push(effect);
                    held += 1;
                }
                WhileDown::Refuse => refused += 1,
            }
        }
        if held > 0 {
            let n = self.held.len();
            let text = format!(
                "Held: the engine is not attached; {} will be sent when it is back",
                if n == 1 { "the submission".to_string() } else { count(n, "held submission") }
            );
            self.say(Level::Warn, text);
        } else if refused > 0
            && let Some(host) = far
        {
            let text = format!("Not sent: the link to {host} is down (reconnecting); try again once it is back");
            self.say(Level::Warn, text);
        } else if refused > 0 {
            self.say(Level::Warn, "Not done: the engine is not attached (reconnecting); try again once it is back");
        }
        go
    }
}
