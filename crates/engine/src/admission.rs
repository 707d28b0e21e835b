//! Admission, pure: whether the engine takes a submission, and which of its tasks, given what
//! the journal holds today. The engine runs this in the same store transaction that journals
//! the tasks, so no two submissions, from any clients at the same instant, can both pass a
//! limit: the second sees the first's rows.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::AgentsSettings;
use reel_rules::pricing::Quote;
use reel_rules::{Budget, Pricing};
pub use reel_store::admitted::RowTally;

/// The limits the engine keeps, from the config of the machine it runs on; no client's config
/// can lift them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Limits {
    pub budget: Budget,
    pub pricing: Pricing,
    pub agents: AgentsSettings,
    /// Tasks one submission may make (`[batch] max_tasks`), whoever sends it.
    pub max_tasks: u32,
}

impl Limits {
    pub const DEFAULT_MAX_TASKS: u32 = 10_000;
}

/// Who asks: a person (the dashboard, a command, a script) or an agent over MCP.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "who", rename_all = "snake_case")]
pub enum Sender {
    #[default]
    User,
    /// An agent, by the name its MCP client gave: its tasks carry the tag `agent-NAME`.
    Agent { name: String },
}

/// One part of a submission as admission sees it: its content key, the copies asked for, and
/// what one copy can cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub key: String,
    pub count: u32,
    pub each: Quote,
}

/// What the journal holds today, read in the admitting transaction.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Today {
    /// The most today's billable, priced work can cost (every client's, in flight included).
    pub spent: f64,
    /// Tasks agents sent today, and what they can cost at most.
    pub agent_tasks: u32,
    pub agent_spent: f64,
}

/// What the engine asks before journaling.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask<'a> {
    pub sender: &'a Sender,
    /// The user said yes to passing the daily budget (`--yes`, the dashboard's question).
    /// Agents cannot.
    pub over_budget: bool,
    /// Leave out what an earlier run with the same content sent (a batch file run again).
    pub resume: bool,
    /// With `resume`: what ended without a video is not counted as sent (see
    /// [`reel_store::state::FAILED_STATES`]).
    pub retry_failed: bool,
    pub parts: &'a [Candidate],
}

/// The tasks to journal, part by part.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Admitted {
    /// For each part: how many tasks to journal, and the ordinal of the first among the tasks
    /// of its content key (the idempotency key is derived from the key and the ordinal).
    pub take: Vec<(u32, u32)>,
    /// Tasks left out because an earlier run sent them.
    pub left_out: u32,
    /// What the admitted tasks can cost.
    pub quote: Quote,
}

impl Admitted {
    pub fn tasks(&self) -> u32 {
        self.take.iter().map(|(n, _)| n).sum()
    }
}

/// A limit the engine keeps, named with its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Error)]
#[serde(tag = "limit", rename_all = "snake_case")]
pub enum Limit {
    #[error(
        "this submission makes {tasks} tasks, past the engine's [batch] max_tasks = {max}; send at most {max} at once"
    )]
    TooMany { tasks: u64, max: u32 },
    #[error(
        "this submission is {} MiB, more than the {} MiB one message to the engine may carry; send it in smaller \
         files",
        bytes.div_ceil(1 << 20),
        max >> 20
    )]
    TooLarge { bytes: u64, max: u64 },
    #[error(
        "agents may not send tasks: [agents] submit is false in the config file of the machine the engine runs on \
         (the default); the user allows it with submit = true. models, check, status, search and show work without it"
    )]
    AgentsOff,
    #[error("this call makes {tasks} tasks, past [agents] max_tasks_per_call = {max}; send at most {max} per call")]
    PerCall { tasks: u32, max: u32 },
    #[error(
        "this call makes {tasks} tasks; agents sent {today} today, and [agents] daily_tasks = {max} allows {} more",
        max.saturating_sub(*today)
    )]
    DailyTasks { tasks: u32, today: u32, max: u32 },
    #[error(
        "this call costs {}{currency}{cost:.2}; agents spent {currency}{spent:.2} today (in flight included), and \
         [agents] daily = {currency}{daily:.2}",
        if *exact { "" } else { "at most " }
    )]
    AgentsDaily { cost: f64, exact: bool, spent: f64, daily: f64, currency: String },
    #[error("{over} ([budget] daily{})", if *agent { "; an agent cannot say yes to it" } else { "; add --yes to send anyway" })]
    Budget { over: reel_rules::OverBudget, agent: bool },
}

/// The tasks of `ask` to journal, or the first limit it breaks. `existing` counts, per content
/// key, the tasks the journal holds already.
pub fn admit(
    limits: &Limits,
    ask: &Ask,
    today: Today,
    existing: &HashMap<String, RowTally>,
) -> Result<Admitted, Limit> {
    let wanted: u64 = ask.parts.iter().map(|p| u64::from(p.count.max(1))).sum();
    if wanted > u64::from(limits.max_tasks) {
        return Err(Limit::TooMany { tasks: wanted, max: limits.max_tasks });
    }
    let take = takes(ask, existing);
    let mut quote = Quote { exact: true, ..Quote::default() };
    for (part, (n, _)) in ask.parts.iter().zip(&take) {
        let each = part.each;
        quote.tasks += n;
        quote.unpriced += if each.unpriced > 0 { *n } else { 0 };
        quote.cost += each.cost * f64::from(*n);
        quote.exact &= each.exact || *n == 0;
    }
    let admitted = Admitted { left_out: u32::try_from(wanted).unwrap_or(u32::MAX) - quote.tasks, take, quote };
    let agent = matches!(ask.sender, Sender::Agent { .. });
    if agent {
        let a = &limits.agents;
        if !a.submit {
            return Err(Limit::AgentsOff);
        }
        if quote.tasks > a.max_tasks_per_call {
            return Err(Limit::PerCall { tasks: quote.tasks, max: a.max_tasks_per_call });
        }
        if let Some(max) = a.daily_tasks
            && today.agent_tasks.saturating_add(quote.tasks) > max
        {
            return Err(Limit::DailyTasks { tasks: quote.tasks, today: today.agent_tasks, max });
        }
        if let Some(daily) = a.daily
            && quote.cost > 0.0
            && today.agent_spent.max(0.0) + quote.cost > daily + 1e-9
        {
            return Err(Limit::AgentsDaily {
                cost: quote.cost,
                exact: quote.exact,
                spent: today.agent_spent,
                daily,
                currency: limits.pricing.currency.clone(),
            });
        }
    }
    if agent || !ask.over_budget {
        limits
            .budget
            .admits(quote, today.spent, &limits.pricing.currency)
            .map_err(|over| Limit::Budget { over, agent })?;
    }
    Ok(admitted)
}

/// How many tasks of each part to journal and the ordinal of the first. A resumed run sends,
/// per content key, what its parts ask for beyond what the journal holds (a row whose copies
/// grew sends the new copies; with `retry_failed`, the copies that ended without a video are
/// owed again); otherwise every copy asked for. New copies always take new ordinals, so a
/// retry is another idempotency key than the take it replaces.
fn takes(ask: &Ask, existing: &HashMap<String, RowTally>) -> Vec<(u32, u32)> {
    let mut next: HashMap<&str, u32> = HashMap::new();
    let mut owed: HashMap<&str, u32> = HashMap::new();
    for p in ask.parts {
        *owed.entry(&p.key).or_default() += p.count.max(1);
    }
    for (key, want) in owed.iter_mut() {
        let tally = existing.get(*key).copied().unwrap_or_default();
        next.insert(key, tally.sent);
        let kept = if ask.retry_failed { tally.sent.saturating_sub(tally.failed) } else { tally.sent };
        if ask.resume {
            *want = want.saturating_sub(kept);
        }
    }
    ask.parts
        .iter()
        .map(|p| {
            let left = owed.get(p.key.as_str()).copied().unwrap_or(0);
            let n = left.min(p.count.max(1));
            owed.insert(&p.key, left - n);
            let first = next.get(p.key.as_str()).copied().unwrap_or(0);
            next.insert(&p.key, first + n);
            (n, first)
        })
        .collect()
}

/// The idempotency key of the `ordinal`-th task with content `key` in the journal salted with
/// `salt`: the same request twice is the same key, so a service that honours it runs it once;
/// another take of the same content, or another journal's, is another key.
pub fn idempotency_key(salt: &str, key: &str, ordinal: u32) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{salt}\n{key}\n{ordinal}").as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
