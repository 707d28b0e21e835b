//! The task table's model: rows derived once per change (never per frame), sort, state filter,
//! search, marks, selection, and the ordered view of ids the table draws a window of.

use std::collections::{BTreeSet, HashMap};

use crate::engine::TaskUpdate;
use crate::store::{EventRecord, LocalState, TaskRecord};
use crate::text::{clean, excerpt};
use crate::tui::labels::{Filter, is_running, short_model, state_label};
use crate::tui::prefs::Sort;

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
    /// Lower-case prompt and negative prompt, for search.
    haystack: String,
}

/// Characters of prompt kept for the table; the detail pane shows the whole text.
const PROMPT_CHARS: usize = 160;

impl Row {
    fn new(record: TaskRecord, eta_ms: Option<i64>) -> Row {
        let model = clean(&record.model);
        let model_short = short_model(&record.model);
        let prompt = excerpt(&record.prompt, PROMPT_CHARS);
        let state_label = state_label(&record);
        let haystack = format!("{} {}", record.prompt, record.negative_prompt.as_deref().unwrap_or("")).to_lowercase();
        let group = record.batch_id.unwrap_or(record.id);
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
    searching: bool,
    /// Timelines loaded for the detail pane.
    timelines: HashMap<i64, Vec<EventRecord>>,
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
        self.rebuild();
    }

    /// Drops the search (typed or kept): every task of the filter shows again.
    pub fn clear_search(&mut self) {
        self.searching = false;
        if !self.search.is_empty() {
            self.search.clear();
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
        self.filter.admits(row.record.state)
            && (self.search.is_empty() || row.haystack.contains(&self.search.to_lowercase()))
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
    pub fn set_review(&mut self, id: i64, review: &crate::store::Review) {
        if let Some(r) = self.rows.get_mut(&id) {
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
        let mut t = Table::new(Sort::default(), Filter::default());
        t.upsert(update(1, LocalState::Downloaded, 100, "a red fox"));
        t.upsert(update(2, LocalState::InProgress, 200, "a blue whale"));
        t.upsert(update(3, LocalState::Failed, 300, "a green frog"));
        t
    }

    #[test]
    fn a_timeline_never_shows_a_state_twice_in_a_row() {
        let ev = |at: i64, state: &str, detail: Option<&str>| EventRecord {
            at,
            state: state.into(),
            detail: detail.map(str::to_string),
        };
        let mut t = table();
        let journal = vec![
            ev(1, "submitting", None),
            ev(2, "in_progress", None),
            ev(3, "lost", Some("no answer")),
            ev(4, "lost", Some("given up")),
            ev(5, "lost", None),
        ];
        t.set_timeline(2, journal);
        let states = |t: &Table| t.timeline(2).map(|e| e.iter().map(|e| (e.at, e.state.clone())).collect::<Vec<_>>());
        let want = vec![(1, "submitting".to_string()), (2, "in_progress".to_string()), (3, "lost".to_string())];
        assert_eq!(states(&t), Some(want.clone()));
        assert_eq!(t.timeline(2).and_then(|e| e[2].detail.clone()).as_deref(), Some("given up"), "the latest word");
        // The engine's news of a state the journal already had adds nothing.
        t.upsert(update(2, LocalState::Lost, 200, "a blue whale"));
        assert_eq!(states(&t), Some(want.clone()));
        // A new state is added.
        t.upsert(update(2, LocalState::Failed, 200, "a blue whale"));
        assert_eq!(states(&t).map(|s| s.len()), Some(4));
    }

    #[test]
    fn newest_first_and_incremental_updates_keep_order_and_selection() {
        let mut t = table();
        assert_eq!(t.view, vec![3, 2, 1]);
        t.select_at(1);
        t.upsert(update(4, LocalState::Submitting, 400, "new"));
        assert_eq!(t.view, vec![4, 3, 2, 1]);
        assert_eq!(t.selected_id(), Some(2), "the selection follows its task");
        t.upsert(update(2, LocalState::Completed, 200, "a blue whale"));
        assert_eq!(t.view, vec![4, 3, 2, 1]);
    }

    #[test]
    fn filters_search_and_sorts() {
        let mut t = table();
        t.set_filter(Filter::Active);
        assert_eq!(t.view, vec![2]);
        t.upsert(update(2, LocalState::Downloaded, 200, "a blue whale"));
        assert!(t.view.is_empty(), "it left the running filter");
        t.set_filter(Filter::Problems);
        assert_eq!(t.view, vec![3]);
        t.set_filter(Filter::All);
        t.edit_search(|s| s.push_str("FOX"));
        assert_eq!(t.view, vec![1], "search ignores case");
        t.clear_search();
        t.set_sort(Sort::Oldest);
        assert_eq!(t.view, vec![1, 2, 3]);
        t.set_sort(Sort::State);
        assert_eq!(t.view, vec![2, 1, 3], "downloaded sorts after in_progress, failed last");
    }

    #[test]
    fn marks_are_targets_and_moves_are_clamped() {
        let mut t = table();
        assert_eq!(t.targets(), vec![1], "the first task stays selected as newer ones arrive above it");
        t.select_at(0);
        assert_eq!(t.targets(), vec![3]);
        t.toggle_mark();
        t.move_by(5);
        t.toggle_mark();
        assert_eq!(t.targets(), vec![1, 3]);
        t.move_by(-10);
        assert_eq!(t.selected(), 0);
        assert_eq!(t.running(), 1);
    }

    #[test]
    fn rows_sent_together_form_a_group_and_deleted_ones_leave() {
        let mut t = table();
        let sent = |id: i64, created: i64, prompt: &str, batch: Option<i64>| {
            let mut u = update(id, LocalState::Queued, created, prompt);
            u.record.batch_id = batch;
            u
        };
        // A bulk re-run of different prompts is one batch; two separate sends of one prompt,
        // a second apart, are not.
        t.upsert(sent(4, 1_000, "a grid", Some(4)));
        t.upsert(sent(5, 1_000, "another prompt", Some(4)));
        t.upsert(sent(6, 1_000, "a third", Some(4)));
        t.upsert(sent(7, 2_000, "same text", None));
        t.upsert(sent(8, 3_000, "same text", None));
        let groups: Vec<i64> = (4..=8).map(|id| t.row(id).map_or(0, |r| r.group)).collect();
        assert_eq!(groups, vec![4, 4, 4, 7, 8], "what the engine recorded, not a guess");
        t.set_sort(Sort::Oldest);
        let at = |t: &Table, id: i64| t.view.iter().position(|v| *v == id).unwrap_or(usize::MAX);
        assert!(t.grouped_with_next(at(&t, 4)) && t.grouped_with_next(at(&t, 5)));
        assert!(!t.grouped_with_next(at(&t, 6)) && !t.grouped_with_next(at(&t, 7)));
        t.select(5);
        t.toggle_mark();
        assert!(t.remove(5));
        assert!(t.row(5).is_none() && !t.view.contains(&5) && t.marks().is_empty());
        assert!(t.selected_id().is_some(), "a neighbour is selected");
        assert!(!t.remove(5), "only once");
    }

    #[test]
    fn many_at_once_show_what_one_by_one_shows_under_every_sort_and_filter() {
        let states = [LocalState::Waiting, LocalState::Queued, LocalState::InProgress, LocalState::Downloaded];
        let batch: Vec<TaskUpdate> = (10..400)
            .map(|id| update(id, states[id as usize % states.len()], 1_000 + (id * 7919) % 500, "a wave"))
            .collect();
        let sorts = [Sort::Newest, Sort::Oldest, Sort::State, Sort::Model];
        let filters = Filter::ALL;
        for (sort, filter) in sorts.into_iter().flat_map(|s| filters.map(|f| (s, f))) {
            let (mut one, mut all) = (table(), table());
            for t in [&mut one, &mut all] {
                t.set_sort(sort);
                t.set_filter(filter);
                t.select(2);
            }
            batch.iter().cloned().for_each(|u| one.upsert(u));
            all.upsert_all(batch.clone());
            assert_eq!(all.view(), one.view(), "{sort:?} {filter:?}");
            assert_eq!(all.selected_id(), one.selected_id(), "{sort:?} {filter:?}: the selection stays");
            assert_eq!(all.running(), one.running(), "{sort:?} {filter:?}");
        }
    }
}
