//! What tasks cost and the daily budget: the price table from the config, and the one budget
//! check that the dashboard and `reel submit` both call.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::validate::ValidSubmission;

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
        (_, Some(t)) => format!("{} s", super::billing::secs(t)),
        (_, None) => "not known before rendering".into(),
    };
    (billed, cost)
}

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

    /// What `copies` of each submission can cost: priced parts at the most their billed
    /// seconds can come to (an automatic duration at the model's longest, a reference video of
    /// unstated length at the rest of the 15 s total), unpriced ones counted apart.
    pub fn quote(&self, plan: &[ValidSubmission], copies: u32) -> Quote {
        // Folded from +0.0: `sum()` of no priced part is -0.0, which prints as "-0.00".
        let mut q = Quote { cost: 0.0, exact: true, unpriced: 0, tasks: 0 };
        for v in plan {
            q.tasks = q.tasks.saturating_add(copies);
            let model = v.model.to_string();
            let Some(per_second) = self.per_second.get(&model) else {
                q.unpriced = q.unpriced.saturating_add(copies);
                continue;
            };
            let seconds = match (v.billing.total(), v.billing.at_most()) {
                (Some(known), _) => known,
                (None, Some(most)) => {
                    q.exact = false;
                    most
                }
                // An automatic duration of a model whose rules are not known: the widest range.
                (None, None) => {
                    q.exact = false;
                    super::DurationRule::WIDEST.max as f64 + v.billing.reference_video_seconds
                }
            };
            q.cost += per_second * seconds * f64::from(copies);
        }
        q
    }

    /// A quote's cost as every output says it: "$2.50", "at most $2.50", "$2.50 + 2 unpriced
    /// tasks", "unpriced"; never "$0.00" for what has no price.
    pub fn said(&self, q: &Quote) -> String {
        let priced = q.tasks.saturating_sub(q.unpriced);
        let amount = match (priced, q.exact) {
            (0, _) => None,
            (_, true) => Some(self.format(q.cost)),
            (_, false) => Some(format!("at most {}", self.format(q.cost))),
        };
        match (amount, q.unpriced) {
            (Some(a), 0) => a,
            (Some(a), 1) => format!("{a} + 1 unpriced task"),
            (Some(a), n) => format!("{a} + {n} unpriced tasks"),
            (None, _) if q.tasks == 0 => self.format(0.0),
            (None, _) => "unpriced".into(),
        }
    }
}

/// What a plan can cost before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Quote {
    /// The most its priced tasks can cost; exactly that when `exact`.
    pub cost: f64,
    /// Every priced task's billed seconds are known, so `cost` is what they cost.
    pub exact: bool,
    /// Tasks of models without a price: nothing is known of their cost.
    pub unpriced: u32,
    pub tasks: u32,
}

/// `[budget]`: spending past `daily` (in the pricing currency, priced models only) asks first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub daily: Option<f64>,
}

/// A plan that would take today's spending past the daily budget.
#[derive(Debug, Clone, PartialEq, Error, Serialize, Deserialize)]
#[error(
    "this adds {}{currency}{planned:.2} to the {currency}{spent:.2} spent today, past the daily budget of {currency}{daily:.2}",
    if *exact { "" } else { "at most " }
)]
pub struct OverBudget {
    pub planned: f64,
    /// `planned` is what it costs, not only the most it can.
    pub exact: bool,
    pub spent: f64,
    pub daily: f64,
    pub currency: String,
}

/// The daily budget check: `Ok(planned cost)` when sending `copies` of `plan` keeps today's
/// spending (`spent_today`: what `engine::query::spent_today` counts, the work in
/// flight included) within the budget, or there is none; else what it would pass by.
///
/// Only the priced parts of a plan add, each at the most it can cost (see [`Pricing::quote`]):
/// a model without a price adds nothing, and a plan that adds nothing is never over the
/// budget, however much was spent: reel asks only about money it can name.
pub fn check_budget(
    budget: &Budget,
    pricing: &Pricing,
    spent_today: f64,
    plan: &[ValidSubmission],
    copies: u32,
) -> Result<f64, OverBudget> {
    let quote = pricing.quote(plan, copies);
    budget.admits(quote, spent_today, &pricing.currency)
}

impl Budget {
    /// Whether a quoted plan keeps today's spending within the daily budget: `Ok(the most it
    /// adds)`, or what it would pass by.
    pub fn admits(&self, quote: Quote, spent_today: f64, currency: &str) -> Result<f64, OverBudget> {
        let planned = quote.cost;
        let spent = if spent_today > 0.0 { spent_today } else { 0.0 };
        match self.daily {
            // A small tolerance so that spending exactly the budget is within it.
            Some(daily) if planned > 0.0 && spent + planned > daily + 1e-9 => {
                Err(OverBudget { planned, exact: quote.exact, spent, daily, currency: currency.to_string() })
            }
            _ => Ok(planned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, Draft, UnknownModels, validate};

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
        assert_eq!(p.quote(&[submission("5"), submission("10")], 2).cost, 15.0);
        let auto = p.quote(&[submission("-1")], 1);
        assert_eq!((auto.cost, auto.exact), (15.0, false), "an automatic duration at the model's longest (30 s)");
        assert_eq!(p.said(&auto), "at most $15.00");
        let free = Pricing::default().quote(&[submission("5")], 3);
        assert_eq!((free.cost, free.unpriced), (0.0, 3));
        assert_eq!(Pricing::default().said(&free), "unpriced", "never $0.00");
        assert_eq!(p.said(&p.quote(&[unpriced("5"), submission("5")], 1)), "$2.50 + 1 unpriced task");
    }

    #[test]
    fn a_reference_video_of_unstated_length_counts_at_the_most_the_rules_allow() {
        const R2V: &str = "acme/aurora-3.0/reference-to-video-global";
        let p = Pricing { currency: "$".into(), per_second: [(R2V.to_string(), 0.1)].into_iter().collect() };
        let with = |media: Vec<crate::MediaDraft>| {
            let draft = Draft {
                model: R2V.into(),
                prompt: "video 1".into(),
                seconds: Some("10".into()),
                media,
                ..Draft::default()
            };
            validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
        };
        let video = |secs: Option<&str>| {
            crate::MediaDraft::typed("reference_video", "https://e.test/v.mp4", secs.map(String::from))
        };
        // 10 s out + 15 s of reference video at most.
        let q = p.quote(&[with(vec![video(None)])], 1);
        assert_eq!((format!("{:.2}", q.cost), q.exact), ("2.50".into(), false));
        assert_eq!(p.said(&q), "at most $2.50");
        // 4 s stated leave at most 11 s for the unstated one.
        let q = p.quote(&[with(vec![video(Some("4")), video(None)])], 1);
        assert_eq!(format!("{:.2}", q.cost), "2.50");
        // Stated: exact.
        let q = p.quote(&[with(vec![video(Some("4"))])], 2);
        assert_eq!((format!("{:.2}", q.cost), q.exact), ("2.80".into(), true));
        let over = check_budget(&Budget { daily: Some(1.0) }, &p, 0.0, &[with(vec![video(None)])], 1);
        let text = over.map(|_| String::new()).unwrap_or_else(|e| e.to_string());
        assert!(text.starts_with("this adds at most $2.50"), "{text}");
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
            (Some(0.0), 0.0, "-1", 1, Err(())),
            (Some(15.0), 0.0, "-1", 1, Ok(15.0)),
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
            ("automatic duration: at its longest, 30 s", 0.0, vec![submission("-1")], 1, Err(15.0)),
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
        for plan in [vec![], vec![unpriced("5")], vec![unpriced("6"), unpriced("10")]] {
            let planned = p.quote(&plan, 1).cost;
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
