//! When a transfer counts as stalled: fewer than `min_bytes` over the last `window` (a sliding
//! window, so a burst at the start cannot buy a trickle a second window). Pure: the clock is
//! passed in.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// A transfer that moves fewer than `min_bytes` in `window` is cut (and resumed later), so a
/// trickling server cannot hold a download slot while other URLs expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StallRule {
    pub window: Duration,
    pub min_bytes: u64,
}

impl Default for StallRule {
    fn default() -> Self {
        StallRule { window: Duration::from_secs(30), min_bytes: 1024 }
    }
}

/// Samples of (time, bytes received so far) are merged into slots of this fraction of the
/// window: memory stays small on fast transfers, and a cut comes at most a slot late, never
/// early (a merged sample only forgets that bytes arrived earlier).
const SLOTS: u32 = 64;

#[derive(Debug)]
pub struct StallWatch {
    rule: StallRule,
    /// Oldest first; the first is at or before `now - window` once the transfer is that old.
    samples: VecDeque<(Instant, u64)>,
    total: u64,
}

impl StallWatch {
    pub fn new(rule: StallRule, start: Instant) -> StallWatch {
        StallWatch { rule, samples: VecDeque::from([(start, 0)]), total: 0 }
    }

    /// `bytes` more arrived at `at`.
    pub fn record(&mut self, at: Instant, bytes: u64) {
        self.total += bytes;
        let slot = self.rule.window / SLOTS;
        // The start sample stays as it is: it dates the transfer.
        let merge =
            self.samples.len() > 1 && self.samples.back().is_some_and(|l| at.saturating_duration_since(l.0) < slot);
        match self.samples.back_mut() {
            Some(last) if merge => *last = (at, self.total),
            _ => self.samples.push_back((at, self.total)),
        }
        // Only the latest sample at or before `at - window` is still needed.
        while self.samples.len() > 1 && self.samples[1].0 + self.rule.window <= at {
            self.samples.pop_front();
        }
    }

    /// The moment the transfer stalls if nothing more arrives: a window after the earliest
    /// sample from which fewer than `min_bytes` have arrived since. `None`: it never stalls.
    pub fn deadline(&self) -> Option<Instant> {
        let min = self.rule.min_bytes;
        self.samples.iter().find(|(_, cum)| cum + min > self.total).map(|(at, _)| *at + self.rule.window)
    }

    /// Bytes over the last window, when the transfer has stalled at `now`.
    pub fn stalled(&self, now: Instant) -> Option<u64> {
        if now < self.deadline()? {
            return None;
        }
        let since = now.checked_sub(self.rule.window)?;
        let before = self.samples.iter().rev().find(|(at, _)| *at <= since).map_or(0, |(_, cum)| *cum);
        Some(self.total - before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;

    fn rule() -> StallRule {
        StallRule { window: Duration::from_secs(30), min_bytes: KIB }
    }

    /// Replays (second, bytes) arrivals and returns the second at which the transfer is cut,
    /// checking every tenth of a second up to `until`.
    fn cut_at(arrivals: &[(f64, u64)], until: f64) -> Option<f64> {
        let t0 = Instant::now();
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        let mut w = StallWatch::new(rule(), t0);
        let mut next = 0;
        for step in 0..=(until * 10.0) as u64 {
            let now = step as f64 / 10.0;
            while next < arrivals.len() && arrivals[next].0 <= now {
                w.record(at(arrivals[next].0), arrivals[next].1);
                next += 1;
            }
            if w.stalled(at(now)).is_some() {
                return Some(now);
            }
        }
        None
    }

    #[test]
    fn stalls_by_a_sliding_window() {
        let steady: Vec<(f64, u64)> = (0..200).map(|s| (s as f64 * 0.5, 4 * KIB)).collect();
        let trickle_after_burst: Vec<(f64, u64)> =
            std::iter::once((0.1, KIB)).chain((1..10).map(|i| (i as f64 * 20.0, 1))).collect();
        let per_window: Vec<(f64, u64)> = (0..6).map(|i| (i as f64 * 29.0 + 0.5, KIB)).collect();
        type Case = (&'static str, Vec<(f64, u64)>, f64, Option<f64>);
        let cases: [Case; 6] = [
            ("nothing at all", vec![], 60.0, Some(30.0)),
            ("a steady transfer", steady, 99.0, None),
            // A fixed window restarted at 30 s would let this run to 60 s.
            ("1 KiB at once, then a byte every 20 s", trickle_after_burst, 90.0, Some(30.1)),
            ("just under 1 KiB, then nothing", vec![(1.0, KIB - 1)], 60.0, Some(30.0)),
            ("1 KiB every 29 s keeps going", per_window, 170.0, None),
            ("fast, then nothing from 40 s", (0..80).map(|s| (s as f64 * 0.5, 8 * KIB)).collect(), 120.0, Some(69.5)),
        ];
        for (name, arrivals, until, want) in cases {
            let got = cut_at(&arrivals, until);
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => assert!(g >= w && g <= w + 30.0 / 64.0 + 0.11, "{name}: cut at {g}, want {w}"),
                _ => panic!("{name}: cut at {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn a_fast_transfer_keeps_few_samples() {
        let t0 = Instant::now();
        let mut w = StallWatch::new(rule(), t0);
        for i in 0..100_000u64 {
            w.record(t0 + Duration::from_millis(i), 16 * KIB);
        }
        assert!(w.samples.len() <= SLOTS as usize + 2, "{} samples", w.samples.len());
        assert_eq!(w.stalled(t0 + Duration::from_millis(100_000)), None);
    }
}
