//! A simulated task's life: queued, then in progress, then completed or failed, by elapsed time.

use std::time::Duration;

use serde_json::{Value, json};

/// How tasks are scheduled: durations and how often they fail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LifecycleConfig {
    pub queue_time: Duration,
    pub render_min: Duration,
    pub render_max: Duration,
    /// Probability (0 to 1) that a task ends `failed`.
    pub failure_rate: f64,
}

impl Default for LifecycleConfig {
    /// Seconds-scale, so the demo shows every state within a quarter of a minute.
    fn default() -> Self {
        LifecycleConfig {
            queue_time: Duration::from_secs(2),
            render_min: Duration::from_secs(6),
            render_max: Duration::from_secs(15),
            failure_rate: 0.1,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Complete,
    /// The error details the task will report.
    Fail(Value),
}

/// One task's planned life, decided at submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub queue_for: Duration,
    pub render_for: Duration,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    Queued,
    /// `progress` in percent.
    InProgress {
        progress: f64,
    },
    Completed,
    Failed,
}

const FAILURES: [(&str, &str); 3] = [
    ("content_policy", "The prompt was flagged by the content filter."),
    ("render_error", "The renderer stopped unexpectedly; try again."),
    ("media_unreachable", "A reference media URL could not be fetched."),
];

impl Timeline {
    /// Draws a timeline: render time uniform in the configured range, failure by its rate, with
    /// a reason that fits the task (a media failure only for a task with media).
    pub fn plan(config: &LifecycleConfig, has_media: bool, rng: &mut fastrand::Rng) -> Timeline {
        let (lo, hi) = (config.render_min.as_millis() as u64, config.render_max.as_millis() as u64);
        let render_for = Duration::from_millis(if hi > lo { rng.u64(lo..=hi) } else { lo });
        let outcome = if rng.f64() < config.failure_rate {
            let reasons = if has_media { &FAILURES[..] } else { &FAILURES[..2] };
            let (code, message) = reasons[rng.usize(..reasons.len())];
            Outcome::Fail(json!({ "code": code, "message": message }))
        } else {
            Outcome::Complete
        };
        Timeline { queue_for: config.queue_time, render_for, outcome }
    }

    pub fn finish_after(&self) -> Duration {
        self.queue_for + self.render_for
    }

    pub fn phase(&self, elapsed: Duration) -> Phase {
        if elapsed < self.queue_for {
            Phase::Queued
        } else if elapsed < self.finish_after() {
            let done = (elapsed - self.queue_for).as_secs_f64() / self.render_for.as_secs_f64().max(1e-9);
            Phase::InProgress { progress: (done * 100.0).floor().min(99.0) }
        } else if matches!(self.outcome, Outcome::Complete) {
            Phase::Completed
        } else {
            Phase::Failed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_by_elapsed_time() {
        let ms = Duration::from_millis;
        let t = Timeline { queue_for: ms(100), render_for: ms(200), outcome: Outcome::Complete };
        let cases = [
            (0, Phase::Queued),
            (99, Phase::Queued),
            (100, Phase::InProgress { progress: 0.0 }),
            (200, Phase::InProgress { progress: 50.0 }),
            (299, Phase::InProgress { progress: 99.0 }),
            (300, Phase::Completed),
            (10_000, Phase::Completed),
        ];
        for (at, want) in cases {
            assert_eq!(t.phase(ms(at)), want, "{at} ms");
        }
        let f = Timeline { outcome: Outcome::Fail(json!({})), ..t };
        assert_eq!(f.phase(ms(300)), Phase::Failed);
    }

    #[test]
    fn plans_respect_the_configuration() {
        let mut rng = fastrand::Rng::with_seed(7);
        let config = LifecycleConfig { failure_rate: 0.0, ..LifecycleConfig::default() };
        for _ in 0..100 {
            let t = Timeline::plan(&config, false, &mut rng);
            assert!((config.render_min..=config.render_max).contains(&t.render_for));
            assert_eq!(t.outcome, Outcome::Complete);
        }
        let always = LifecycleConfig { failure_rate: 1.0, ..config };
        assert!(matches!(Timeline::plan(&always, true, &mut rng).outcome, Outcome::Fail(_)));
    }
}
