//! The history screen's model: the query (remembered between runs), pages read from SQLite as
//! the list scrolls, lineage and the ledger of the selected range.

use serde::{Deserialize, Serialize};

use crate::engine::ledger::Ledger;
use crate::engine::query::HistoryRow;
use crate::store::history::{HistoryQuery, Order};
use crate::store::{LocalState, TaskRecord};

/// Rows read per page.
pub const PAGE: usize = 200;
/// Read the next page when the selection comes this close to the end.
const AHEAD: usize = 50;

/// The date range, relative to now (so "last 7 days" stays true between runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Span {
    #[default]
    All,
    Today,
    Week,
    Month,
}

impl Span {
    pub fn next(self) -> Span {
        match self {
            Span::All => Span::Today,
            Span::Today => Span::Week,
            Span::Week => Span::Month,
            Span::Month => Span::All,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Span::All => "all time",
            Span::Today => "today",
            Span::Week => "last 7 days",
            Span::Month => "last 30 days",
        }
    }

    /// The first Unix ms of the span; `today_ms` is the start of today.
    pub fn since(self, today_ms: i64) -> Option<i64> {
        const DAY: i64 = 86_400_000;
        match self {
            Span::All => None,
            Span::Today => Some(today_ms),
            Span::Week => Some(today_ms - 6 * DAY),
            Span::Month => Some(today_ms - 29 * DAY),
        }
    }
}

/// What the history screen remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    pub text: String,
    pub model: Option<String>,
    pub state: Option<LocalState>,
    pub span: Span,
    pub order: Order,
}

impl Filters {
    pub fn query(&self, today_ms: i64) -> HistoryQuery {
        HistoryQuery {
            text: self.text.clone(),
            model: self.model.clone(),
            state: self.state,
            since: self.span.since(today_ms),
            until: None,
            order: self.order,
        }
    }
}

/// Cycles through `None` then every choice.
pub fn cycle<T: Clone + PartialEq>(current: &Option<T>, choices: &[T]) -> Option<T> {
    match current {
        None => choices.first().cloned(),
        Some(c) => choices.iter().position(|x| x == c).and_then(|i| choices.get(i + 1)).cloned(),
    }
}

#[derive(Debug, Default)]
pub struct History {
    pub filters: Filters,
    pub rows: Vec<HistoryRow>,
    pub selected: usize,
    /// No more pages behind the last row.
    pub done: bool,
    pub loading: bool,
    /// Results of an older query are dropped.
    pub generation: u64,
    pub typing: bool,
    pub models: Vec<String>,
    /// Parent and children of the selected task, once loaded.
    pub lineage: Option<(i64, Option<TaskRecord>, Vec<TaskRecord>)>,
    pub ledger: Option<Ledger>,
    pub show_ledger: bool,
    /// The task a delete waits confirmation for.
    pub confirm_delete: Option<i64>,
}

impl History {
    pub fn selected_row(&self) -> Option<&HistoryRow> {
        self.rows.get(self.selected)
    }

    /// Starts over with the current filters; returns the generation of the new query.
    pub fn restart(&mut self) -> u64 {
        self.generation += 1;
        self.rows.clear();
        self.selected = 0;
        self.done = false;
        self.loading = true;
        self.lineage = None;
        self.generation
    }

    /// The cursor for the next page, when one is due.
    pub fn wants_more(&self) -> Option<Option<i64>> {
        let near_end = self.selected + AHEAD >= self.rows.len();
        (!self.done && !self.loading && near_end).then(|| self.rows.last().map(|r| r.record.id))
    }

    /// A page arrived; stale ones (older generations) are ignored. Returns whether it was used.
    pub fn add_page(&mut self, generation: u64, rows: Vec<HistoryRow>) -> bool {
        if generation != self.generation {
            return false;
        }
        self.done = rows.len() < PAGE;
        self.loading = false;
        self.rows.extend(rows);
        true
    }

    pub fn move_by(&mut self, delta: isize) {
        if self.rows.is_empty() {
            return;
        }
        let last = self.rows.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
    }
}

/// One piece of a word diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Same(String),
    Added(String),
    Removed(String),
}

/// Word-level difference from `old` to `new` (longest common subsequence of words).
pub fn word_diff(old: &str, new: &str) -> Vec<Piece> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    // Prompts are short; cap the table so a pathological pair cannot stall the screen.
    if a.len() * b.len() > 250_000 {
        return vec![Piece::Removed(old.to_string()), Piece::Added(new.to_string())];
    }
    let mut lcs = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Piece::Same(a[i].to_string()));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(Piece::Added(b[j].to_string()));
            j += 1;
        } else {
            out.push(Piece::Removed(a[i].to_string()));
            i += 1;
        }
    }
    out
}

/// The settings that differ between a parent and a child, as "name old → new".
pub fn settings_diff(parent: &TaskRecord, child: &TaskRecord) -> Vec<String> {
    let mut out = Vec::new();
    let mut cmp = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{name} {a} → {b}"));
        }
    };
    cmp("model", parent.model.clone(), child.model.clone());
    cmp("seconds", parent.seconds.to_string(), child.seconds.to_string());
    cmp("resolution", parent.resolution.clone(), child.resolution.clone());
    cmp("ratio", parent.ratio.clone(), child.ratio.clone());
    cmp("watermark", parent.watermark.to_string(), child.watermark.to_string());
    cmp(
        "negative",
        parent.negative_prompt.clone().unwrap_or_default(),
        child.negative_prompt.clone().unwrap_or_default(),
    );
    cmp("media", format!("{} item(s)", parent.media.len()), format!("{} item(s)", child.media.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures::record;

    #[test]
    fn word_diffs() {
        use Piece::*;
        let s = |x: &str| x.to_string();
        let cases: Vec<(&str, &str, Vec<Piece>)> = vec![
            ("a red fox", "a red fox", vec![Same(s("a")), Same(s("red")), Same(s("fox"))]),
            ("a red fox", "a blue fox", vec![Same(s("a")), Added(s("blue")), Removed(s("red")), Same(s("fox"))]),
            ("a fox", "a fox in snow", vec![Same(s("a")), Same(s("fox")), Added(s("in")), Added(s("snow"))]),
            ("slow a fox", "a fox", vec![Removed(s("slow")), Same(s("a")), Same(s("fox"))]),
            ("", "new", vec![Added(s("new"))]),
        ];
        for (old, new, want) in cases {
            assert_eq!(word_diff(old, new), want, "{old} → {new}");
        }
    }

    #[test]
    fn settings_diffs_name_what_changed() {
        let parent = record(1, LocalState::Downloaded);
        let mut child = record(2, LocalState::Downloaded);
        child.seconds = 10;
        child.ratio = "9:16".into();
        assert_eq!(settings_diff(&parent, &child), vec!["seconds 5 → 10", "ratio 16:9 → 9:16"]);
    }

    #[test]
    fn pages_and_generations() {
        let mut h = History::default();
        let g = h.restart();
        assert_eq!(h.wants_more(), None, "a page is on its way");
        let page: Vec<HistoryRow> = (0..PAGE as i64)
            .map(|i| HistoryRow { record: record(1000 - i, LocalState::Downloaded), file_present: Some(true) })
            .collect();
        assert!(!h.add_page(g + 1, page.clone()), "a stale page is dropped");
        assert!(h.add_page(g, page));
        assert_eq!(h.wants_more(), None, "far from the end");
        h.move_by(PAGE as isize);
        assert_eq!(h.wants_more(), Some(Some(1000 - PAGE as i64 + 1)));
        assert!(h.add_page(g, vec![]));
        assert!(h.done);
    }

    #[test]
    fn spans_and_cycles() {
        assert_eq!(Span::Week.since(700_000_000), Some(700_000_000 - 6 * 86_400_000));
        assert_eq!(Span::All.since(1), None);
        let models = vec!["a".to_string(), "b".to_string()];
        assert_eq!(cycle(&None, &models), Some("a".to_string()));
        assert_eq!(cycle(&Some("a".to_string()), &models), Some("b".to_string()));
        assert_eq!(cycle(&Some("b".to_string()), &models), None);
    }
}
