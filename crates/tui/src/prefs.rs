//! Screen preferences kept between runs: the task table's sort and state filter, the
//! history's query. Saved by the event loop when they change.

use serde::{Deserialize, Serialize};

use crate::history::Filters;
use crate::labels::Filter;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Sort {
    #[default]
    Newest,
    Oldest,
    State,
    Model,
}

impl Sort {
    pub fn next(self) -> Sort {
        match self {
            Sort::Newest => Sort::Oldest,
            Sort::Oldest => Sort::State,
            Sort::State => Sort::Model,
            Sort::Model => Sort::Newest,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Sort::Newest => "newest first",
            Sort::Oldest => "oldest first",
            Sort::State => "by state",
            Sort::Model => "by model",
        }
    }
}

/// Screen preferences kept between runs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Prefs {
    pub sort: Sort,
    pub filter: Filter,
    #[serde(default)]
    pub history: Filters,
}
