use std::collections::HashMap;
use std::sync::Arc;

use super::*;

fn s(x: f64) -> Duration {
    Duration::from_secs_f64(x)
}

#[test]
fn backoff_doubles_caps_and_jitters() {
    let p = PollPolicy::default();
    let cases =
        [(1, 0.5, 2.0), (2, 0.5, 4.0), (3, 0.5, 8.0), (7, 0.5, 120.0), (40, 0.5, 120.0), (1, 0.0, 1.6), (1, 1.0, 2.4)];
    for (failures, jitter, want) in cases {
        let got = backoff(&p, failures, jitter).as_secs_f64();
        assert!((got - want).abs() < 1e-9, "{failures} {jitter}: {got}");
    }
}

#[test]
fn rate_window_never_lets_more_than_the_budget_through_in_any_window() {
    let start = Instant::now();
    let mut w = RateWindow::new(10);
    let mut sent = Vec::new();
    let mut now = start;
    while now < start + Duration::from_secs(5) {
        match w.try_acquire(now) {
            Ok(()) => sent.push(now),
            Err(at) => assert!(at > now),
        }
        now += Duration::from_millis(7);
    }
    for (i, t) in sent.iter().enumerate() {
        let in_window = sent[i..].iter().take_while(|u| u.duration_since(*t) < Duration::from_secs(1)).count();
        assert!(in_window <= 10, "{in_window} in the window starting at {i}");
    }
    assert!(sent.len() >= 45, "the budget is used, not starved: {}", sent.len());
}

#[test]
fn render_stats_need_history_and_use_quantiles() {
    let mut r = RenderStats::default();
    assert_eq!(r.expected("m"), None);
    let kind = Kind { model: "m".into(), seconds: 5, resolution: "720P".into() };
    for secs in [100.0, 60.0, 80.0, 120.0, 90.0] {
        r.record(&kind, secs);
    }
    assert_eq!(r.expected("m"), Some(s(90.0)));
    assert_eq!(r.quantile("m", 0.25), Some(s(80.0)));
    assert_eq!(r.expected("other"), None);
}

fn close(got: Duration, want: f64) -> bool {
    (got.as_secs_f64() - want).abs() < 1e-6
}

#[test]
fn with_nothing_learned_every_age_is_polled_at_the_spec_interval() {
    // The issue-21 defect: the spec's "typically 1 to 5 minutes" was taken for a bound, and a
    // first run waited from 5 s to 68 s. Nothing learned means no gap anywhere.
    for p in [PollPolicy::default(), PollPolicy { base: s(3.0), client_timeout: s(120.0), ..PollPolicy::default() }] {
        let prior = Outlook::prior();
        let mut first = RenderStats::default();
        let kind = Kind { model: "draft".into(), seconds: 5, resolution: "720P".into() };
        let outlook = first.outlook(&kind, &p);
        for age in (0..=3 * p.client_timeout.as_secs()).step_by(7) {
            for (name, o) in [("prior", &prior), ("first run", &*outlook)] {
                assert_eq!(o.wait(s(age as f64), &p), p.base, "{name} at {age} s");
                assert_eq!(o.likelihood(s(age as f64), p.base), UNKNOWN_LIKELIHOOD, "{name} at {age} s");
            }
        }
    }
}

#[test]
fn the_stalled_recheck_sees_a_late_finish_within_20_s() {
    assert!(PollPolicy::default().slow <= s(20.0), "{:?}", PollPolicy::default().slow);
    assert!(PollPolicy::default().slow >= PollPolicy::default().base);
}

fn spread(from: f64, to: f64, n: usize) -> Vec<f64> {
    (0..n).map(|i| from + (to - from) * i as f64 / (n - 1) as f64).collect()
}

#[test]
fn a_learned_outlook_polls_sparsely_before_and_between_likely_finishes() {
    let p = PollPolicy::default();
    let prior = Arc::new(Outlook::prior());
    let narrow = Outlook::learned(&spread(100.0, 110.0, 50), &p, prior.clone());
    let two = [spread(70.0, 80.0, 25), spread(220.0, 230.0, 25)].concat();
    let bimodal = Outlook::learned(&two, &p, prior.clone());
    let dense = shortest(&p).as_secs_f64();
    // (name, outlook, age s, lowest wait s, highest wait s)
    let cases: [(&str, &Outlook, f64, f64, f64); 11] = [
        ("narrow: the first wait goes far", &narrow, 5.0, 80.0, 90.0),
        ("narrow: waits for the first likely finish", &narrow, 60.0, 25.0, 40.0),
        ("narrow: dense where finishes are", &narrow, 104.0, dense, dense),
        ("narrow: past them, the prior takes over", &narrow, 200.0, dense, dense),
        ("bimodal: dense in the first mode", &bimodal, 75.0, dense, dense),
        ("bimodal: past the first mode, waits grow with the time since", &bimodal, 120.0, 8.0, 15.0),
        ("bimodal: and grow further", &bimodal, 140.0, 25.0, 35.0),
        ("bimodal: up to where the second mode starts", &bimodal, 160.0, 25.0, 32.0),
        ("bimodal: dense in the second mode", &bimodal, 225.0, dense, dense),
        ("bimodal: sparse before the first", &bimodal, 10.0, 25.0, 60.0),
        ("prior: dense from the first poll on", &prior, 5.0, dense, dense),
    ];
    for (name, outlook, age, lo, hi) in cases {
        let got = outlook.wait(s(age), &p).as_secs_f64();
        assert!(got >= lo - 1e-6 && got <= hi + 1e-6, "{name}: {got} s not in {lo}..={hi}");
    }
    let few = Outlook::learned(&spread(100.0, 110.0, 9), &p, prior.clone());
    assert_eq!(*few, *prior, "too few samples: the prior decides");
}

#[test]
fn likelihood_grows_toward_the_likely_finish() {
    let p = PollPolicy::default();
    let narrow = Outlook::learned(&spread(100.0, 110.0, 50), &p, Arc::new(Outlook::prior()));
    let at = |age: f64| narrow.likelihood(s(age), shortest(&p));
    assert!(at(30.0) < 1e-3, "{}", at(30.0));
    assert!(at(95.0) < at(104.0), "{} {}", at(95.0), at(104.0));
    assert!(at(108.0) > 0.5, "{}", at(108.0));
    // Past the learned finishes the prior ranks the task.
    assert_eq!(narrow.likelihood(s(250.0), shortest(&p)), UNKNOWN_LIKELIHOOD);
}

#[test]
fn a_task_that_outlives_what_was_learned_is_polled_densely() {
    let p = PollPolicy::default();
    let dense = shortest(&p);
    // The spec's workload: totals 65 to 210 s.
    let spec = Outlook::learned(&spread(65.0, 210.0, 50), &p, Arc::new(Outlook::prior()));
    assert!(spec.wait(s(5.0), &p) >= s(55.0), "sparse before the first finishes: {:?}", spec.wait(s(5.0), &p));
    for age in [80.0, 120.0, 180.0, 205.0, 211.0, 250.0, 400.0, 590.0, 700.0] {
        assert_eq!(spec.wait(s(age), &p), dense, "age {age}");
    }
}

#[test]
fn a_gap_is_trusted_only_with_enough_finishes_beyond_it() {
    let p = PollPolicy::default();
    let dense = shortest(&p);
    let prior = Arc::new(Outlook::prior());
    // Learned on a fast service (9 to 33 s), then renders slowed down: two slow finishes so far.
    let two = [spread(100.0, 140.0, 2), spread(9.0, 33.0, 48)].concat();
    let shifted = Outlook::learned(&two, &p, prior.clone());
    for age in [5.0, 20.0, 40.0, 60.0, 90.0, 110.0, 120.0, 160.0] {
        assert_eq!(shifted.wait(s(age), &p), dense, "two slow finishes, age {age}");
    }
    // Ten of them: the gap between the old finishes and the new ones is skipped (waits growing
    // with the time since the old ones, never past the new ones), the new ones are polled
    // densely, and so is everything past them.
    let ten = [spread(95.0, 150.0, 10), spread(9.0, 33.0, 40)].concat();
    let learned = Outlook::learned(&ten, &p, prior);
    for (age, lo, hi) in [(60.0, 15.0, 25.0), (75.0, 15.0, 20.0)] {
        let wait = learned.wait(s(age), &p);
        assert!(wait >= s(lo) && wait <= s(hi), "ten slow finishes, age {age}: {wait:?}");
    }
    for age in [20.0, 100.0, 125.0, 150.0, 200.0] {
        assert_eq!(learned.wait(s(age), &p), dense, "ten slow finishes, age {age}");
    }
}

#[test]
fn remaining_time_by_progress_table() {
    let at = |ms: i64, progress: f64| Sighting { at_ms: ms, progress };
    let inf = f64::INFINITY;
    let cases = [
        // (previous, now, (earliest, latest) s)
        (at(0, 10.0), at(10_000, 20.0), Some((79.0 * 10.0 / 11.0, 80.0 * 10.0 / 9.0))),
        (at(0, 50.0), at(20_000, 51.0), Some((48.0 * 20.0 / 2.0, inf))),
        (at(0, 0.0), at(10_000, 50.0), Some((0.0, 10.0))),
        (at(0, 40.0), at(10_000, 40.0), None),
        (at(0, 40.0), at(10_000, 30.0), None),
        (at(0, 40.0), at(0, 50.0), None),
        (at(0, 0.0), at(10_000, 0.0), None),
        (at(0, 40.0), at(10_000, 100.0), None),
    ];
    for (prev, now, want) in cases {
        let got = remaining(prev, now);
        match (got, want) {
            (Some((a, b)), Some((c, d))) => {
                assert!((a - c).abs() < 1e-9 && (b == d || (b - d).abs() < 1e-9), "{prev:?} {now:?}: {got:?}")
            }
            _ => assert_eq!(got, want, "{prev:?} {now:?}"),
        }
    }
}

#[test]
fn next_poll_table() {
    let pace = Pace {
        planned: s(60.0),
        likelihood: 0.01,
        shortest: s(4.75),
        longest: s(90.0),
        previous: None,
        rationing: None,
    };
    let seen = |ms: i64, progress: f64| Some(Sighting { at_ms: ms, progress });
    let binding = Some(Rationing { per_likelihood: 0.1, longest: s(120.0) });
    let cases = [
        // (name, previous, progress now (at 10 s, or 20/30 s where said), rationing, wait s)
        ("no progress: the outlook's wait", None, None, None, 60.0),
        ("first reading: the outlook's wait", None, Some(30.0), None, 60.0),
        ("pinned down: at the latest moment, never under the shortest", seen(0, 50.0), Some(90.0), None, 4.75),
        ("not yet pinned down: at the earliest moment", seen(-20_000, 80.0), Some(90.0), None, 9.0 * 30.0 / 11.0),
        ("only a latest moment, sooner than planned", seen(-10_000, 0.0), Some(80.0), None, 20.0 * 20.0 / 80.0),
        ("only a latest moment, later than planned", seen(0, 0.0), Some(5.0), None, 60.0),
        ("the budget binds: stretched by likelihood", None, None, binding, 100.0),
    ];
    for (name, previous, progress, rationing, want) in cases {
        let got = next_poll(&Pace { previous, rationing, ..pace }, progress, 10_000);
        assert!(close(got, want), "{name}: {got:?}, want {want}");
    }
    let likely = Pace { planned: s(4.75), likelihood: 0.25, rationing: binding, ..pace };
    assert!(close(next_poll(&likely, None, 0), 20.0), "likelier finishes wait less");
}

#[test]
fn rationing_spends_the_budget_on_likely_finishes_and_never_more() {
    let dense = 1.0 / 4.75;
    assert_eq!(ration(&[(dense, 0.5); 10], 8.0, s(90.0)), None, "10 tasks fit in 8 polls/s");
    for n in [50usize, 100, 1_000, 10_000] {
        let wants: Vec<(f64, f64)> = (0..n).map(|i| (dense, (i % 10) as f64 / 10.0)).collect();
        let r = ration(&wants, 8.0, s(90.0)).expect("binds");
        let rates: Vec<f64> = wants
            .iter()
            .map(|(want, p)| 1.0 / rationed(Duration::from_secs_f64(1.0 / want), *p, Some(r)).as_secs_f64())
            .collect();
        let total: f64 = rates.iter().sum();
        assert!((7.9..=8.0 + 1e-6).contains(&total), "{n} tasks: {total} polls/s");
        assert!(rates[9] >= rates[5] && rates[5] >= rates[1] && rates[1] >= rates[0], "{n}: {:?}", &rates[..10]);
        assert!(rates.iter().all(|r| *r >= 1.0 / (90f64.max(n as f64 / 8.0)) - 1e-9), "{n}: none starves");
    }
}

#[test]
fn the_rationer_works_the_sharing_out_once_a_second_and_says_when_the_budget_binds() {
    let t0 = Instant::now();
    let mut r = Rationer::default();
    assert!(r.due(t0));
    assert!(!r.update(&[(0.2, 0.5); 10], 8.0, s(90.0), t0), "fits: nothing changes");
    assert!(!r.due(t0 + s(0.5)) && r.due(t0 + s(1.0)));
    assert!(r.update(&[(0.2, 0.5); 100], 8.0, s(90.0), t0 + s(1.0)), "starts binding");
    assert!(r.current().is_some());
    assert!(r.update(&[(0.2, 0.5); 10], 8.0, s(90.0), t0 + s(2.0)), "stops binding");
}

#[test]
fn outlooks_come_from_the_kind_then_the_model_then_the_prior() {
    let p = PollPolicy::default();
    let kind = |res: &str| Kind { model: "m".into(), seconds: 5, resolution: res.into() };
    let dense = shortest(&p);
    let mut r = RenderStats::new(HashMap::from([("m".to_string(), spread(95.0, 105.0, 50))]));
    assert_eq!(r.outlook(&kind("720P"), &p).wait(s(100.0), &p), dense, "the model's history");
    assert!(r.outlook(&kind("720P"), &p).wait(s(30.0), &p) > dense);
    for secs in spread(200.0, 210.0, 10) {
        r.record(&kind("1080P"), secs);
    }
    let own = r.outlook(&kind("1080P"), &p);
    assert!(own.wait(s(100.0), &p) > dense, "its own history says 1080P takes longer");
    assert_eq!(own.wait(s(205.0), &p), dense);
    assert_eq!(r.outlook(&kind("720P"), &p).wait(s(100.0), &p), dense, "other kinds keep the model's");
    // A first run learns from its fastest tasks first: those still running past every finish
    // seen so far are handed to the prior, not left to slow down.
    let mut first = RenderStats::default();
    for secs in spread(65.0, 75.0, 12) {
        first.record(&kind("720P"), secs);
    }
    assert_eq!(first.outlook(&kind("720P"), &p).wait(s(150.0), &p), dense);
    assert!(first.outlook(&kind("720P"), &p).wait(s(20.0), &p) > dense);
}

#[test]
fn kinds_are_bounded_and_the_stalest_is_forgotten() {
    let mut r = RenderStats::default();
    for i in 0..(KINDS as i64 + 10) {
        r.record(&Kind { model: "m".into(), seconds: i, resolution: "720P".into() }, 100.0);
    }
    assert_eq!(r.by_kind.len(), KINDS);
    assert!(!r.by_kind.contains_key(&Kind { model: "m".into(), seconds: 0, resolution: "720P".into() }));
    assert_eq!(r.by_model["m"].len(), SAMPLES);
}

#[test]
fn finishes_that_keep_coming_where_none_were_expected_make_a_model_forget() {
    let p = PollPolicy::default();
    let kind = Kind { model: "m".into(), seconds: 5, resolution: "720P".into() };
    let learned = || RenderStats::new(HashMap::from([("m".to_string(), spread(65.0, 210.0, 50))]));
    let dense = shortest(&p).as_secs_f64();

    // The service speeds up: three finishes before 65 s, where the outlook waited for them.
    let mut stats = learned();
    assert!(stats.outlook(&kind, &p).wait(s(10.0), &p).as_secs_f64() > 2.0 * dense, "learned: a gap before 65 s");
    assert!(!stats.learn(&kind, 15.0, &p), "one surprise may be chance");
    assert!(!stats.learn(&kind, 45.0, &p));
    assert!(stats.learn(&kind, 30.0, &p), "three of ten: the history no longer describes the model");
    let wait = stats.outlook(&kind, &p).wait(s(10.0), &p).as_secs_f64();
    assert!((wait - dense).abs() < 1e-6, "polled as on a first run: {wait}");

    // Finishes where they were expected, and a late one now and then, forget nothing.
    let mut stats = learned();
    let expected = [100.0, 150.0, 20.0, 120.0, 90.0, 180.0, 140.0, 70.0, 200.0, 25.0, 110.0];
    assert!(expected.iter().all(|t| !stats.learn(&kind, *t, &p)));
}
