//! What tasks cost and the daily budget: the price table from the config, and the one budget
//! check that the dashboard and `reel submit` both call.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::validate::ValidSubmission;

/// `[pricing]`: what a billed second costs per model; models without a price are "unpriced".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    /// Written before amounts, such as "$" or "EUR ".
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub per_second: BTreeMap<String, f64>,
}

impl Pricing {
    /// The cost of `billed_seconds` of `model`, if the model has a price.
    pub fn cost(&self, model: &str, billed_seconds: f64) -> Option<f64> {
        self.per_second.get(model).map(|p| p * billed_seconds)
    }

    pub fn format(&self, amount: f64) -> String {
        format!("{}{amount:.2}", self.currency)
    }

    /// The priced cost of `copies` of each submission. Unpriced models and unknown billed
    /// durations count 0 here; the form shows them as unpriced.
    pub fn planned(&self, plan: &[ValidSubmission], copies: u32) -> f64 {
        // Folded from +0.0: `sum()` of no priced part is -0.0, which prints as "-0.00".
        plan.iter()
            .filter_map(|v| v.billing.total().and_then(|b| self.cost(&v.model.to_string(), b * f64::from(copies))))
            .fold(0.0, |total, cost| total + cost)
    }
}

/// `[budget]`: spending past `daily` (in the pricing currency, priced models only) asks first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub daily: Option<f64>,
}

/// A plan that would take today's spending past the daily budget.
#[derive(Debug, Clone, PartialEq, Error)]
#[error(
    "this adds {currency}{planned:.2} to the {currency}{spent:.2} spent today, past the daily budget of {currency}{daily:.2}"
)]
pub struct OverBudget {
    pub planned: f64,
    pub spent: f64,
    pub daily: f64,
    pub currency: String,
}

/// The daily budget check: `Ok(planned cost)` when sending `copies` of `plan` keeps today's
/// spending (`spent_today`: what [`crate::engine::query::spent_today`] counts, the work in
/// flight included) within the budget, or there is none; else what it would pass by.
///
/// Only the priced parts of a plan add: a part whose cost is not known (a model without a
/// price, an automatic duration) adds nothing, and a plan that adds nothing is never over the
/// budget, however much was spent: reel asks only about money it can name.
pub fn check_budget(
    budget: &Budget,
    pricing: &Pricing,
    spent_today: f64,
    plan: &[ValidSubmission],
    copies: u32,
) -> Result<f64, OverBudget> {
    let planned = pricing.planned(plan, copies);
    let spent = if spent_today > 0.0 { spent_today } else { 0.0 };
    match budget.daily {
        // A small tolerance so that spending exactly the budget is within it.
        Some(daily) if planned > 0.0 && spent + planned > daily + 1e-9 => {
            Err(OverBudget { planned, spent, daily, currency: pricing.currency.clone() })
        }
        _ => Ok(planned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Catalog, Draft, UnknownModels, validate};

    const MODEL: &str = "acme/aurora-3.0/text-to-video";

    fn submission(seconds: &str) -> ValidSubmission {
        of(MODEL, seconds)
    }

    /// A model the price table does not name.
    fn unpriced(seconds: &str) -> ValidSubmission {
        of("acme/aurora-2.7/text-to-video", seconds)
    }

    fn of(model: &str, seconds: &str) -> ValidSubmission {
        let draft =
            Draft { model: model.into(), prompt: "a fox".into(), seconds: Some(seconds.into()), ..Draft::default() };
        validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
    }

    fn pricing() -> Pricing {
        Pricing { currency: "$".into(), per_second: [(MODEL.to_string(), 0.5)].into_iter().collect() }
    }

    #[test]
    fn costs_and_formats() {
        let p = pricing();
        assert_eq!(p.cost(MODEL, 10.0).map(|c| p.format(c)), Some("$5.00".into()));
        assert_eq!(p.cost("other/x-1.0/text-to-video", 10.0), None);
        assert_eq!(p.planned(&[submission("5"), submission("10")], 2), 15.0);
        assert_eq!(p.planned(&[submission("-1")], 1), 0.0, "an automatic duration is not priced before it ends");
        assert_eq!(Pricing::default().planned(&[submission("5")], 3), 0.0, "unpriced models cost nothing here");
    }

    #[test]
    fn the_daily_budget_check() {
        type Case = (Option<f64>, f64, &'static str, u32, Result<f64, ()>);
        let cases: &[Case] = &[
            (None, 1_000.0, "5", 1, Ok(2.5)),
            (Some(3.0), 0.0, "5", 1, Ok(2.5)),
            (Some(3.0), 0.5, "5", 1, Ok(2.5)),
            (Some(3.0), 1.0, "5", 1, Err(())),
            (Some(3.0), 0.0, "5", 2, Err(())),
            (Some(0.0), 0.0, "-1", 1, Ok(0.0)),
        ];
        for (daily, spent, seconds, copies, want) in cases {
            let got = check_budget(&Budget { daily: *daily }, &pricing(), *spent, &[submission(seconds)], *copies);
            assert_eq!(got.clone().map_err(|_| ()), *want, "{daily:?} {spent} {seconds} x{copies}: {got:?}");
        }
    }

    #[test]
    fn only_priced_parts_count_and_an_unpriced_plan_never_asks() {
        type Case = (&'static str, f64, Vec<ValidSubmission>, u32, Result<f64, f64>);
        let cases: Vec<Case> = vec![
            ("unpriced, the budget already passed", 5.2, vec![unpriced("5")], 1, Ok(0.0)),
            ("unpriced copies, nothing left", 5.0, vec![unpriced("10")], 3, Ok(0.0)),
            ("automatic duration: its cost is not known", 5.2, vec![submission("-1")], 1, Ok(0.0)),
            ("an empty plan", 9.0, vec![], 1, Ok(0.0)),
            ("mixed within the budget: only the priced 5 s", 2.0, vec![unpriced("10"), submission("5")], 1, Ok(2.5)),
            (
                "mixed past it: the question names the priced part",
                3.0,
                vec![submission("5"), unpriced("10")],
                1,
                Err(2.5),
            ),
            ("mixed, two copies", 0.0, vec![unpriced("10"), submission("5")], 2, Ok(5.0)),
        ];
        for (name, spent, plan, copies, want) in cases {
            let got = check_budget(&Budget { daily: Some(5.0) }, &pricing(), spent, &plan, copies);
            assert_eq!(got.clone().map_err(|e| e.planned), want, "{name}: {got:?}");
        }
    }

    #[test]
    fn amounts_are_never_negative_nor_minus_zero() {
        let p = pricing();
        for plan in [vec![], vec![unpriced("5")], vec![submission("-1"), unpriced("10")]] {
            let planned = p.planned(&plan, 1);
            assert!(planned == 0.0 && planned.is_sign_positive(), "{plan:?}: {planned:?}");
        }
        for spent in [-0.0, 0.0, 2.75] {
            let over = check_budget(&Budget { daily: Some(0.0) }, &p, spent, &[submission("5")], 1);
            let text = over.map(|_| String::new()).unwrap_or_else(|e| e.to_string());
            assert!(text.contains("this adds $2.50") && !text.contains('-'), "{spent:?}: {text}");
        }
    }

    #[test]
    fn the_message_names_the_amounts() {
        let over = check_budget(&Budget { daily: Some(3.0) }, &pricing(), 1.0, &[submission("5")], 1);
        assert_eq!(
            over.map_err(|e| e.to_string()),
            Err("this adds $2.50 to the $1.00 spent today, past the daily budget of $3.00".to_string())
        );
    }
}
