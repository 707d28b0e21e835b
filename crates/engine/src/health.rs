//! Service health as seen by the engine, the global pause it implies, and how both are said.

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::schedule::{PollPolicy, backoff};
use super::transition::{KEY_WAIT, OUTAGE_RETRY, refuses_key};
use reel_api::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    #[default]
    Ok,
    /// The service answered 429; every request waits (for its Retry-After, if it sent one).
    RateLimited,
    /// Several requests in a row got 5xx, timeouts or unreadable answers.
    Failing,
    /// A request could not connect, or several in a row lost the connection.
    Unreachable,
    /// The service refused the API key (401, or 403 on a submission): nothing is sent until a
    /// working key is in use; it is tried again now and then.
    KeyRefused,
}

impl fmt::Display for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Health::Ok => "ok",
            Health::RateLimited => "rate limited",
            Health::Failing => "failing",
            Health::Unreachable => "unreachable",
            Health::KeyRefused => "API key refused",
        })
    }
}

/// What the engine knows of the service, as the dashboard and the commands show it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ServiceState {
    pub health: Health,
    /// When the service stopped being ok (Unix ms).
    pub since_ms: Option<i64>,
    /// Every request waits until then (Unix ms).
    pub paused_until_ms: Option<i64>,
    /// The pause is the service's own Retry-After (a 429 or 503 carried one).
    pub retry_after: bool,
    /// The last failure, in the words reel uses for it (never the key).
    pub detail: Option<String>,
    /// The engine's writing work is paused: the disk is full (set by the engine, not the
    /// service, but said with it: nothing moves until there is room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<super::disk::DiskFull>,
}

impl ServiceState {
    /// One line: `paused: the disk holding … is full (…) · unreachable since 20:14 · next try in
    /// 8 s`; `ok` when all is well.
    pub fn summary(&self, now_ms: i64) -> String {
        let service = self.service_summary(now_ms);
        match (&self.disk, self.health) {
            (None, _) => service,
            (Some(disk), Health::Ok) => disk.summary(),
            (Some(disk), _) => format!("{} · {service}", disk.summary()),
        }
    }

    /// The service's part of [`summary`](Self::summary) alone.
    pub fn service_summary(&self, now_ms: i64) -> String {
        let since = self.since_ms.map(|ms| format!(" since {}", local_minute(ms))).unwrap_or_default();
        let head = match self.health {
            Health::Ok => return "ok".to_string(),
            Health::RateLimited => "rate limited (HTTP 429)".to_string(),
            Health::Failing => format!("failing{since}"),
            Health::Unreachable => format!("unreachable{since}"),
            Health::KeyRefused => {
                format!("API key refused{since}: check REEL_API_KEY or api_key_cmd")
            }
        };
        match self.paused_until_ms.filter(|u| *u > now_ms) {
            Some(until) => {
                let secs = (until - now_ms + 999) / 1000;
                let what = if self.health == Health::KeyRefused { "next check" } else { "next try" };
                let told = if self.retry_after { " (Retry-After)" } else { "" };
                format!("{head} · {what} in {secs} s{told}")
            }
            None => head,
        }
    }

    /// Whether a submission now would only wait: the key is refused.
    pub fn refuses_sends(&self) -> bool {
        self.health == Health::KeyRefused
    }
}

/// A Unix-ms time as local `HH:MM`.
fn local_minute(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(reel_rules::text::local_zone()).strftime("%H:%M").to_string()
}

/// Consecutive failures across all tasks before the whole service counts as failing.
const FAILING_AFTER: u32 = 3;
/// Wait after a 429 that carries no Retry-After (gateways such as new-api send none); doubled
/// for each further one in a row, up to `MAX_GUESSED_RETRY_AFTER`.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(5);
const MAX_GUESSED_RETRY_AFTER: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Default)]
pub struct HealthTracker {
    health: Health,
    consecutive: u32,
    pause_until: Option<Instant>,
    retry_after: bool,
    since_ms: Option<i64>,
    detail: Option<String>,
}

impl HealthTracker {
    pub fn health(&self) -> Health {
        self.health
    }

    /// No request may start before this.
    pub fn paused_until(&self, now: Instant) -> Option<Instant> {
        self.pause_until.filter(|t| *t > now)
    }

    /// The state as shown, at (`now`, `now_ms`).
    pub fn state(&self, now: Instant, now_ms: i64) -> ServiceState {
        let paused_until_ms = self.paused_until(now).map(|t| now_ms + t.duration_since(now).as_millis() as i64);
        ServiceState {
            health: self.health,
            since_ms: self.since_ms,
            paused_until_ms,
            retry_after: self.retry_after && paused_until_ms.is_some(),
            detail: self.detail.clone(),
            disk: None,
        }
    }

    /// Returns the previous health if it changed.
    fn set(&mut self, health: Health, now_ms: i64) -> Option<Health> {
        let before = self.health;
        if before == health {
            return None;
        }
        self.health = health;
        self.since_ms =
            (health != Health::Ok).then_some(self.since_ms.filter(|_| before != Health::Ok).unwrap_or(now_ms));
        Some(before)
    }

    fn pause(&mut self, until: Instant, retry_after: bool) {
        if self.pause_until.is_none_or(|c| until >= c) {
            self.retry_after = retry_after;
        }
        self.pause_until = Some(self.pause_until.map_or(until, |c| c.max(until)));
    }

    /// A request succeeded: a pause of reel's own (an outage, failures, a refused key) ends at
    /// once; one the service asked for (429, Retry-After) is kept to, since requests started
    /// before it may still answer. Returns the previous health if it changed.
    pub fn success(&mut self, (now, now_ms): (Instant, i64)) -> Option<Health> {
        self.consecutive = 0;
        if self.paused_until(now).is_some() && (self.retry_after || self.health == Health::RateLimited) {
            return None;
        }
        self.detail = None;
        let changed = self.set(Health::Ok, now_ms);
        if changed.is_some() {
            self.pause_until = None;
            self.retry_after = false;
        }
        changed
    }

    /// A request failed (`submitting`: it was a submission). Returns the previous health if it
    /// changed.
    pub fn failure(
        &mut self,
        err: &ApiError,
        submitting: bool,
        (now, now_ms): (Instant, i64),
        policy: &PollPolicy,
        jitter: f64,
    ) -> Option<Health> {
        if refuses_key(err, submitting) {
            self.detail = Some(err.to_string());
            self.pause(now + KEY_WAIT, false);
            return self.set(Health::KeyRefused, now_ms);
        }
        match err {
            ApiError::RateLimited { retry_after, .. } => {
                // Without Retry-After (new-api's limits count per minute and send none), each
                // 429 in a row doubles the wait, so a minute's window is not asked about 12 times.
                self.consecutive += 1;
                let doubled = DEFAULT_RETRY_AFTER.saturating_mul(1 << self.consecutive.clamp(1, 5).saturating_sub(1));
                let guessed = doubled.min(MAX_GUESSED_RETRY_AFTER);
                self.pause(now + retry_after.unwrap_or(guessed), retry_after.is_some());
                self.detail = Some(err.to_string());
                self.set(Health::RateLimited, now_ms)
            }
            ApiError::Connect { .. } => {
                // A refused connection is no accident: the service is unreachable at once.
                self.consecutive = self.consecutive.max(FAILING_AFTER - 1);
                self.count(err, Health::Unreachable, (now, now_ms), policy, jitter)
            }
            ApiError::Network { .. } => self.count(err, Health::Unreachable, (now, now_ms), policy, jitter),
            ApiError::Server { retry_after, .. } => {
                if let Some(after) = retry_after {
                    self.pause(now + *after, true);
                }
                self.count(err, Health::Failing, (now, now_ms), policy, jitter)
            }
            ApiError::Timeout { .. }
            | ApiError::Undecodable { .. }
            | ApiError::TooLarge { .. }
            | ApiError::Redirect { .. } => self.count(err, Health::Failing, (now, now_ms), policy, jitter),
            _ => None,
        }
    }

    fn count(
        &mut self,
        err: &ApiError,
        health: Health,
        (now, now_ms): (Instant, i64),
        policy: &PollPolicy,
        jitter: f64,
    ) -> Option<Health> {
        self.consecutive += 1;
        if self.consecutive < FAILING_AFTER {
            return None;
        }
        self.detail = Some(err.to_string());
        let wait = backoff(policy, self.consecutive - FAILING_AFTER + 1, jitter);
        // An outage is waited out in steps short enough to notice its end soon.
        let wait = if health == Health::Unreachable { wait.min(OUTAGE_RETRY) } else { wait };
        self.pause(now + wait, false);
        self.set(health, now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_api::ErrorBody;

    fn server() -> ApiError {
        ApiError::Server { status: 503, message: None, retry_after: None }
    }

    #[test]
    fn rate_limit_pauses_everything_until_retry_after() {
        let now = Instant::now();
        let mut h = HealthTracker::default();
        let e = ApiError::RateLimited { retry_after: Some(Duration::from_secs(3)), body: ErrorBody::Empty };
        assert_eq!(h.failure(&e, false, (now, 0), &PollPolicy::default(), 0.5), Some(Health::Ok));
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(3)));
        assert!(h.state(now, 0).retry_after);
        assert_eq!(h.success((now, 0)), None, "an answer to an earlier request does not end a Retry-After");
        assert_eq!(h.paused_until(now + Duration::from_secs(3)), None);
        let later = now + Duration::from_secs(3);
        assert_eq!(h.success((later, 3_000)), Some(Health::RateLimited));
    }

    #[test]
    fn failing_after_three_in_a_row_with_growing_pauses() {
        let now = Instant::now();
        let p = PollPolicy::default();
        let mut h = HealthTracker::default();
        assert_eq!(h.failure(&server(), false, (now, 0), &p, 0.5), None);
        assert_eq!(h.failure(&server(), false, (now, 0), &p, 0.5), None);
        assert_eq!(h.paused_until(now), None, "two errors pause nothing");
        assert_eq!(h.failure(&server(), false, (now, 0), &p, 0.5), Some(Health::Ok));
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(2)));
        h.failure(&server(), false, (now, 0), &p, 0.5);
        assert_eq!(h.paused_until(now), Some(now + Duration::from_secs(4)));
        assert!(!h.state(now, 0).retry_after, "no Retry-After came");
        assert_eq!(h.success((now, 0)), Some(Health::Failing));
        assert_eq!(h.success((now, 0)), None);
        assert_eq!(h.paused_until(now), None, "the first answer ends the pause");
    }

    #[test]
    fn task_specific_errors_do_not_touch_health() {
        let mut h = HealthTracker::default();
        let e = ApiError::NotFound { status: 404, message: None, body: ErrorBody::Empty };
        for _ in 0..5 {
            assert_eq!(h.failure(&e, false, (Instant::now(), 0), &PollPolicy::default(), 0.5), None);
        }
        assert_eq!(h.health(), Health::Ok);
    }

    #[test]
    fn an_outage_is_said_at_once_with_its_start_and_next_try() {
        let now = Instant::now();
        let p = PollPolicy::default();
        let mut h = HealthTracker::default();
        let refused = ApiError::Connect { endpoint: "http://127.0.0.1:9".into(), detail: "refused".into() };
        assert_eq!(h.failure(&refused, true, (now, 1_000), &p, 0.5), Some(Health::Ok));
        let state = h.state(now, 1_000);
        assert_eq!((state.health, state.since_ms, state.retry_after), (Health::Unreachable, Some(1_000), false));
        let summary = state.summary(1_000);
        assert!(summary.starts_with("unreachable since ") && summary.ends_with("next try in 2 s"), "{summary}");
        assert!(!summary.contains("Retry-After") && !summary.contains("rate limited"), "{summary}");
        for _ in 0..20 {
            h.failure(&refused, false, (now, 5_000), &p, 0.5);
        }
        let state = h.state(now, 5_000);
        assert_eq!(state.since_ms, Some(1_000), "the outage keeps its start");
        assert!(state.paused_until_ms.is_some_and(|u| u - 5_000 <= 30_000), "waited out in short steps");
        assert_eq!(h.success((now, 6_000)), Some(Health::Unreachable));
        assert_eq!(h.state(now, 6_000), ServiceState::default(), "the first success clears it");
    }

    #[test]
    fn retry_after_is_named_only_when_the_service_sent_one() {
        let now = Instant::now();
        let p = PollPolicy::default();
        let cases = [
            (
                ApiError::RateLimited { retry_after: None, body: ErrorBody::Empty },
                "rate limited (HTTP 429) · next try in 5 s",
            ),
            (
                ApiError::RateLimited { retry_after: Some(Duration::from_secs(3)), body: ErrorBody::Empty },
                "rate limited (HTTP 429) · next try in 3 s (Retry-After)",
            ),
        ];
        for (err, want) in cases {
            let mut h = HealthTracker::default();
            h.failure(&err, false, (now, 0), &p, 0.5);
            assert_eq!(h.state(now, 0).summary(0), want);
        }
        // Without Retry-After, 429s in a row wait longer each time, up to a minute.
        let mut h = HealthTracker::default();
        let limited = ApiError::RateLimited { retry_after: None, body: ErrorBody::Empty };
        let waits: Vec<i64> = (0..7)
            .map(|_| {
                h.failure(&limited, false, (now, 0), &p, 0.5);
                h.state(now, 0).paused_until_ms.unwrap_or(0) / 1000
            })
            .collect();
        assert_eq!(waits, vec![5, 10, 20, 40, 60, 60, 60]);
        let mut h = HealthTracker::default();
        let unavailable = ApiError::Server { status: 503, message: None, retry_after: Some(Duration::from_secs(7)) };
        h.failure(&unavailable, false, (now, 0), &p, 0.5);
        assert!(h.state(now, 0).retry_after);
    }

    #[test]
    fn a_refused_key_stops_sending_and_says_what_to_check() {
        let now = Instant::now();
        let p = PollPolicy::default();
        let forbidden = || ApiError::Rejected { status: 403, message: None, body: ErrorBody::Empty };
        let mut h = HealthTracker::default();
        assert_eq!(h.failure(&forbidden(), false, (now, 0), &p, 0.5), None, "a 403 on a poll is that task's");
        assert_eq!(h.failure(&forbidden(), true, (now, 0), &p, 0.5), Some(Health::Ok));
        let state = h.state(now, 0);
        assert!(state.refuses_sends());
        assert!(state.summary(0).contains("check REEL_API_KEY or api_key_cmd · next check in 60 s"), "{state:?}");
        let mut h = HealthTracker::default();
        h.failure(&ApiError::Unauthorized { status: 401, message: None }, false, (now, 0), &p, 0.5);
        assert_eq!(h.health(), Health::KeyRefused);
        h.success((now, 1));
        assert!(!h.state(now, 1).refuses_sends());
    }
}
