//! When an engine process may exit by itself: no client is attached and it has nothing it can
//! still progress. Its tasks stay in the journal as they are; the next engine takes them up.

use std::fmt;
use std::time::Duration;

use crate::Activity;
use crate::health::Health;

/// Why an engine with no client attached has nothing to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    /// Every task is finished.
    Done,
    /// Every unfinished task waits for something no wait of this engine brings: a status reel
    /// does not know (`unrecognized`), or a service unreachable for `give_up_after` or more.
    Stuck { unfinished: usize, unrecognized: usize, unreachable_for: Option<Duration> },
}

impl fmt::Display for Idle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Idle::Done => f.write_str("nothing unfinished and no client attached"),
            Idle::Stuck { unfinished, unrecognized, unreachable_for } => {
                write!(f, "no client attached and none of the {unfinished} unfinished tasks can progress: ")?;
                match unreachable_for {
                    Some(d) => write!(f, "the service has been unreachable for {} s", d.as_secs())?,
                    None => write!(f, "the service answers a status reel does not know")?,
                }
                if *unrecognized > 0 && unreachable_for.is_some() {
                    write!(f, " ({unrecognized} with a status reel does not know)")?;
                }
                f.write_str("; they stay in the journal for the next engine")
            }
        }
    }
}

/// Whether the engine is idle, at `now_ms`: `clients` attached, its `activity`, and how long
/// an unreachable service is waited for (`give_up_after`).
pub fn idle(clients: usize, a: &Activity, give_up_after: Duration, now_ms: i64) -> Option<Idle> {
    if clients > 0 {
        return None;
    }
    if a.unfinished == 0 {
        return Some(Idle::Done);
    }
    // Only tasks that wait for the API can be stuck: a download, or anything under way, is work.
    let stuck =
        |unreachable_for| Idle::Stuck { unfinished: a.unfinished, unrecognized: a.unrecognized, unreachable_for };
    if a.downloads > 0 || a.waiting_on_api < a.unfinished {
        return None;
    }
    let unreachable_for = (a.service.health == Health::Unreachable)
        .then_some(a.service.since_ms)
        .flatten()
        .map(|since| Duration::from_millis((now_ms - since).max(0) as u64));
    match unreachable_for {
        Some(d) if d >= give_up_after => Some(stuck(Some(d))),
        _ if a.unrecognized == a.unfinished && a.requests_in_flight == 0 => Some(stuck(None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServiceState;

    const HOUR: Duration = Duration::from_secs(3600);
    const NOW: i64 = 10_000_000;

    fn activity(
        unfinished: usize,
        waiting_on_api: usize,
        unrecognized: usize,
        health: Health,
        since_s: i64,
    ) -> Activity {
        Activity {
            unfinished,
            requests_in_flight: 0,
            downloads: 0,
            service: ServiceState { health, since_ms: Some(NOW - since_s * 1000), ..ServiceState::default() },
            waiting_on_api,
            unrecognized,
        }
    }

    #[test]
    fn idle_table() {
        use Health::*;
        let gone = |unrecognized, secs| {
            Some(Idle::Stuck { unfinished: 3, unrecognized, unreachable_for: Some(Duration::from_secs(secs)) })
        };
        let unknown = Some(Idle::Stuck { unfinished: 2, unrecognized: 2, unreachable_for: None });
        let cases = [
            ("finished", 0, activity(0, 0, 0, Ok, 0), Some(Idle::Done)),
            ("finished, a client attached", 1, activity(0, 0, 0, Ok, 0), None),
            ("polling a service that answers", 0, activity(3, 3, 0, Ok, 0), None),
            ("unreachable, not for long", 0, activity(3, 3, 0, Unreachable, 3599), None),
            ("unreachable for an hour", 0, activity(3, 3, 0, Unreachable, 3600), gone(0, 3600)),
            ("unreachable for an hour, some unrecognized", 0, activity(3, 3, 1, Unreachable, 7200), gone(1, 7200)),
            ("unreachable for an hour, a client attached", 1, activity(3, 3, 0, Unreachable, 7200), None),
            ("failing (5xx) is not unreachable", 0, activity(3, 3, 0, Failing, 7200), None),
            ("rate limited is not unreachable", 0, activity(3, 3, 0, RateLimited, 7200), None),
            ("a download to finish", 0, activity(3, 2, 0, Unreachable, 7200), None),
            ("only unrecognized", 0, activity(2, 2, 2, Ok, 0), unknown),
            ("unrecognized and one still rendering", 0, activity(2, 2, 1, Ok, 0), None),
        ];
        for (name, clients, a, want) in cases {
            assert_eq!(idle(clients, &a, HOUR, NOW), want, "{name}");
        }
        let mut busy = activity(2, 2, 2, Ok, 0);
        busy.requests_in_flight = 1;
        assert_eq!(idle(0, &busy, HOUR, NOW), None, "a poll under way may bring a status reel knows");
        let mut fetching = activity(3, 3, 0, Unreachable, 7200);
        fetching.downloads = 1;
        assert_eq!(idle(0, &fetching, HOUR, NOW), None, "a transfer under way is work");
    }

    #[test]
    fn the_reason_is_said_in_words() {
        let gone = Idle::Stuck { unfinished: 3, unrecognized: 1, unreachable_for: Some(Duration::from_secs(3700)) };
        assert_eq!(
            gone.to_string(),
            "no client attached and none of the 3 unfinished tasks can progress: the service has been unreachable \
             for 3700 s (1 with a status reel does not know); they stay in the journal for the next engine"
        );
        let unknown = Idle::Stuck { unfinished: 2, unrecognized: 2, unreachable_for: None };
        assert!(unknown.to_string().contains("a status reel does not know; they stay in the journal"));
    }
}
