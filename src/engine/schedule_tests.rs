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
