//! The dashboard's link to the data folder's engine process: attached, or lost and being
//! re-attached with back-off, and what the header says of it. Plain data and rules; the
//! event loop and the effects do the attaching.

pub use reel_engine::service::backoff_ms;

/// Tasks that changed this recently are shown when the dashboard opens, besides unfinished ones.
pub const RECENT_MS: i64 = 12 * 3600 * 1000;

/// After a loss the store is read from this long before it: a change journaled just as the
/// socket closed may not have reached this side.
const LOSS_MARGIN_MS: i64 = 5_000;

/// The link is down: since when, and where re-attaching stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    /// When the socket closed (Unix ms).
    pub since_ms: i64,
    /// The attempt under way, or the next one.
    pub attempt: u32,
    /// When that attempt starts; `None` once it is under way.
    pub next_try_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// The rows to show are being read from the store; engine news waits until they are.
    Opening,
    Up,
    Down(Outage),
    /// Attached again (`restarted`: to another engine process than the one lost): the rows
    /// are read again before engine news is applied, so that no news is taken back by an
    /// older read.
    Reloading {
        restarted: bool,
    },
    /// Events were dropped between the engine and this dashboard (it fell behind a burst):
    /// the rows are read again before news is applied, as after a reattachment.
    CatchingUp,
}

impl Link {
    /// Whether engine news may be applied now (it waits in its channel otherwise).
    pub fn accepts_events(&self) -> bool {
        *self == Link::Up
    }

    /// Whether an engine is attached, so that commands can reach it and what the screen shows
    /// of it (spinners, the service's health) is live.
    pub fn attached(&self) -> bool {
        !matches!(self, Link::Down(_))
    }

    /// What the header says of the link at `now_ms`; `None` while nothing is wrong.
    pub fn describe(&self, now_ms: i64) -> Option<String> {
        self.describe_as(now_ms, "engine")
    }

    /// [`Link::describe`], naming what is lost (`engine`, or `link to host` over SSH).
    pub fn describe_as(&self, now_ms: i64, what: &str) -> Option<String> {
        match self {
            Link::Opening | Link::Up => None,
            Link::Reloading { .. } => Some(format!("{what} back · reloading")),
            Link::CatchingUp => Some("catching up".into()),
            Link::Down(o) => {
                // An age under a second says nothing.
                let lost = if o.attempt <= 1 || now_ms - o.since_ms < 1000 {
                    format!("{what} lost")
                } else {
                    format!("{what} lost {} ago", reel_rules::text::clock((now_ms - o.since_ms) / 1000))
                };
                // An attempt that is due is as good as under way.
                let next = match (o.next_try_ms.filter(|t| *t > now_ms), o.attempt) {
                    (Some(t), 1) => format!("reconnecting in {}", seconds(t - now_ms)),
                    (Some(t), n) => format!("attempt {n} in {}", seconds(t - now_ms)),
                    (None, 1) => "reconnecting…".to_string(),
                    (None, n) => format!("attempt {n}…"),
                };
                Some(format!("{lost} · {next}"))
            }
        }
    }
}

/// A wait as the header writes it: "0.5s" under a second, else whole seconds rounded up.
fn seconds(ms: i64) -> String {
    if ms < 1000 { format!("{:.1}s", ms as f64 / 1000.0) } else { format!("{}s", (ms + 999) / 1000) }
}

/// From when the store is read to show the truth: the recent past, and everything that
/// changed since a loss however long ago it was.
pub fn reload_since(now_ms: i64, lost_ms: Option<i64>) -> i64 {
    let recent = now_ms - RECENT_MS;
    lost_ms.map_or(recent, |lost| recent.min(lost - LOSS_MARGIN_MS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_says_where_reattaching_stands() {
        let down = |attempt, next: Option<i64>| Link::Down(Outage { since_ms: 0, attempt, next_try_ms: next });
        let cases = [
            (Link::Up, 1_000, None),
            (Link::Opening, 1_000, None),
            (Link::Reloading { restarted: true }, 1_000, Some("engine back · reloading")),
            (Link::CatchingUp, 1_000, Some("catching up")),
            (down(1, Some(200)), 0, Some("engine lost · reconnecting in 0.2s")),
            (down(1, None), 300, Some("engine lost · reconnecting…")),
            (down(4, Some(5_000)), 3_200, Some("engine lost 0:03 ago · attempt 4 in 2s")),
            (down(4, Some(4_000)), 3_200, Some("engine lost 0:03 ago · attempt 4 in 0.8s")),
            (down(5, Some(17_000)), 12_000, Some("engine lost 0:12 ago · attempt 5 in 5s")),
            (down(5, Some(17_000)), 12_001, Some("engine lost 0:12 ago · attempt 5 in 5s")),
            (down(6, None), 75_000, Some("engine lost 1:15 ago · attempt 6…")),
            (down(2, Some(100)), 500, Some("engine lost · attempt 2…")),
        ];
        for (link, now, want) in cases {
            assert_eq!(link.describe(now).as_deref(), want, "{link:?} at {now}");
        }
        let down = Link::Down(Outage { since_ms: 0, attempt: 1, next_try_ms: None });
        assert_eq!(down.describe_as(0, "link to me@box").as_deref(), Some("link to me@box lost · reconnecting…"));
    }

    #[test]
    fn news_waits_while_rows_are_read_and_nothing_is_live_while_down() {
        let down = Link::Down(Outage { since_ms: 0, attempt: 1, next_try_ms: None });
        let cases = [
            (Link::Opening, false, true),
            (Link::Up, true, true),
            (Link::Reloading { restarted: false }, false, true),
            (Link::CatchingUp, false, true),
            (down, false, false),
        ];
        for (link, accepts, attached) in cases {
            assert_eq!((link.accepts_events(), link.attached()), (accepts, attached), "{link:?}");
        }
    }

    #[test]
    fn the_reload_reaches_back_to_the_loss() {
        let now = 100 * 3600 * 1000;
        assert_eq!(reload_since(now, None), now - RECENT_MS, "at start: the recent past");
        assert_eq!(reload_since(now, Some(now - 60_000)), now - RECENT_MS, "a short outage is inside it");
        let long_ago = now - 20 * 3600 * 1000;
        assert_eq!(reload_since(now, Some(long_ago)), long_ago - 5_000, "a long one reaches back to its start");
    }
}
