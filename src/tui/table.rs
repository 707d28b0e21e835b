//! The task table's model: rows derived once per change (never per frame), sort, state filter,
//! search, marks, selection, and the ordered view of ids the table draws a window of.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::engine::TaskUpdate;
use crate::store::{EventRecord, LocalState, TaskRecord};
use crate::text::{clean, excerpt};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Sort {
    #[default]
    Newest,
    Oldest,
    State,
    Model,
}

impl Sort {
    pub fn next(self) -> Sort {
        match self {
            Sort::Newest => Sort::Oldest,
            Sort::Oldest => Sort::State,
            Sort::State => Sort::Model,
            Sort::Model => Sort::Newest,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Sort::Newest => "newest first",
            Sort::Oldest => "oldest first",
            Sort::State => "by state",
            Sort::Model => "by model",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Filter {
    #[default]
    All,
    /// Being sent, polled or downloading.
    Running,
    Saved,
    /// Failed, rejected, lost, expired, stalled, unknown or a failed download.
    Problems,
}

impl Filter {
    pub fn next(self) -> Filter {
        match self {
            Filter::All => Filter::Running,
            Filter::Running => Filter::Saved,
            Filter::Saved => Filter::Problems,
            Filter::Problems => Filter::All,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Running => "running",
            Filter::Saved => "saved",
            Filter::Problems => "problems",
        }
    }

    pub fn admits(self, s: LocalState) -> bool {
        match self {
            Filter::All => true,
            Filter::Running => is_running(s),
            Filter::Saved => s == LocalState::Downloaded,
            Filter::Problems => !is_running(s) && s != LocalState::Downloaded,
        }
    }
}

/// The engine still works on it.
pub fn is_running(s: LocalState) -> bool {
    s.is_sending() || (s.is_polled() && s != LocalState::Stalled) || s.needs_download()
}

/// Download progress of one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transfer {
    pub bytes: u64,
    pub total: Option<u64>,
    pub rate: f64,
}

/// One task, with the text the table shows already cleaned and cut.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub record: TaskRecord,
    pub eta_ms: Option<i64>,
    pub transfer: Option<Transfer>,
    pub model: String,
    pub prompt: String,
    /// Lower-case prompt and negative prompt, for search.
    haystack: String,
}

/// Characters of prompt kept for the table; the detail pane shows the whole text.
const PROMPT_CHARS: usize = 160;

impl Row {
    fn new(record: TaskRecord, eta_ms: Option<i64>) -> Row {
        let model = clean(&record.model);
        let prompt = excerpt(&record.prompt, PROMPT_CHARS);
        let haystack = format!("{} {}", record.prompt, record.negative_prompt.as_deref().unwrap_or("")).to_lowercase();
        Row { record, eta_ms, transfer: None, model, prompt, haystack }
    }
}

/// Screen preferences kept between runs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Prefs {
    pub sort: Sort,
    pub filter: Filter,
    #[serde(default)]
    pub history: super::history::Filters,
}

#[derive(Debug, Default)]
pub struct Table {
    rows: HashMap<i64, Row>,
    /// Ids in display order, after filter and search.
    pub view: Vec<i64>,
    pub selected: usize,
    pub marks: BTreeSet<i64>,
    pub prefs: Prefs,
    pub search: String,
    pub searching: bool,
    /// Timelines loaded for the detail pane.
    pub timelines: HashMap<i64, Vec<EventRecord>>,
    /// Tasks the engine still works on, kept as rows change.
    running: usize,
}

fn order(sort: Sort, a: &Row, b: &Row) -> std::cmp::Ordering {
    let newest = (b.record.created_at, b.record.id).cmp(&(a.record.created_at, a.record.id));
    match sort {
        Sort::Newest => newest,
        Sort::Oldest => newest.reverse(),
        Sort::State => a.record.state.cmp(&b.record.state).then(newest),
        Sort::Model => a.model.cmp(&b.model).then(newest),
    }
}

impl Table {
    pub fn new(prefs: Prefs) -> Table {
        Table { prefs, ..Table::default() }
    }

    pub fn row(&self, id: i64) -> Option<&Row> {
        self.rows.get(&id)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.values()
    }

    pub fn selected_id(&self) -> Option<i64> {
        self.view.get(self.selected).copied()
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.selected_id().and_then(|id| self.rows.get(&id))
    }

    /// The marked tasks, or the selected one when nothing is marked.
    pub fn targets(&self) -> Vec<i64> {
        if self.marks.is_empty() {
            self.selected_id().into_iter().collect()
        } else {
            self.marks.iter().copied().collect()
        }
    }

    fn visible(&self, row: &Row) -> bool {
        self.prefs.filter.admits(row.record.state)
            && (self.search.is_empty() || row.haystack.contains(&self.search.to_lowercase()))
    }

    /// Recomputes the view from scratch, keeping the selected task selected.
    pub fn rebuild(&mut self) {
        let keep = self.selected_id();
        let mut rows: Vec<&Row> = self.rows.values().filter(|r| self.visible(r)).collect();
        let sort = self.prefs.sort;
        rows.sort_by(|a, b| order(sort, a, b));
        self.view = rows.iter().map(|r| r.record.id).collect();
        self.reselect(keep);
    }

    fn reselect(&mut self, keep: Option<i64>) {
        self.selected = keep.and_then(|id| self.view.iter().position(|v| *v == id)).unwrap_or(self.selected);
        self.selected = self.selected.min(self.view.len().saturating_sub(1));
    }

    /// Position of `id` in the view under a sort whose key never changes (by creation).
    fn slot(&self, row: &Row) -> Result<usize, usize> {
        let sort = self.prefs.sort;
        self.view
            .binary_search_by(|id| self.rows.get(id).map_or(std::cmp::Ordering::Less, |other| order(sort, other, row)))
    }

    /// Adds or updates a task. Under the default sorts this costs a hash lookup and, when the
    /// task enters or leaves the view, one binary search; other sorts rebuild the view.
    pub fn upsert(&mut self, update: TaskUpdate) {
        let TaskUpdate { record, eta_ms } = update;
        let id = record.id;
        let old_state = self.rows.get(&id).map(|r| r.record.state);
        self.running -= usize::from(old_state.is_some_and(is_running));
        self.running += usize::from(is_running(record.state));
        let transfer = self.rows.get(&id).and_then(|r| r.transfer);
        let mut row = Row::new(record, eta_ms);
        if row.record.state.needs_download() {
            row.transfer = transfer;
        }
        let now_visible = self.visible(&row);
        let sort_by_creation = matches!(self.prefs.sort, Sort::Newest | Sort::Oldest);
        let state_changed = old_state != Some(row.record.state);
        if let Some(t) = self.timelines.get_mut(&id)
            && state_changed
        {
            t.push(EventRecord { at: row.record.updated_at, state: row.record.state.to_string(), detail: None });
        }
        if !sort_by_creation && (state_changed || old_state.is_none()) {
            self.rows.insert(id, row);
            self.rebuild();
            return;
        }
        let keep = self.selected_id();
        let was_visible = old_state.is_some() && self.slot(&row).is_ok();
        self.rows.insert(id, row);
        let row = &self.rows[&id];
        match (was_visible, now_visible) {
            (false, true) => {
                if let Err(at) = self.slot(row) {
                    self.view.insert(at, id);
                    if keep.is_some() && at <= self.selected {
                        self.selected += 1;
                    }
                }
            }
            (true, false) => {
                if let Ok(at) = self.slot(row) {
                    self.view.remove(at);
                }
                self.reselect(keep);
            }
            _ => {}
        }
    }

    pub fn set_transfer(&mut self, id: i64, transfer: Transfer) -> bool {
        match self.rows.get_mut(&id) {
            Some(r) => {
                r.transfer = Some(transfer);
                true
            }
            None => false,
        }
    }

    pub fn move_by(&mut self, delta: isize) {
        if self.view.is_empty() {
            return;
        }
        let last = self.view.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
    }

    pub fn toggle_mark(&mut self) {
        if let Some(id) = self.selected_id()
            && !self.marks.remove(&id)
        {
            self.marks.insert(id);
        }
    }

    /// Tasks the engine still works on.
    pub fn running(&self) -> usize {
        self.running
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures::record;

    fn update(id: i64, state: LocalState, created: i64, prompt: &str) -> TaskUpdate {
        let mut r = record(id, state);
        r.created_at = created;
        r.prompt = prompt.into();
        TaskUpdate { record: r, eta_ms: None }
    }

    fn table() -> Table {
        let mut t = Table::new(Prefs::default());
        t.upsert(update(1, LocalState::Downloaded, 100, "a red fox"));
        t.upsert(update(2, LocalState::InProgress, 200, "a blue whale"));
        t.upsert(update(3, LocalState::Failed, 300, "a green frog"));
        t
    }

    #[test]
    fn newest_first_and_incremental_updates_keep_order_and_selection() {
        let mut t = table();
        assert_eq!(t.view, vec![3, 2, 1]);
        t.selected = 1;
        t.upsert(update(4, LocalState::Submitting, 400, "new"));
        assert_eq!(t.view, vec![4, 3, 2, 1]);
        assert_eq!(t.selected_id(), Some(2), "the selection follows its task");
        t.upsert(update(2, LocalState::Completed, 200, "a blue whale"));
        assert_eq!(t.view, vec![4, 3, 2, 1]);
    }

    #[test]
    fn filters_search_and_sorts() {
        let mut t = table();
        t.prefs.filter = Filter::Running;
        t.rebuild();
        assert_eq!(t.view, vec![2]);
        t.upsert(update(2, LocalState::Downloaded, 200, "a blue whale"));
        assert!(t.view.is_empty(), "it left the running filter");
        t.prefs.filter = Filter::Problems;
        t.rebuild();
        assert_eq!(t.view, vec![3]);
        t.prefs.filter = Filter::All;
        t.search = "FOX".into();
        t.rebuild();
        assert_eq!(t.view, vec![1], "search ignores case");
        t.search.clear();
        t.prefs.sort = Sort::Oldest;
        t.rebuild();
        assert_eq!(t.view, vec![1, 2, 3]);
        t.prefs.sort = Sort::State;
        t.rebuild();
        assert_eq!(t.view, vec![2, 1, 3], "downloaded sorts after in_progress, failed last");
    }

    #[test]
    fn marks_are_targets_and_moves_are_clamped() {
        let mut t = table();
        assert_eq!(t.targets(), vec![1], "the first task stays selected as newer ones arrive above it");
        t.selected = 0;
        assert_eq!(t.targets(), vec![3]);
        t.toggle_mark();
        t.move_by(5);
        t.toggle_mark();
        assert_eq!(t.targets(), vec![1, 3]);
        t.move_by(-10);
        assert_eq!(t.selected, 0);
        assert_eq!(t.running(), 1);
    }
}
