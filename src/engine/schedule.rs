//! Pure scheduling decisions: when to poll a task, how long to back off, the request budget,
//! and render times learned per model.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// When and how fast to poll (spec 4.3), and the global request budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollPolicy {
    /// First poll after submission.
    pub first_poll: Duration,
    /// Interval during a task's first minute; it then grows by this much per minute of age.
    pub base: Duration,
    /// Longest interval for a running task (unless the budget forces longer).
    pub max: Duration,
    /// Interval for stalled tasks and unrecognized statuses.
    pub slow: Duration,
    /// Past this age a task that has not finished is `stalled` (spec 4.3: 10 minutes).
    pub client_timeout: Duration,
    /// API requests per second, never exceeded.
    pub budget_per_sec: u32,
    /// First back-off after an error; doubles per consecutive error.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
}

impl Default for PollPolicy {
    fn default() -> Self {
        PollPolicy {
            first_poll: Duration::from_secs(5),
            base: Duration::from_secs(5),
            max: Duration::from_secs(60),
            slow: Duration::from_secs(60),
            client_timeout: Duration::from_secs(600),
            budget_per_sec: 10,
            backoff_base: Duration::from_secs(2),
            backoff_max: Duration::from_secs(120),
        }
    }
}

/// Share of the budget that routine polling may use; the rest is headroom for submissions.
const LOAD_SHARE: f64 = 0.8;

/// The interval before the next poll of a running task.
/// - grows with the task's age: `base` in the first minute, plus `base` per further minute;
/// - grows with the number of tasks in flight so polling uses at most 80% of the budget;
/// - waits for the expected finish when the model's history says it is still far off.
pub fn interval(p: &PollPolicy, age: Duration, in_flight: usize, expected_left: Option<Duration>) -> Duration {
    let minutes = age.as_secs_f64() / 60.0;
    let by_age = (p.base.as_secs_f64() * (1.0 + (minutes - 1.0).max(0.0))).min(p.max.as_secs_f64());
    let by_load = in_flight as f64 / (f64::from(p.budget_per_sec.max(1)) * LOAD_SHARE);
    let by_history = expected_left.map_or(0.0, |left| left.as_secs_f64().min(p.max.as_secs_f64()));
    Duration::from_secs_f64(by_age.max(by_history).max(by_load))
}

/// Back-off after `failures` consecutive errors, with `jitter` in [0, 1) spreading it ±20%.
pub fn backoff(p: &PollPolicy, failures: u32, jitter: f64) -> Duration {
    let exp = 2f64.powi(failures.saturating_sub(1).min(30) as i32);
    let secs = (p.backoff_base.as_secs_f64() * exp).min(p.backoff_max.as_secs_f64());
    Duration::from_secs_f64(secs * (0.8 + 0.4 * jitter.clamp(0.0, 1.0)))
}

/// A sliding one-second window: at most `per_sec` requests start in any window of that length.
#[derive(Debug, Clone)]
pub struct RateWindow {
    per_sec: usize,
    window: Duration,
    sent: VecDeque<Instant>,
}

impl RateWindow {
    pub fn new(per_sec: u32) -> RateWindow {
        // A little over a second, so that network jitter cannot squeeze one window's requests
        // into what the server sees as less than a second.
        RateWindow { per_sec: per_sec.max(1) as usize, window: Duration::from_millis(1050), sent: VecDeque::new() }
    }

    /// Takes a slot now, or says when the next one frees.
    pub fn try_acquire(&mut self, now: Instant) -> Result<(), Instant> {
        while self.sent.front().is_some_and(|t| now.duration_since(*t) >= self.window) {
            self.sent.pop_front();
        }
        if self.sent.len() < self.per_sec {
            self.sent.push_back(now);
            Ok(())
        } else {
            Err(self.sent[0] + self.window)
        }
    }
}

/// Render times (seconds) per model, newest first, learned from history and from this run.
#[derive(Debug, Clone, Default)]
pub struct RenderStats {
    by_model: HashMap<String, Vec<f64>>,
}

/// Samples kept per model.
const SAMPLES: usize = 50;
/// Fewer samples than this and the history says nothing.
const MIN_SAMPLES: usize = 3;

impl RenderStats {
    pub fn new(by_model: HashMap<String, Vec<f64>>) -> RenderStats {
        RenderStats { by_model }
    }

    pub fn record(&mut self, model: &str, seconds: f64) {
        let list = self.by_model.entry(model.to_string()).or_default();
        list.insert(0, seconds);
        list.truncate(SAMPLES);
    }

    pub fn quantile(&self, model: &str, q: f64) -> Option<Duration> {
        let list = self.by_model.get(model).filter(|l| l.len() >= MIN_SAMPLES)?;
        let mut sorted = list.clone();
        sorted.sort_by(f64::total_cmp);
        let idx = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        Some(Duration::from_secs_f64(sorted[idx]))
    }

    /// Typical render time: the median.
    pub fn expected(&self, model: &str) -> Option<Duration> {
        self.quantile(model, 0.5)
    }

    /// An early estimate (lower quartile): polls aim here so a fast render is not noticed late.
    pub fn early(&self, model: &str) -> Option<Duration> {
        self.quantile(model, 0.25)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f64) -> Duration {
        Duration::from_secs_f64(x)
    }

    #[test]
    fn interval_table() {
        let p = PollPolicy::default();
        let cases = [
            // (age s, in flight, expected left s, want s)
            (0.0, 1, None, 5.0),
            (59.0, 1, None, 5.0),
            (120.0, 1, None, 10.0),
            (180.0, 1, None, 15.0),
            (3000.0, 1, None, 60.0),
            (0.0, 100, None, 12.5),
            (0.0, 1000, None, 125.0),
            (0.0, 1, Some(40.0), 40.0),
            (0.0, 1, Some(300.0), 60.0),
            (0.0, 1, Some(2.0), 5.0),
        ];
        for (age, n, left, want) in cases {
            let got = interval(&p, s(age), n, left.map(s));
            assert!((got.as_secs_f64() - want).abs() < 1e-9, "age {age} n {n} left {left:?}: {got:?}");
        }
    }

    #[test]
    fn polling_stays_within_the_budget_whatever_the_load() {
        let p = PollPolicy::default();
        for n in [1, 10, 50, 100, 1_000, 10_000] {
            let per_task = interval(&p, Duration::ZERO, n, None).as_secs_f64();
            let rate = n as f64 / per_task;
            assert!(rate <= f64::from(p.budget_per_sec) * LOAD_SHARE + 1e-9, "{n} tasks: {rate}/s");
        }
    }

    #[test]
    fn backoff_doubles_caps_and_jitters() {
        let p = PollPolicy::default();
        let cases = [
            (1, 0.5, 2.0),
            (2, 0.5, 4.0),
            (3, 0.5, 8.0),
            (7, 0.5, 120.0),
            (40, 0.5, 120.0),
            (1, 0.0, 1.6),
            (1, 1.0, 2.4),
        ];
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
        for secs in [100.0, 60.0, 80.0, 120.0, 90.0] {
            r.record("m", secs);
        }
        assert_eq!(r.expected("m"), Some(s(90.0)));
        assert_eq!(r.early("m"), Some(s(80.0)));
        assert_eq!(r.expected("other"), None);
    }
}
