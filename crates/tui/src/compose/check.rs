//! The outcome of checking the form, and the billed seconds and cost of what it would send.

use reel_rules::{Pricing, ValidSubmission};

use super::field::Field;

/// Most copies of one submission.
pub const MAX_COPIES: u32 = 50;

/// Billed seconds and cost of sending every submission of `plan` `copies` times, as the form
/// and the questions before sending show them: unknown parts are said, never counted as 0.
pub fn billed_and_cost(plan: &[ValidSubmission], copies: u32, pricing: &Pricing) -> (String, String) {
    // At most what the rules allow where a part is not known yet; unpriced said, never $0.00.
    let cost = if plan.is_empty() { "-".into() } else { pricing.said(&pricing.quote(plan, copies)) };
    let copies = f64::from(copies);
    let totals: Vec<Option<f64>> = plan.iter().map(|v| v.billing.total().map(|t| t * copies)).collect();
    let billed = match (plan.len(), totals.iter().copied().sum::<Option<f64>>()) {
        (0, _) => "-".into(),
        (1, None) => plan[0].billing.to_string(),
        (_, Some(t)) => format!("{} s", reel_rules::billing::secs(t)),
        (_, None) => "not known before rendering".into(),
    };
    (billed, cost)
}

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
