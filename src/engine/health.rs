//! Service health as seen by the engine, and the global pause it implies.

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::schedule::{PollPolicy, backoff};
use crate::api::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    Ok,
    /// The service answered 429; every request waits for Retry-After.
    RateLimited,
    /// Several requests in a row got 5xx, timeouts or unreadable answers.
    Failing,
    /// Several requests in a row could not connect or lost the connection.
    Unreachable,
}

impl fmt::Display for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Health::Ok => "ok",
            Health::RateLimited => "rate limited",
            Health::Failing => "failing",
            Health::Unreachable => "unreachable",
        })
    }
}

/// Consecutive failures across all tasks before the whole service counts as failing.
const FAILING_AFTER: u32 = 3;
/// Wait after a 429 that carries no Retry-After.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(5);

#[derive(Debug, Clone)]
pub struct HealthTracker {
    health: Health,
    consecutive: u32,
    pause_until: Option<Instant>,
}

impl Default for HealthTracker {
    fn default() -> Self {
        HealthTracker { health: Health::Ok, consecutive: 0, pause_until: None }
    }
}

impl HealthTracker {
    pub fn health(&self) -> Health {
        self.health
    }

    /// No request may start before this.
    pub fn paused_until(&self, now: Instant) -> Option<Instant> {
        self.pause_until.filter(|t| *t > now)
    }

    fn set(&mut self, health: Health) -> Option<Health> {
        (self.health != health).then(|| {
            self.health = health;
            health
        })
    }

    /// A request succeeded. Returns the new health if it changed.
    pub fn success(&mut self) -> Option<Health> {
        self.consecutive = 0;
        self.set(Health::Ok)
    }

    /// A request failed. Returns the new health if it changed.
    pub fn failure(&mut self, err: &ApiError, now: Instant, policy: &PollPolicy, jitter: f64) -> Option<Health> {
        let pause = |until: Instant, current: Option<Instant>| Some(current.map_or(until, |c| c.max(until)));
        match err {
            ApiError::RateLimited { retry_after, .. } => {
                self.pause_until = pause(now + retry_after.unwrap_or(DEFAULT_RETRY_AFTER), self.pause_until);
                self.set(Health::RateLimited)
            }
            ApiError::Connect { .. } | ApiError::Network { .. } => self.count(Health::Unreachable, now, policy, jitter),
            ApiError::Server { retry_after, .. } => {
                if let Some(after) = retry_after {
                    self.pause_until = pause(now + *after, self.pause_until);
                }
                self.count(Health::Failing, now, policy, jitter)
            }
            ApiError::Timeout { .. }
            | ApiError::Undecodable { .. }
            | ApiError::TooLarge { .. }
            | ApiError::Redirect { .. }
            | ApiError::Unauthorized { .. } => self.count(Health::Failing, now, policy, jitter),
            _ => None,
        }
    }

    fn count(&mut self, health: Health, now: Instant, policy: &PollPolicy, jitter: f64) -> Option<Health> {
        self.consecutive += 1;
        if self.consecutive < FAILING_AFTER {
            return None;
        }
        let until = now + backoff(policy, self.consecutive - FAILING_AFTER + 1, jitter);
        self.pause_until = Some(self.pause_until.map_or(until, |c| c.max(until)));
        self.set(health)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorBody;

    fn server() -> ApiError {
        ApiError::Server { status: 503, message: None, retry_after: None }
    }

    #[test]
    fn rate_limit_pauses_everything_until_retry_after() {
        let now = Instant::now();
        let mut h = HealthTracker::default();
        let e = ApiError::RateLimited { retry_after: Some(Duration::from_secs(3)), body: ErrorBody::Empty };
        assert_eq!(h.failure(&e, now, &PollPolicy::default(), 0.5), Some(Health::RateLimited));
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(3)));
        assert_eq!(h.paused_until(now + Duration::from_secs(3)), None);
        assert_eq!(h.success(), Some(Health::Ok));
    }

    #[test]
    fn failing_after_three_in_a_row_with_growing_pauses() {
        let now = Instant::now();
        let p = PollPolicy::default();
        let mut h = HealthTracker::default();
        assert_eq!(h.failure(&server(), now, &p, 0.5), None);
        assert_eq!(h.failure(&server(), now, &p, 0.5), None);
        assert_eq!(h.paused_until(now), None, "two errors pause nothing");
        assert_eq!(h.failure(&server(), now, &p, 0.5), Some(Health::Failing));
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(2)));
        h.failure(&server(), now, &p, 0.5);
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(4)));
        assert_eq!(h.success(), Some(Health::Ok));
        assert_eq!(h.success(), None);
        let refused = ApiError::Connect { endpoint: "x".into(), detail: "refused".into() };
        for _ in 0..3 {
            h.failure(&refused, now, &p, 0.5);
        }
        assert_eq!(h.health(), Health::Unreachable);
    }

    #[test]
    fn task_specific_errors_do_not_touch_health() {
        let mut h = HealthTracker::default();
        let e = ApiError::NotFound { body: ErrorBody::Empty };
        for _ in 0..5 {
            assert_eq!(h.failure(&e, Instant::now(), &PollPolicy::default(), 0.5), None);
        }
        assert_eq!(h.health(), Health::Ok);
    }
}
