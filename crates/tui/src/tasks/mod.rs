//! The task table (the dashboard's middle pane): its model here, rows derived once per change
//! (never per frame), sort, state filter, search, marks, selection, and the ordered view of ids
//! the table draws a window of. `columns` fits them to the width, `update` takes the table's
//! keys, `bulk` the actions on many tasks, `view` draws it.

pub mod bulk;
pub mod columns;
pub mod effects;
pub mod update;
pub mod view;

use std::collections::{BTreeSet, HashMap};

use crate::labels::{Filter, is_running, short_model, state_label};
use crate::prefs::Sort;
use reel_engine::TaskUpdate;
use reel_rules::text::{clean, excerpt};
use reel_store::{EventRecord, LocalState, TaskRecord};

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
    /// The batch this task was sent in, as the engine recorded it (its own id when alone).
    pub group: i64,
    /// Whether the saved file is still on disk, as last looked (`None`: not looked yet, or
    /// no file).
    pub file_present: Option<bool>,
}

/// Characters of prompt kept for the table; the detail pane shows the whole text.
const PROMPT_CHARS: usize = 160;

impl Row {
    fn new(record: TaskRecord, eta_ms: Option<i64>) -> Row {
        let model = clean(&record.model);
        let model_short = short_model(&record.model);
        let prompt = excerpt(&record.prompt, PROMPT_CHARS);
        let state_label = state_label(&record);
        let group = record.batch_id.unwrap_or(record.id);
        Row { record, eta_ms, transfer: None, model, model_short, prompt, state_label, group, file_present: None }
    }
}

/// The task table. Its fields are its own: every change goes through a method that keeps the
/// view sorted and filtered, the selection in range and the count of running tasks true.
#[derive(Debug, Default)]
pub struct Table {
    rows: HashMap<i64, Row>,
    /// Ids in display order, after filter and search.
    view: Vec<i64>,
    selected: usize,
    marks: BTreeSet<i64>,
    sort: Sort,
    filter: Filter,
    search: String,
    /// `search` read as the history reads it (words by prefix, `rating:`, `tag:`, `picked`).
    parsed: reel_store::history::Search,
    searching: bool,
    /// Timelines loaded for the detail pane.
    timelines: HashMap<i64, Vec<EventRecord>>,
    /// Tasks the engine still works on, kept as rows change.
    running: usize,
    /// Tasks rated or picked, kept as rows change: whether the review column is drawn is asked
    /// every frame, and must not cost a pass over 100,000 rows.
    reviewed: usize,
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
    pub fn new(sort: Sort, filter: Filter) -> Table {
        Table { sort, filter, ..Table::default() }
    }

    /// Ids in display order, after filter and search.
    pub fn view(&self) -> &[i64] {
        &self.view
    }

    /// The position of the selected task in the view.
    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn marks(&self) -> &BTreeSet<i64> {
        &self.marks
    }

    pub fn sort(&self) -> Sort {
        self.sort
    }

    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The search text, and whether it is being typed.
    pub fn search(&self) -> (&str, bool) {
        (&self.search, self.searching)
    }

    pub fn timeline(&self, id: i64) -> Option<&[EventRecord]> {
        self.timelines.get(&id).map(Vec::as_slice)
    }

    /// The journal's timeline of a task, a state written once however often it was logged in
    /// a row (the engine may note it again with a new detail).
    pub fn set_timeline(&mut self, id: i64, events: Vec<EventRecord>) {
        let mut kept: Vec<EventRecord> = Vec::with_capacity(events.len());
        for e in events {
            match kept.last_mut() {
                Some(last) if last.state == e.state => {
                    // The first time is when the state began; the latest detail is the news.
                    if e.detail.as_deref().is_some_and(|d| !d.is_empty()) {
                        last.detail = e.detail;
                    }
                }
                _ => kept.push(e),
            }
        }
        self.timelines.insert(id, kept);
    }

    /// Forgets the loaded timelines (the engine may have written events meanwhile).
    pub fn forget_timelines(&mut self) {
        self.timelines.clear();
    }

    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        self.rebuild();
    }

    pub fn set_filter(&mut self, filter: Filter) {
        self.filter = filter;
        self.rebuild();
    }

    /// Starts typing a search (`/`).
    pub fn start_search(&mut self) {
        self.searching = true;
    }

    /// Stops typing the search; it keeps filtering.
    pub fn stop_search(&mut self) {
        self.searching = false;
    }

    /// Edits the search text with `edit` and filters again.
    pub fn edit_search(&mut self, edit: impl FnOnce(&mut String)) {
        edit(&mut self.search);
        self.search.truncate(200);
        self.parsed = reel_store::history::Search::parse(&self.search);
        self.rebuild();
    }

    /// Drops the search (typed or kept): every task of the filter shows again.
    pub fn clear_search(&mut self) {
        self.searching = false;
        if !self.search.is_empty() {
            self.search.clear();
            self.parsed = Default::default();
            self.rebuild();
        }
    }

    pub fn clear_marks(&mut self) {
        self.marks.clear();
    }

    /// Selects the task at `index` of the view (clamped).
    pub fn select_at(&mut self, index: usize) {
        self.selected = index.min(self.view.len().saturating_sub(1));
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
        self.filter.admits(row.record.state) && (self.search.is_empty() || self.parsed.admits(&row.record))
    }

    /// Recomputes the view from scratch, keeping the selected task selected.
    fn rebuild(&mut self) {
        let keep = self.selected_id();
        let mut rows: Vec<&Row> = self.rows.values().filter(|r| self.visible(r)).collect();
        let sort = self.sort;
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
        let sort = self.sort;
        self.view
            .binary_search_by(|id| self.rows.get(id).map_or(std::cmp::Ordering::Less, |other| order(sort, other, row)))
    }

    /// Shows the tasks read from the store. On a table that was empty (the start, a reload)
    /// the newest task is selected, as after a send, so the table opens at its top.
    pub fn load(&mut self, mut records: Vec<TaskRecord>) {
        let was_empty = self.rows.is_empty();
        // Oldest first, so that each task finds the batch it was sent with.
        records.sort_by_key(|r| r.id);
        for record in records {
            self.put(TaskUpdate { record, eta_ms: None });
        }
        self.rebuild();
        if was_empty && let Some(newest) = self.newest() {
            self.select(newest);
        }
    }

    /// The most recently created task shown.
    fn newest(&self) -> Option<i64> {
        self.view
            .iter()
            .filter_map(|id| self.rows.get(id))
            .max_by_key(|r| (r.record.created_at, r.record.id))
            .map(|r| r.record.id)
    }

    /// Adds or updates a task. Under the default sorts this costs a hash lookup and, when the
    /// task enters or leaves the view, one binary search; other sorts rebuild the view.
    pub fn upsert(&mut self, update: TaskUpdate) {
        let keep = self.selected_id();
        let id = update.record.id;
        let old_state = self.put(update);
        let sort_by_creation = matches!(self.sort, Sort::Newest | Sort::Oldest);
        let row = &self.rows[&id];
        if !sort_by_creation && old_state != Some(row.record.state) {
            self.rebuild();
            return;
        }
        let now_visible = self.visible(row);
        let was_visible = old_state.is_some() && self.slot(row).is_ok();
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

    /// Adds or updates many tasks at once (a batch journaled): the view is built once, not
    /// once per task, so that 10,000 of them take milliseconds.
    pub fn upsert_all(&mut self, updates: Vec<TaskUpdate>) {
        if updates.len() <= 1 {
            updates.into_iter().for_each(|u| self.upsert(u));
            return;
        }
        for update in updates {
            self.put(update);
        }
        self.rebuild();
    }

    /// Keeps the task's row (with what the table knew of it that the record does not say) and
    /// its timeline; the view is the caller's. Returns the state it had before.
    fn put(&mut self, update: TaskUpdate) -> Option<LocalState> {
        let TaskUpdate { record, eta_ms } = update;
        let id = record.id;
        let old = self.rows.get(&id);
        let old_state = old.map(|r| r.record.state);
        self.running -= usize::from(old_state.is_some_and(is_running));
        self.running += usize::from(is_running(record.state));
        self.reviewed -= usize::from(old.is_some_and(|r| r.record.review.has_mark()));
        self.reviewed += usize::from(record.review.has_mark());
        let transfer = old.and_then(|r| r.transfer);
        let kept_file = old.filter(|r| r.record.file_path == record.file_path).and_then(|r| r.file_present);
        let mut row = Row::new(record, eta_ms);
        if row.record.state.needs_download() {
            row.transfer = transfer;
        }
        row.file_present = kept_file;
        let state = row.record.state.to_string();
        // The timeline may already end with it: read from the journal after the change.
        if let Some(t) = self.timelines.get_mut(&id)
            && old_state != Some(row.record.state)
            && t.last().is_none_or(|e| e.state != state)
        {
            t.push(EventRecord { at: row.record.updated_at, state, detail: None });
        }
        self.rows.insert(id, row);
        old_state
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
        self.reviewed -= usize::from(row.record.review.has_mark());
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

    /// Shows a review the engine was just asked to record, before its news comes back: keys
    /// pressed meanwhile count from it.
    pub fn set_review(&mut self, id: i64, review: &reel_store::Review) {
        if let Some(r) = self.rows.get_mut(&id) {
            self.reviewed -= usize::from(r.record.review.has_mark());
            self.reviewed += usize::from(review.has_mark());
            r.record.review = review.clone();
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

    /// Whether some task is rated or picked (the review column is drawn then).
    pub fn any_reviewed(&self) -> bool {
        self.reviewed > 0
    }
}

#[cfg(test)]
mod tests;
