//! The `[agents]` limits as pure rules: what a call that would send tasks may do, given what
//! agents have sent today. A call past a limit is refused whole, naming the limit and the
//! numbers; nothing is queued.

use thiserror::Error;

use crate::config::AgentsSettings;

/// What a call would send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub tasks: u32,
    /// Priced cost of the tasks (unpriced models and automatic durations add nothing).
    pub cost: f64,
}

/// What agents have sent today (tasks tagged `agent-…` created since midnight, in flight
/// included).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Today {
    pub tasks: u32,
    pub spent: f64,
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum Refusal {
    #[error(
        "agents may not send tasks: [agents] submit is false in reel's config file (the default); the user \
         allows it with submit = true. models, check, status, search and show work without it"
    )]
    SubmitOff,
    #[error("this call makes {tasks} tasks, past [agents] max_tasks_per_call = {max}; send at most {max} per call")]
    PerCall { tasks: u32, max: u32 },
    #[error(
        "this call makes {tasks} tasks; agents sent {today} today, and [agents] daily_tasks = {max} allows {} more",
        max.saturating_sub(*today)
    )]
    DailyTasks { tasks: u32, today: u32, max: u32 },
    #[error(
        "this call costs {currency}{cost:.2}; agents spent {currency}{spent:.2} today (in flight included), and \
         [agents] daily = {currency}{daily:.2}"
    )]
    Daily { cost: f64, spent: f64, daily: f64, currency: String },
}

/// Whether agents may send `plan` now. The limits are checked in this order, so that the
/// message names the first one a call breaks.
pub fn check(limits: &AgentsSettings, currency: &str, plan: Plan, today: Today) -> Result<(), Refusal> {
    if !limits.submit {
        return Err(Refusal::SubmitOff);
    }
    if plan.tasks > limits.max_tasks_per_call {
        return Err(Refusal::PerCall { tasks: plan.tasks, max: limits.max_tasks_per_call });
    }
    if let Some(max) = limits.daily_tasks
        && today.tasks.saturating_add(plan.tasks) > max
    {
        return Err(Refusal::DailyTasks { tasks: plan.tasks, today: today.tasks, max });
    }
    match limits.daily {
        // The same tolerance as the budget: spending exactly the limit is within it.
        Some(daily) if plan.cost > 0.0 && today.spent.max(0.0) + plan.cost > daily + 1e-9 => {
            Err(Refusal::Daily { cost: plan.cost, spent: today.spent, daily, currency: currency.to_string() })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(submit: bool, daily: Option<f64>, daily_tasks: Option<u32>, per_call: u32) -> AgentsSettings {
        AgentsSettings { submit, daily, daily_tasks, max_tasks_per_call: per_call }
    }

    #[test]
    fn each_limit_refuses_past_it_and_names_itself() {
        let plan = |tasks, cost| Plan { tasks, cost };
        let today = |tasks, spent| Today { tasks, spent };
        let open = limits(true, None, None, 10);
        let cases: &[(AgentsSettings, Plan, Today, Option<&str>)] = &[
            (AgentsSettings::default(), plan(1, 0.0), today(0, 0.0), Some("[agents] submit is false")),
            (open, plan(1, 5.0), today(0, 0.0), None),
            (open, plan(10, 0.0), today(0, 0.0), None),
            (open, plan(11, 0.0), today(0, 0.0), Some("makes 11 tasks, past [agents] max_tasks_per_call = 10")),
            (limits(true, None, Some(5), 10), plan(2, 0.0), today(3, 0.0), None),
            (limits(true, None, Some(5), 10), plan(3, 0.0), today(3, 0.0), Some("daily_tasks = 5 allows 2 more")),
            (limits(true, None, Some(2), 10), plan(1, 0.0), today(4, 0.0), Some("daily_tasks = 2 allows 0 more")),
            (limits(true, Some(10.0), None, 10), plan(1, 4.0), today(0, 6.0), None),
            (limits(true, Some(10.0), None, 10), plan(1, 4.5), today(0, 6.0), Some("[agents] daily = $10.00")),
            (limits(true, Some(10.0), None, 10), plan(1, 4.5), today(0, 6.0), Some("spent $6.00 today")),
            // Nothing priced adds nothing: never over the daily spend.
            (limits(true, Some(1.0), None, 10), plan(3, 0.0), today(0, 50.0), None),
            // The order: per call before the daily counts.
            (limits(true, Some(1.0), Some(1), 2), plan(3, 9.0), today(0, 0.0), Some("max_tasks_per_call")),
        ];
        for (limits, plan, today, want) in cases {
            let got = check(limits, "$", *plan, *today).map_err(|e| e.to_string());
            match (got, want) {
                (Ok(()), None) => {}
                (Err(e), Some(words)) => assert!(e.contains(words), "{limits:?} {plan:?} {today:?}: {e}"),
                (got, want) => panic!("{limits:?} {plan:?} {today:?}: {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn the_config_section_reads_with_its_defaults() {
        let file = crate::config::parse_file(std::path::Path::new("c.toml"), "[agents]\nsubmit = true\ndaily = 2.5\n")
            .expect("parses");
        assert_eq!(file.agents, limits(true, Some(2.5), None, 10));
        let file = crate::config::parse_file(std::path::Path::new("c.toml"), "").expect("parses");
        assert_eq!(file.agents, AgentsSettings::default());
        assert!(!file.agents.submit, "agents cannot send by default");
        assert!(crate::config::parse_file(std::path::Path::new("c.toml"), "[agents]\nsend = true\n").is_err());
    }
}
