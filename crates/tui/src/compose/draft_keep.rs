//! When the form's unsent draft is written to disk as it changes, not only on a clean quit: once
//! it has differed from what the file holds for [`DEBOUNCE_MS`], so typing writes about once a
//! second and never once per key. Pure: the draft now and the clock in, the write to make out.

use crate::compose::Saved;

/// How long a change waits before it is written.
pub const DEBOUNCE_MS: i64 = 1_000;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DraftKeeper {
    /// What the file holds, as far as this run knows (`None`: no file).
    written: Option<Saved>,
    /// Since when the form has differed from `written`.
    changed_at: Option<i64>,
}

impl DraftKeeper {
    /// The file holds `saved` (the draft put back at start).
    pub fn restored(saved: Saved) -> DraftKeeper {
        DraftKeeper { written: Some(saved), changed_at: None }
    }

    /// The form holds `current` at `now`: the write to make now, if one is due (`Some(None)`
    /// removes the file: the draft was sent or cleared).
    pub fn note(&mut self, current: Option<Saved>, now: i64) -> Option<Option<Saved>> {
        if current == self.written {
            self.changed_at = None;
            return None;
        }
        let since = *self.changed_at.get_or_insert(now);
        if now - since < DEBOUNCE_MS {
            return None;
        }
        self.written = current.clone();
        self.changed_at = None;
        Some(current)
    }

    /// When the pending write falls due, if one is pending.
    pub fn due_ms(&self) -> Option<i64> {
        self.changed_at.map(|t| t + DEBOUNCE_MS)
    }

    /// The file was written with `saved` by another way (the quit).
    pub fn wrote(&mut self, saved: Option<Saved>) {
        self.written = saved;
        self.changed_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(prompt: &str) -> Option<Saved> {
        let mut s = Saved::default();
        s.draft.prompt = prompt.into();
        Some(s)
    }

    #[test]
    fn a_change_is_written_once_it_has_stood_for_the_debounce() {
        let mut k = DraftKeeper::default();
        // (form now, at ms, write expected)
        let steps: Vec<(Option<Saved>, i64, Option<Option<Saved>>)> = vec![
            (None, 0, None),
            (draft("a"), 100, None),
            (draft("a f"), 600, None),
            (draft("a fo"), 1_099, None),
            (draft("a fox"), 1_100, Some(draft("a fox"))),
            (draft("a fox"), 5_000, None),
            (draft("a fox!"), 5_100, None),
            (draft("a fox"), 5_200, None),
            (draft("a fox"), 9_000, None),
            (None, 9_100, None),
            (None, 10_100, Some(None)),
        ];
        for (i, (current, now, want)) in steps.into_iter().enumerate() {
            assert_eq!(k.note(current, now), want, "step {i} at {now}");
        }
        assert_eq!(k.due_ms(), None);
    }

    #[test]
    fn a_restored_draft_is_not_written_again_and_a_pending_one_says_when() {
        let mut k = DraftKeeper::restored(draft("kept").expect("a draft"));
        assert_eq!(k.note(draft("kept"), 0), None);
        assert_eq!(k.note(draft("kept, more"), 50), None);
        assert_eq!(k.due_ms(), Some(50 + DEBOUNCE_MS));
        k.wrote(draft("kept, more"));
        assert_eq!((k.due_ms(), k.note(draft("kept, more"), 5_000)), (None, None));
    }
}
