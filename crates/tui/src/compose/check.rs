//! The outcome of checking the form, and the billed seconds and cost of what it would send.

use reel_rules::ValidSubmission;
pub use reel_rules::pricing::billed_and_cost;

use super::field::Field;

/// Most copies of one submission.
pub const MAX_COPIES: u32 = 50;

/// The outcome of the last check of the form.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Check {
    /// Broken rules, by the field they belong to, in field order.
    pub problems: Vec<(Field, String)>,
    pub warnings: Vec<String>,
    /// Every submission a Ctrl-S would send (one per grid cell), when there is no problem.
    pub plan: Vec<ValidSubmission>,
    pub copies: u32,
    /// Tasks a Ctrl-S would start.
    pub count: usize,
    pub billed: String,
    pub cost: String,
}

impl Check {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && !self.plan.is_empty()
    }

    pub fn first_problem(&self, field: Field) -> Option<&str> {
        self.problems.iter().find(|(f, _)| *f == field).map(|(_, m)| m.as_str())
    }
}
