//! The tools' results as JSON text: the catalog with its rules, quotes, tasks and timelines.
//! Tasks are shown as `--json` shows them to scripts ([`reel_engine::public`]); no credential is
//! part of any of these.

use serde_json::{Value, json};

use reel_rules::{Catalog, Draft, Invalid, Pricing, Ratio, Resolution, ValidSubmission};
use reel_store::{EventRecord, TaskRecord};

/// Every model with the rules a submission to it must meet, and its price when it has one.
pub fn models(catalog: &Catalog, pricing: &Pricing) -> Value {
    let models: Vec<Value> = catalog
        .entries()
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "mode": e.mode,
                "description": e.description,
                "seconds": {"min": e.duration.min, "max": e.duration.max, "automatic": e.duration.auto,
                    "only": e.duration.only},
                "resolutions": if e.resolutions.is_empty() { Resolution::ALL.to_vec() } else { e.resolutions.clone() },
                "ratios": Ratio::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
                "media_types": e.media,
                "price_per_billed_second": pricing.per_second.get(&e.id),
            })
        })
        .collect();
    json!({
        "models": models,
        "currency": pricing.currency,
        "billing": "billed seconds = output seconds + the stated seconds of reference videos",
    })
}

/// What a plan adds up to: tasks, billed seconds (where known) and priced cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quote {
    pub tasks: u32,
    pub billed_seconds: f64,
    /// Tasks whose billed seconds are not known before rendering (automatic duration, a
    /// reference video of unstated length).
    pub unknown_billed: u32,
    /// The most the priced tasks can cost, and whether that is exactly what they cost.
    pub priced: reel_rules::pricing::Quote,
    /// Tasks of models without a price.
    pub unpriced: u32,
}

pub fn quote(plan: &[ValidSubmission], copies: u32, pricing: &Pricing) -> Quote {
    let priced = pricing.quote(plan, copies);
    let mut q = Quote { tasks: 0, billed_seconds: 0.0, unknown_billed: 0, priced, unpriced: 0 };
    for v in plan {
        q.tasks = q.tasks.saturating_add(copies);
        match v.billing.total() {
            Some(b) => q.billed_seconds += b * f64::from(copies),
            None => q.unknown_billed = q.unknown_billed.saturating_add(copies),
        }
        if !pricing.per_second.contains_key(&v.model.to_string()) {
            q.unpriced = q.unpriced.saturating_add(copies);
        }
    }
    q
}

/// A quote with each submission of the plan, as `check` answers.
pub fn quoted(plan: &[ValidSubmission], copies: u32, pricing: &Pricing) -> Value {
    let q = quote(plan, copies, pricing);
    let each: Vec<Value> = plan
        .iter()
        .map(|v| {
            json!({
                "model": v.model.to_string(),
                "seconds": v.seconds,
                "resolution": v.resolution.as_str(),
                "ratio": v.ratio.as_str(),
                "copies": copies,
                "billed_seconds_each": v.billing.total(),
                "warnings": v.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "valid": true,
        "tasks": q.tasks,
        "billed_seconds": q.billed_seconds,
        "tasks_with_unknown_billed_seconds": q.unknown_billed,
        // Nothing priced has no cost to give: null, never 0.
        "cost": (q.unpriced < q.tasks).then_some(q.priced.cost),
        "cost_is_at_most": !q.priced.exact,
        "cost_text": pricing.said(&q.priced),
        "unpriced_tasks": q.unpriced,
        "submissions": each,
        "sent": false,
    })
}

/// Every broken rule of the drafts that did not validate, one line each: the combination (when
/// the call made several), the field and the rule.
pub fn refused(failures: &[(&Draft, Invalid)], grid: bool) -> String {
    let mut lines = Vec::new();
    for (draft, invalid) in failures {
        let at = if grid {
            format!(
                "ratio {} × seconds {}: ",
                draft.ratio.as_deref().unwrap_or("default"),
                draft.seconds.as_deref().unwrap_or("default")
            )
        } else {
            String::new()
        };
        for v in &invalid.violations {
            lines.push(format!("{at}{}: {v}", v.field()));
        }
    }
    lines.push("nothing was sent".into());
    lines.join("\n")
}

pub fn tasks(records: &[TaskRecord]) -> Value {
    json!({ "tasks": reel_engine::public::tasks(records) })
}

/// One task with its timeline, its file (`file_present`: whether it is where it was saved, on
/// the engine's machine) and what is known of its preview.
pub fn shown(
    task: &TaskRecord,
    events: &[EventRecord],
    file_present: Option<bool>,
    preview: Result<&str, String>,
) -> Value {
    let mut out = json!({
        "task": reel_engine::public::PublicTask::from(task),
        "timeline": reel_engine::public::events(events),
        "file_path": task.file_path,
        "file_present": file_present,
        "billed": reel_engine::ledger::billed_text(task),
    });
    match preview {
        Ok(poster) => out["poster"] = json!(poster),
        Err(why) => out["poster_unavailable"] = json!(why),
    }
    out
}

/// States counted, for a progress message: `2 downloaded, 1 in_progress`.
pub fn states(records: &[TaskRecord]) -> String {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for r in records {
        match counts.iter_mut().find(|(s, _)| *s == r.state.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.state.as_str(), 1)),
        }
    }
    counts.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_rules::{UnknownModels, validate};
    use reel_store::LocalState;
    use reel_store::fixtures::record;

    fn valid(model: &str, seconds: &str) -> ValidSubmission {
        let d = Draft { model: model.into(), prompt: "p".into(), seconds: Some(seconds.into()), ..Draft::default() };
        validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect("valid")
    }

    #[test]
    fn quotes_count_billed_seconds_and_priced_cost() {
        let priced = "acme/aurora-3.0/text-to-video";
        let pricing = Pricing { currency: "$".into(), per_second: [(priced.to_string(), 0.5)].into_iter().collect() };
        let cases = [
            (vec![valid(priced, "10")], 1, (1, 10.0, 0, 5.0, 0)),
            (vec![valid(priced, "10"), valid(priced, "4")], 2, (4, 28.0, 0, 14.0, 0)),
            (vec![valid("acme/aurora-2.7/text-to-video", "5")], 3, (3, 15.0, 0, 0.0, 3)),
            // An automatic duration: at most the model's longest, 30 s.
            (vec![valid(priced, "-1")], 1, (1, 0.0, 1, 15.0, 0)),
        ];
        for (plan, copies, (tasks, billed, unknown, cost, unpriced)) in cases {
            let q = quote(&plan, copies, &pricing);
            assert_eq!(
                (q.tasks, q.billed_seconds, q.unknown_billed, q.priced.cost, q.unpriced),
                (tasks, billed, unknown, cost, unpriced)
            );
        }
    }

    #[test]
    fn every_model_carries_its_rules() {
        let pricing = Pricing {
            currency: "$".into(),
            per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.5)].into_iter().collect(),
        };
        let shown = models(&Catalog::builtin(), &pricing);
        let list = shown["models"].as_array().expect("a list");
        assert!(!list.is_empty());
        let aurora = list.iter().find(|m| m["id"] == "acme/aurora-3.0/text-to-video").expect("listed");
        assert_eq!(aurora["price_per_billed_second"], 0.5);
        assert!(aurora["seconds"]["min"].is_i64() && aurora["ratios"].as_array().is_some_and(|r| r.len() == 6));
        let i2v = list.iter().find(|m| m["id"] == "acme/aurora-3.0/image-to-video").expect("listed");
        assert_eq!(i2v["media_types"], json!(["first_frame"]));
        assert!(i2v["price_per_billed_second"].is_null());
    }

    #[test]
    fn states_are_counted_in_order_of_appearance() {
        let rs =
            [record(1, LocalState::Downloaded), record(2, LocalState::InProgress), record(3, LocalState::Downloaded)];
        assert_eq!(states(&rs), "2 downloaded, 1 in_progress");
    }
}
