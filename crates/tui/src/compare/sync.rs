//! Playing takes together: one clock for all of them, and for each take the frame of its clip
//! that clock shows. A shorter take holds its last frame until the longest ends; then all
//! start over together. Pure: times in, frame numbers out.

/// The one clock of a compare's playback, in the dashboard's milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    started_ms: i64,
    /// Since when it is paused, if it is.
    paused_at: Option<i64>,
    /// Time spent paused before, not counted.
    paused_ms: i64,
}

impl Clock {
    pub fn start(now_ms: i64) -> Clock {
        Clock { started_ms: now_ms, paused_at: None, paused_ms: 0 }
    }

    /// Playing time at `now_ms`: what has passed since the start, less the pauses.
    pub fn elapsed(&self, now_ms: i64) -> i64 {
        let until = self.paused_at.unwrap_or(now_ms);
        (until - self.started_ms - self.paused_ms).max(0)
    }

    pub fn paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Pauses, or goes on from where it was paused; whether it is paused now.
    pub fn toggle(&mut self, now_ms: i64) -> bool {
        match self.paused_at.take() {
            Some(at) => self.paused_ms += (now_ms - at).max(0),
            None => self.paused_at = Some(now_ms),
        }
        self.paused()
    }
}

/// The frame each take shows `elapsed_ms` into playback at `fps`, for clips of `lens` frames:
/// the same moment in every take, the last frame of one that has ended, `None` for a take
/// with no frames. The whole starts over after the longest clip.
pub fn frames_at(elapsed_ms: i64, fps: u32, lens: &[usize]) -> Vec<Option<usize>> {
    let longest = lens.iter().copied().max().unwrap_or(0);
    if longest == 0 {
        return vec![None; lens.len()];
    }
    let tick = (elapsed_ms.max(0) as u128 * u128::from(fps) / 1000) as usize;
    let at = tick % longest;
    lens.iter().map(|&n| (n > 0).then(|| at.min(n - 1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_take_shows_the_same_moment_and_a_short_one_holds_its_last_frame() {
        // (elapsed ms, fps, clip lengths, frames shown)
        type Case = (i64, u32, &'static [usize], &'static [Option<usize>]);
        let cases: [Case; 9] = [
            (0, 10, &[50, 50], &[Some(0), Some(0)]),
            (99, 10, &[50, 50], &[Some(0), Some(0)]),
            (100, 10, &[50, 50], &[Some(1), Some(1)]),
            (2_500, 10, &[50, 30], &[Some(25), Some(25)]),
            (3_500, 10, &[50, 30], &[Some(35), Some(29)]),
            (4_999, 10, &[50, 30, 10], &[Some(49), Some(29), Some(9)]),
            (5_000, 10, &[50, 30], &[Some(0), Some(0)]),
            (1_000, 10, &[50, 0], &[Some(10), None]),
            (1_000, 10, &[0, 0], &[None, None]),
        ];
        for (elapsed, fps, lens, want) in cases {
            assert_eq!(frames_at(elapsed, fps, lens), want, "{elapsed} ms at {fps} fps of {lens:?}");
        }
        assert_eq!(frames_at(-5, 10, &[3]), [Some(0)], "a clock before its start shows the first frame");
    }

    #[test]
    fn the_clock_stands_still_while_paused() {
        let mut c = Clock::start(1_000);
        assert_eq!(c.elapsed(1_400), 400);
        assert!(c.toggle(1_500), "paused");
        assert_eq!(c.elapsed(9_000), 500, "no time passes while paused");
        assert!(!c.toggle(10_000), "going on");
        assert_eq!(c.elapsed(10_250), 750);
        assert!(c.toggle(10_300));
        assert!(!c.toggle(10_300));
        assert_eq!(c.elapsed(10_400), 900);
        assert_eq!(Clock::start(5_000).elapsed(4_000), 0, "never negative");
    }
}
