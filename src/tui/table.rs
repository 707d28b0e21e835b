//! The task table's model: rows derived once per change (never per frame), sort, state filter,
//! search, marks, selection, and the ordered view of ids the table draws a window of.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::engine::TaskUpdate;
use crate::store::{EventRecord, TaskRecord};
use crate::text::{clean, excerpt};
use crate::tui::labels::{Filter, is_running, short_model, state_label};

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
    /// `aurora-3.0 · t2v`: the part that tells models apart, with the mode never cut.
    pub model_short: String,
    pub prompt: String,
    /// The state as the table writes it: an unrecognized status as the service sent it, a
    /// duplicate id as such.
    pub state_label: String,
    /// The first task of the batch or grid this one was sent with (its own id when alone).
    pub group: i64,
    /// Whether the saved file is still on disk, as last looked (`None`: not looked yet, or
    /// no file).
    pub file_present: Option<bool>,
    /// Lower-case prompt and negative prompt, for search.
    haystack: String,
}

/// Characters of prompt kept for the table; the detail pane shows the whole text.
const PROMPT_CHARS: usize = 160;
/// Tasks sent with the same text this close together belong to one batch or grid.
const GROUP_WINDOW_MS: i64 = 10_000;

impl Row {
    fn new(record: TaskRecord, eta_ms: Option<i64>) -> Row {
        let model = clean(&record.model);
        let model_short = short_model(&record.model);
        let prompt = excerpt(&record.prompt, PROMPT_CHARS);
        let state_label = state_label(&record);
        let haystack = format!("{} {}", record.prompt, record.negative_prompt.as_deref().unwrap_or("")).to_lowercase();
        let group = record.id;
        Row {
            record,
            eta_ms,
            transfer: None,
            model,
            model_short,
            prompt,
            state_label,
            group,
            file_present: None,
            haystack,
        }
    }

    /// Whether `self` was sent in the same batch or grid as `earlier`.
    fn same_batch(&self, earlier: &Row) -> bool {
        let (a, b) = (&self.record, &earlier.record);
        a.prompt == b.prompt
            && a.negative_prompt == b.negative_prompt
            && a.parent_id == b.parent_id
            && (a.created_at - b.created_at).abs() <= GROUP_WINDOW_MS
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
        let old = self.rows.get(&id);
        let transfer = old.and_then(|r| r.transfer);
        let kept_file = old.filter(|r| r.record.file_path == record.file_path).and_then(|r| r.file_present);
        let mut row = Row::new(record, eta_ms);
        if row.record.state.needs_download() {
            row.transfer = transfer;
        }
        row.file_present = kept_file;
        row.group = match old {
            Some(r) => r.group,
            None => self.rows.get(&(id - 1)).filter(|prev| row.same_batch(prev)).map_or(id, |prev| prev.group),
        };
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

    /// Forgets a task (its record was deleted).
    pub fn remove(&mut self, id: i64) -> bool {
        let Some(row) = self.rows.remove(&id) else { return false };
        self.running -= usize::from(is_running(row.record.state));
        self.marks.remove(&id);
        self.timelines.remove(&id);
        let keep = self.selected_id().filter(|s| *s != id);
        self.view.retain(|v| *v != id);
        self.reselect(keep);
        true
    }

    /// What a look at the disk found for a task's file.
    pub fn set_file_present(&mut self, id: i64, present: bool) {
        if let Some(r) = self.rows.get_mut(&id) {
            r.file_present = Some(present);
        }
    }

    /// Selects a task if it is shown.
    pub fn select(&mut self, id: i64) {
        if let Some(i) = self.view.iter().position(|v| *v == id) {
            self.selected = i;
        }
    }

    /// Whether the rows at `i` and `i + 1` of the view were sent together.
    pub fn grouped_with_next(&self, i: usize) -> bool {
        let group = |i: usize| self.view.get(i).and_then(|id| self.rows.get(id)).map(|r| r.group);
        group(i).is_some() && group(i) == group(i + 1)
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
    use crate::store::LocalState;
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
        t.prefs.filter = Filter::Active;
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

    #[test]
    fn rows_sent_together_form_a_group_and_deleted_ones_leave() {
        let mut t = table();
        let grid = |id: i64, created: i64, prompt: &str| update(id, LocalState::Queued, created, prompt);
        t.upsert(grid(4, 1_000, "a grid"));
        t.upsert(grid(5, 1_500, "a grid"));
        t.upsert(grid(6, 2_000, "a grid"));
        t.upsert(grid(7, 2_000, "another prompt"));
        t.upsert(grid(8, 60_000, "another prompt"));
        let groups: Vec<i64> = (4..=8).map(|id| t.row(id).map_or(0, |r| r.group)).collect();
        assert_eq!(groups, vec![4, 4, 4, 7, 8], "same text, sent within seconds");
        t.prefs.sort = Sort::Oldest;
        t.rebuild();
        let at = |t: &Table, id: i64| t.view.iter().position(|v| *v == id).unwrap_or(usize::MAX);
        assert!(t.grouped_with_next(at(&t, 4)) && t.grouped_with_next(at(&t, 5)));
        assert!(!t.grouped_with_next(at(&t, 6)) && !t.grouped_with_next(at(&t, 7)));
        t.select(5);
        t.marks.insert(5);
        assert!(t.remove(5));
        assert!(t.row(5).is_none() && !t.view.contains(&5) && t.marks.is_empty());
        assert!(t.selected_id().is_some(), "a neighbour is selected");
        assert!(!t.remove(5), "only once");
    }
}
