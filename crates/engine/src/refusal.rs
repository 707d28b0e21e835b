//! Why the engine did not do what a client asked, as data: a kind a caller can match, with the
//! field, the limit and the numbers. It crosses the socket (and SSH) as itself, so a client far
//! away matches the same kind as one in the engine's own process; the words are made from it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use reel_store::LocalState;

/// One broken rule of a submission: the field it belongs to and the rule, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broken {
    pub field: String,
    pub rule: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refused {
    #[error("no task {id}")]
    NoTask { id: i64 },
    #[error("task {id} is {state}; {action} does not apply")]
    NotApplicable { id: i64, state: LocalState, action: String },
    #[error("{detail}; nothing was sent (tasks sent before wait for a working key)")]
    KeyRefused { detail: String },
    #[error("media item {item} is a local file that was not uploaded; only its URL can be sent")]
    NotUploaded { item: usize },
    /// The engine checked the drafts again with its own rules (it trusts no client).
    #[error("{}{}", part.map(|p| format!("part {p}: ")).unwrap_or_default(), said(broken))]
    Invalid { part: Option<usize>, broken: Vec<Broken> },
    /// A limit the engine keeps (the budget, the agents' limits, the size of a submission).
    #[error("{0}; nothing was sent")]
    Limit(#[from] super::admission::Limit),
    #[error(
        "{unfinished} {} unfinished; stopping now pauses {} until the next reel starts the engine \
         (add --force to stop anyway)",
        if *unfinished == 1 { "task is" } else { "tasks are" },
        if *unfinished == 1 { "it" } else { "them" },
    )]
    Unfinished { unfinished: usize },
    /// The engine's own trouble (its disk, its database), in its words.
    #[error("{message}")]
    Failed { message: String },
}

fn said(broken: &[Broken]) -> String {
    broken.iter().map(|b| format!("{}: {}", b.field, b.rule)).collect::<Vec<_>>().join("; ")
}

impl Refused {
    pub fn failed(e: impl std::fmt::Display) -> Refused {
        Refused::Failed { message: e.to_string() }
    }

    /// The rules a draft broke, as the engine names them.
    pub fn invalid(part: Option<usize>, invalid: &reel_rules::Invalid) -> Refused {
        let broken =
            invalid.violations.iter().map(|v| Broken { field: v.field().to_string(), rule: v.to_string() }).collect();
        Refused::Invalid { part, broken }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Limit;

    #[test]
    fn every_kind_keeps_its_kind_and_words_on_the_wire() {
        let cases = [
            (Refused::NoTask { id: 9 }, "no task 9"),
            (
                Refused::NotApplicable { id: 3, state: LocalState::Queued, action: "sending it again".into() },
                "task 3 is queued; sending it again does not apply",
            ),
            (
                Refused::Invalid {
                    part: Some(2),
                    broken: vec![Broken { field: "seconds".into(), rule: "seconds 3 is out of range".into() }],
                },
                "part 2: seconds: seconds 3 is out of range",
            ),
            (
                Refused::Limit(Limit::DailyTasks { tasks: 3, today: 8, max: 10 }),
                "this call makes 3 tasks; agents sent 8 today, and [agents] daily_tasks = 10 allows 2 more; nothing was sent",
            ),
            (
                Refused::Unfinished { unfinished: 1 },
                "1 task is unfinished; stopping now pauses it until the next reel starts the engine (add --force to stop anyway)",
            ),
        ];
        for (refused, words) in cases {
            assert_eq!(refused.to_string(), words);
            let line = serde_json::to_string(&refused).expect("encodes");
            assert_eq!(serde_json::from_str::<Refused>(&line).expect("decodes"), refused, "{line}");
        }
    }
}
