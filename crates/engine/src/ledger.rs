//! The cost and time ledger: pure arithmetic over the store's per-day, per-model rows.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::config::Pricing;
use reel_store::history::{LedgerRow, SpendRow};
use reel_store::{LocalState, TaskRecord};

use super::recover::DEMO_PROFILE;

/// Whether the service bills a task, or will: it rendered it, or the task is still on its way
/// (waiting, sent, rendering, or a send whose answer was lost, which the service may well be
/// rendering). A task that failed, was refused, cancelled or lost before anything was rendered
/// is not billed.
pub fn billable(state: LocalState, rendered: bool) -> bool {
    rendered || !matches!(state, LocalState::Failed | LocalState::Rejected | LocalState::Cancelled | LocalState::Lost)
}

/// A task of demo mode, which costs nothing: journaled under the demo profile (the profile
/// `session::open` gives every task of the embedded simulator) with a base URL on this
/// machine (the simulator listens on 127.0.0.1 only). Both, so that a user's own profile that
/// happens to be called "demo" and points at a real service still counts.
pub fn is_demo(profile: Option<&str>, base_url: &str) -> bool {
    let local = match url::Url::parse(base_url).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    profile == Some(DEMO_PROFILE) && local
}

/// What today's tasks count against the daily budget, in the pricing currency: the billable
/// tasks ([`billable`]) of priced models, at their billed seconds (for tasks in flight, what
/// they will be billed), except demo tasks ([`is_demo`]). Models without a price and billed
/// seconds not known add nothing: never a guess.
pub fn spent(rows: &[SpendRow], pricing: &Pricing) -> f64 {
    rows.iter()
        .filter(|r| billable(r.state, r.rendered) && !is_demo(r.profile.as_deref(), &r.base_url))
        .filter_map(|r| pricing.cost(&r.model, r.billed_seconds))
        .fold(0.0, |total, cost| total + cost)
}

/// The billed seconds of one task as every view shows them (the detail pane, the history,
/// `reel show`), by the rule the ledger adds up: a task the service never rendered is not
/// counted; otherwise the recorded figure, or what is known of it ("18 s + 1 reference video
/// of unstated length"), never 0 for unknown.
pub fn billed_text(t: &TaskRecord) -> String {
    if !billable(t.state, t.remote_completed_at.is_some()) {
        return "none (not rendered)".into();
    }
    reel_rules::billing::describe(t.billed_seconds, t.seconds, &t.billed_media())
}

/// Money for some billed seconds. Seconds of models without a price are kept apart and shown
/// as unpriced, never counted as free.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Cost {
    /// What the priced seconds cost.
    pub amount: f64,
    /// Billed seconds of models without a price.
    pub unpriced_seconds: f64,
    /// A priced model took part.
    pub priced: bool,
    /// A model without a price took part.
    pub unpriced: bool,
    /// Tasks of priced models whose billed seconds are not known, so neither is their cost.
    pub unknown: u64,
}

impl Cost {
    fn of(pricing: &Pricing, model: &str, seconds: f64, unknown: u64) -> Cost {
        match pricing.cost(model, seconds) {
            Some(amount) => Cost { amount, priced: true, unknown, ..Cost::default() },
            None => Cost { unpriced_seconds: seconds, unpriced: true, ..Cost::default() },
        }
    }

    fn add(self, other: Cost) -> Cost {
        Cost {
            amount: self.amount + other.amount,
            unpriced_seconds: self.unpriced_seconds + other.unpriced_seconds,
            priced: self.priced || other.priced,
            unpriced: self.unpriced || other.unpriced,
            unknown: self.unknown + other.unknown,
        }
    }

    pub fn show(self, pricing: &Pricing) -> String {
        let shown = match (self.priced, self.unpriced) {
            (_, false) => pricing.format(self.amount),
            (false, true) => "unpriced".into(),
            (true, true) => format!("{} + {:.0} s unpriced", pricing.format(self.amount), self.unpriced_seconds),
        };
        match self.unknown {
            0 => shown,
            1 => format!("{shown} + 1 task unknown"),
            n => format!("{shown} + {n} tasks unknown"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// A day (YYYY-MM-DD) or a model id.
    pub key: String,
    pub tasks: u64,
    pub succeeded: u64,
    /// Rendering failed at the service.
    pub failed: u64,
    /// Refused at submission: never rendered, so not in the success rate.
    pub rejected: u64,
    /// Lost by the service before it rendered them: counted apart from failures, not in the
    /// success rate. A render it forgot later stays a success.
    pub lost: u64,
    /// Rendered over rendered or failed, when any of those; rejected and lost tasks are
    /// counted apart.
    pub success_rate: Option<f64>,
    /// Render time percentiles in seconds (per model only).
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    /// Billed seconds of the rendered tasks whose billed seconds are known.
    pub billed_seconds: f64,
    /// Rendered tasks whose billed seconds are not known: never counted as 0.
    pub unknown_billed: u64,
    pub cost: Cost,
    /// Tasks with a rating, and their average rating (1 to 5) when there are any.
    pub rated: u64,
    pub rating: Option<f64>,
    /// Rendered tasks the service says it made other than asked (another size or length):
    /// `reel show` names what was asked and what was rendered.
    #[serde(default)]
    pub rendered_otherwise: u64,
    #[serde(skip)]
    rating_total: u64,
}

impl Line {
    /// Billed seconds as every view shows them, the unknown kept apart.
    pub fn billed(&self) -> String {
        reel_rules::billing::total(self.billed_seconds, self.unknown_billed)
    }

    /// The average rating and how many tasks it is of, as every view shows it: `4.2 (5)`.
    pub fn rating_text(&self) -> String {
        self.rating.map_or_else(|| "-".into(), |r| format!("{r:.1} ({})", self.rated))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub days: Vec<Line>,
    pub models: Vec<Line>,
    pub total: Line,
}

/// Nearest-rank percentile: the smallest value with at least `q` of the values at or below it.
pub fn percentile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

fn line(key: String) -> Line {
    Line {
        key,
        tasks: 0,
        succeeded: 0,
        failed: 0,
        rejected: 0,
        lost: 0,
        success_rate: None,
        p50: None,
        p90: None,
        billed_seconds: 0.0,
        unknown_billed: 0,
        cost: Cost::default(),
        rated: 0,
        rating: None,
        rendered_otherwise: 0,
        rating_total: 0,
    }
}

fn add(l: &mut Line, r: &LedgerRow, cost: Cost) {
    l.cost = l.cost.add(cost);
    l.tasks += r.tasks;
    l.succeeded += r.succeeded;
    l.failed += r.failed;
    l.rejected += r.rejected;
    l.lost += r.lost;
    l.billed_seconds += r.billed_seconds;
    l.unknown_billed += r.unknown_billed;
    l.rated += r.rated;
    l.rendered_otherwise += r.rendered_otherwise;
    l.rating_total += r.rating_total;
    l.rating = (l.rated > 0).then(|| l.rating_total as f64 / l.rated as f64);
    let finished = l.succeeded + l.failed;
    l.success_rate = (finished > 0).then(|| l.succeeded as f64 / finished as f64);
}

pub fn compute(rows: &[LedgerRow], times: &BTreeMap<String, Vec<f64>>, pricing: &Pricing) -> Ledger {
    let mut days: BTreeMap<String, Line> = BTreeMap::new();
    let mut models: BTreeMap<String, Line> = BTreeMap::new();
    let mut total = line("total".into());
    for r in rows {
        // Demo work is free here too, as in the budget and every view.
        let cost = if is_demo(r.profile.as_deref(), &r.base_url) {
            Cost::default()
        } else {
            Cost::of(pricing, &r.model, r.billed_seconds, r.unknown_billed)
        };
        add(days.entry(r.day.clone()).or_insert_with(|| line(r.day.clone())), r, cost);
        add(models.entry(r.model.clone()).or_insert_with(|| line(r.model.clone())), r, cost);
        add(&mut total, r, cost);
    }
    let mut all_times = Vec::new();
    for (model, l) in models.iter_mut() {
        if let Some(t) = times.get(model) {
            l.p50 = percentile(t, 0.5);
            l.p90 = percentile(t, 0.9);
            all_times.extend_from_slice(t);
        }
    }
    total.p50 = percentile(&all_times, 0.5);
    total.p90 = percentile(&all_times, 0.9);
    Ledger { days: days.into_values().collect(), models: models.into_values().collect(), total }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(day: &str, model: &str, tasks: u64, ok: u64, failed: u64, billed: f64) -> LedgerRow {
        LedgerRow {
            day: day.into(),
            model: model.into(),
            tasks,
            succeeded: ok,
            failed,
            billed_seconds: billed,
            ..LedgerRow::default()
        }
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v = [30.0, 10.0, 20.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0];
        assert_eq!(percentile(&v, 0.5), Some(50.0));
        assert_eq!(percentile(&v, 0.9), Some(90.0));
        assert_eq!(percentile(&[7.0], 0.9), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 0.5), Some(2.0));
    }

    #[test]
    fn demo_work_is_free_in_the_ledger_as_everywhere() {
        let pricing = Pricing {
            currency: "$".into(),
            per_second: [("a/x-3.0/text-to-video".to_string(), 0.1)].into_iter().collect(),
        };
        let demo = LedgerRow {
            profile: Some(DEMO_PROFILE.into()),
            base_url: "http://127.0.0.1:40123/".into(),
            ..row("2026-11-20", "a/x-3.0/text-to-video", 10, 10, 0, 316.0)
        };
        let paid = LedgerRow {
            base_url: "https://api.example/".into(),
            ..row("2026-11-20", "a/x-3.0/text-to-video", 1, 1, 0, 8.0)
        };
        let l = compute(&[demo.clone(), paid], &BTreeMap::new(), &pricing);
        assert_eq!(l.total.cost.show(&pricing), "$0.80", "only the paid task costs");
        assert_eq!((l.total.tasks, l.total.billed_seconds), (11, 324.0), "the demo work still counts as work");
        assert_eq!(compute(&[demo], &BTreeMap::new(), &pricing).total.cost.show(&pricing), "$0.00");
    }

    #[test]
    fn ledger_figures_match_hand_computed_values() {
        let pricing = Pricing {
            currency: "$".into(),
            per_second: [("a/x-3.0/text-to-video".to_string(), 0.1)].into_iter().collect(),
        };
        let rows = vec![
            row("2026-11-20", "a/x-3.0/text-to-video", 4, 3, 1, 30.0),
            row("2026-11-20", "b/y-2.7/text-to-video", 2, 2, 0, 20.0),
            row("2026-11-21", "a/x-3.0/text-to-video", 5, 5, 0, 50.0),
        ];
        let times = [
            ("a/x-3.0/text-to-video".to_string(), vec![60.0, 120.0, 90.0, 30.0, 150.0, 100.0, 80.0, 70.0]),
            ("b/y-2.7/text-to-video".to_string(), vec![200.0, 100.0]),
        ]
        .into_iter()
        .collect();
        let l = compute(&rows, &times, &pricing);

        // Per day: the 20th has 6 tasks, 5 of 6 finished well; $3.00 priced and 20 s unpriced.
        assert_eq!(l.days.len(), 2);
        let d20 = &l.days[0];
        assert_eq!((d20.tasks, d20.succeeded, d20.failed), (6, 5, 1));
        assert_eq!(d20.success_rate, Some(5.0 / 6.0));
        assert_eq!(d20.billed_seconds, 50.0);
        assert_eq!(d20.cost.show(&pricing), "$3.00 + 20 s unpriced");
        assert_eq!(l.days[1].cost.show(&pricing), "$5.00");

        // Per model: a rendered 8 (sorted 30 60 70 80 90 100 120 150): p50 = 4th = 80, p90 = 8th = 150.
        let a = &l.models[0];
        assert_eq!((a.tasks, a.succeeded, a.failed, a.billed_seconds), (9, 8, 1, 80.0));
        assert_eq!((a.p50, a.p90), (Some(80.0), Some(150.0)));
        assert_eq!(a.cost.show(&pricing), "$8.00");
        let b = &l.models[1];
        assert_eq!((b.p50, b.p90), (Some(100.0), Some(200.0)));
        assert_eq!(b.cost.show(&pricing), "unpriced", "never shown as 0");

        assert_eq!((l.total.tasks, l.total.billed_seconds), (11, 100.0));
        assert_eq!(l.total.cost.show(&pricing), "$8.00 + 20 s unpriced");
        assert_eq!(l.total.cost.amount, 8.0);
    }

    #[test]
    fn one_task_reads_as_the_ledger_counts_it() {
        use reel_store::MediaRecord;
        use reel_store::fixtures::record;
        let mut t = record(1, LocalState::Downloaded);
        t.seconds = 18;
        t.billed_seconds = None;
        t.media = vec![MediaRecord {
            kind: "reference_video".into(),
            url: "https://x.org/v.mp4".into(),
            seconds: None,
            local: None,
        }];
        assert_eq!(billed_text(&t), "18 s + 1 reference video of unstated length", "after rendering too");
        t.billed_seconds = Some(22.0);
        assert_eq!(billed_text(&t), "22 s");
        t.state = LocalState::Failed;
        assert_eq!(billed_text(&t), "none (not rendered)");
        t.state = LocalState::InProgress;
        assert_eq!(billed_text(&t), "22 s", "what it will be once rendered");
    }

    #[test]
    fn what_counts_against_the_daily_budget() {
        const PRICED: &str = "a/x-3.0/text-to-video";
        const REAL: &str = "https://api.example/v1/";
        const SIM: &str = "http://127.0.0.1:40123/";
        let pricing = Pricing { currency: "$".into(), per_second: [(PRICED.to_string(), 0.5)].into_iter().collect() };
        let spend = |state: LocalState, rendered: bool, profile: Option<&str>, base_url: &str, model: &str| SpendRow {
            model: model.into(),
            profile: profile.map(Into::into),
            base_url: base_url.into(),
            state,
            rendered,
            tasks: 2,
            billed_seconds: 10.0,
            unknown_billed: 0,
        };
        use LocalState::*;
        type Case = (&'static str, SpendRow, f64);
        let cases: Vec<Case> = vec![
            ("saved", spend(Downloaded, true, None, REAL, PRICED), 5.0),
            ("saved under a profile", spend(Downloaded, true, Some("work"), REAL, PRICED), 5.0),
            ("rendered, its file lost", spend(Expired, true, None, REAL, PRICED), 5.0),
            ("waiting to be sent", spend(Waiting, false, None, REAL, PRICED), 5.0),
            ("being sent", spend(Submitting, false, None, REAL, PRICED), 5.0),
            ("queued", spend(Queued, false, None, REAL, PRICED), 5.0),
            ("rendering", spend(InProgress, false, None, REAL, PRICED), 5.0),
            ("stalled", spend(Stalled, false, None, REAL, PRICED), 5.0),
            ("sent, answer lost: may be rendering", spend(SubmitUnknown, false, None, REAL, PRICED), 5.0),
            ("the render failed", spend(Failed, false, None, REAL, PRICED), 0.0),
            ("refused", spend(Rejected, false, None, REAL, PRICED), 0.0),
            ("lost by the service", spend(Lost, false, None, REAL, PRICED), 0.0),
            ("a model without a price", spend(InProgress, false, None, REAL, "b/y-1.0/text-to-video"), 0.0),
            ("demo, saved", spend(Downloaded, true, Some(DEMO_PROFILE), SIM, PRICED), 0.0),
            ("demo, rendering", spend(InProgress, false, Some(DEMO_PROFILE), SIM, PRICED), 0.0),
            ("a profile called demo on a real service", spend(Queued, false, Some(DEMO_PROFILE), REAL, PRICED), 5.0),
            ("the simulator under a real profile (tests)", spend(Queued, false, None, SIM, PRICED), 5.0),
        ];
        for (name, row, want) in &cases {
            assert_eq!(spent(std::slice::from_ref(row), &pricing), *want, "{name}");
        }
        let all: Vec<SpendRow> = cases.iter().map(|(_, r, _)| r.clone()).collect();
        assert_eq!(spent(&all, &pricing), cases.iter().map(|(_, _, w)| w).sum::<f64>());
        let nothing = spent(&[], &pricing);
        assert!(nothing == 0.0 && nothing.is_sign_positive(), "never -0.00");
    }

    #[test]
    fn demo_tasks_are_the_demo_profile_on_this_machine() {
        let cases = [
            (Some(DEMO_PROFILE), "http://127.0.0.1:4321/", true),
            (Some(DEMO_PROFILE), "http://localhost:4321/", true),
            (Some(DEMO_PROFILE), "http://[::1]:4321/", true),
            (Some(DEMO_PROFILE), "https://api.example/v1/", false),
            (Some("work"), "http://127.0.0.1:4321/", false),
            (None, "http://127.0.0.1:4321/", false),
            (Some(DEMO_PROFILE), "not a url", false),
        ];
        for (profile, url, want) in cases {
            assert_eq!(is_demo(profile, url), want, "{profile:?} {url}");
        }
    }

    #[test]
    fn ratings_average_per_model_over_rated_tasks_only() {
        let rated = |day: &str, model: &str, tasks: u64, rated: u64, rating_total: u64| LedgerRow {
            rated,
            rating_total,
            ..row(day, model, tasks, tasks, 0, 0.0)
        };
        let rows = vec![
            rated("2026-11-20", "a/x-3.0/text-to-video", 10, 2, 9),
            rated("2026-11-21", "a/x-3.0/text-to-video", 3, 1, 2),
            rated("2026-11-21", "b/y-2.7/text-to-video", 5, 0, 0),
        ];
        let l = compute(&rows, &BTreeMap::new(), &Pricing::default());
        let cases = [
            (&l.models[0], 3, Some(11.0 / 3.0), "3.7 (3)"),
            (&l.models[1], 0, None, "-"),
            (&l.days[1], 1, Some(2.0), "2.0 (1)"),
            (&l.total, 3, Some(11.0 / 3.0), "3.7 (3)"),
        ];
        for (line, count, average, text) in cases {
            assert_eq!((line.rated, line.rating, line.rating_text().as_str()), (count, average, text), "{}", line.key);
        }
    }

    #[test]
    fn lost_rejected_and_unknown_billing_are_kept_apart() {
        let pricing = Pricing {
            currency: "$".into(),
            per_second: [("a/x-3.0/text-to-video".to_string(), 0.1)].into_iter().collect(),
        };
        let rows = vec![LedgerRow {
            day: "2026-11-20".into(),
            model: "a/x-3.0/text-to-video".into(),
            tasks: 7,
            succeeded: 3,
            failed: 1,
            rejected: 2,
            lost: 1,
            billed_seconds: 20.0,
            unknown_billed: 1,
            ..LedgerRow::default()
        }];
        let l = compute(&rows, &BTreeMap::new(), &pricing);
        let t = &l.total;
        assert_eq!((t.failed, t.rejected, t.lost), (1, 2, 1));
        assert_eq!(t.success_rate, Some(0.75), "3 rendered of 4 rendered or failed; rejected and lost apart");
        assert_eq!(t.billed(), "20 s + 1 task unknown", "unknown is not 0");
        assert_eq!(t.cost.show(&pricing), "$2.00 + 1 task unknown");
    }
}
