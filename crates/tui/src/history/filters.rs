//! What the history screen asks for, remembered between runs: words, model, state group, date
//! range and order.

use serde::{Deserialize, Serialize};

use crate::labels::Filter;
use reel_store::history::{HistoryQuery, Order};

/// The date range, relative to now (so "last 7 days" stays true between runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Span {
    #[default]
    All,
    Today,
    Week,
    Month,
}

impl Span {
    pub fn next(self) -> Span {
        match self {
            Span::All => Span::Today,
            Span::Today => Span::Week,
            Span::Week => Span::Month,
            Span::Month => Span::All,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Span::All => "all time",
            Span::Today => "today",
            Span::Week => "last 7 days",
            Span::Month => "last 30 days",
        }
    }

    /// The first Unix ms of the span; `today_ms` is the start of today.
    pub fn since(self, today_ms: i64) -> Option<i64> {
        const DAY: i64 = 86_400_000;
        match self {
            Span::All => None,
            Span::Today => Some(today_ms),
            Span::Week => Some(today_ms - 6 * DAY),
            Span::Month => Some(today_ms - 29 * DAY),
        }
    }
}

/// What the history screen remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    pub text: String,
    pub model: Option<String>,
    /// The same few groups of states as the task table.
    #[serde(default)]
    pub group: Filter,
    pub span: Span,
    pub order: Order,
}

impl Filters {
    pub fn query(&self, today_ms: i64) -> HistoryQuery {
        HistoryQuery {
            text: self.text.clone(),
            model: self.model.clone(),
            state: None,
            states: self.group.states(),
            since: self.span.since(today_ms),
            until: None,
            order: self.order,
        }
    }
}

/// Cycles through `None` then every choice.
pub fn cycle<T: Clone + PartialEq>(current: &Option<T>, choices: &[T]) -> Option<T> {
    match current {
        None => choices.first().cloned(),
        Some(c) => choices.iter().position(|x| x == c).and_then(|i| choices.get(i + 1)).cloned(),
    }
}
