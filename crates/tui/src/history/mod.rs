//! The history screen's model: the query (remembered between runs), pages read from SQLite as
//! the list scrolls, lineage and the ledger of the selected range. What the screen shows of a
//! row or a lineage is worked out here once, when it arrives, not on every frame. The query's
//! filters and the lineage are modules of their own.

pub mod effects;
mod filters;
mod lineage;
pub mod update;
pub mod view;

use crate::labels::{seconds_label, short_model, state_label};
use crate::latest::{Latest, Ticket};
use reel_engine::ledger::Ledger;
use reel_engine::query::HistoryRow;
use reel_rules::text::{excerpt, local_time};
use reel_store::history::{HistoryQuery, Order};
use reel_store::{LocalState, TaskRecord};

/// Rows read per page.
pub const PAGE: usize = 200;
/// Read the next page when the selection comes this close to the end.
const AHEAD: usize = 50;
/// The search runs once typing has paused this long, not on every key.
pub const SEARCH_SETTLE_MS: i64 = 150;

pub use filters::{Filters, Span, cycle};
pub use lineage::{Lineage, Piece, settings_diff, word_diff};

/// A history row with the text the list shows, made when its page arrives.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub record: TaskRecord,
    /// `None` when the task never had a file.
    pub file_present: Option<bool>,
    /// Local date and time of creation.
    pub date: String,
    pub model: String,
    pub prompt: String,
    /// The state as every view writes it.
    pub state: String,
    /// What the history grid writes under the poster: for a task of a batch, what tells it
    /// from the others sent with it (its id, ratio and seconds), then the prompt.
    pub caption: String,
}

impl From<HistoryRow> for Entry {
    fn from(row: HistoryRow) -> Entry {
        let t = &row.record;
        let (date, model, prompt) = (local_time(t.created_at), short_model(&t.model), excerpt(&t.prompt, 120));
        let state = state_label(t);
        let caption = match t.batch_id {
            Some(_) => format!("#{} {} {} · {prompt}", t.id, t.ratio, seconds_label(t.seconds)),
            None => prompt.clone(),
        };
        Entry { record: row.record, file_present: row.file_present, date, model, prompt, state, caption }
    }
}

/// The history screen. Its fields are its own: pages arrive for the newest query only, rows
/// follow the engine's news of their tasks, and the selection stays in range.
#[derive(Debug, Default)]
pub struct History {
    filters: Filters,
    rows: Vec<Entry>,
    /// Rows rated or picked, kept as rows change: the review column is decided every frame.
    reviewed: usize,
    selected: usize,
    /// No more pages behind the last row.
    done: bool,
    loading: bool,
    /// Pages of an older query are dropped.
    query: Latest,
    typing: bool,
    /// When the search text last changed, while its query has not run yet.
    typed_at: Option<i64>,
    /// The filters changed since they were last saved.
    unsaved: bool,
    /// Tasks were sent or deleted while the rows could not show them: read them again on open.
    stale: bool,
    /// Tasks put in by the engine's news since the query started: a page that has them too
    /// does not show them twice.
    arrived: std::collections::HashSet<i64>,
    models: Vec<String>,
    /// Parent and children of the selected task, once loaded.
    lineage: Option<Lineage>,
    ledger: Option<Ledger>,
    show_ledger: bool,
    /// Tab moved the keys to the detail pane, to scroll it.
    detail_focused: bool,
    /// Posters in a grid instead of the list.
    grid: bool,
}

impl History {
    pub fn new(filters: Filters) -> History {
        History { filters, stale: true, ..History::default() }
    }

    pub fn filters(&self) -> &Filters {
        &self.filters
    }

    /// Whether a loaded row is rated or picked (the review column is drawn then).
    pub fn any_reviewed(&self) -> bool {
        self.reviewed > 0
    }

    pub fn rows(&self) -> &[Entry] {
        &self.rows
    }

    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn selected_row(&self) -> Option<&Entry> {
        self.rows.get(self.selected)
    }

    /// Whether every row of the query is loaded.
    pub fn done(&self) -> bool {
        self.done
    }

    pub fn loading(&self) -> bool {
        self.loading
    }

    /// Whether the search text is being typed.
    pub fn typing(&self) -> bool {
        self.typing
    }

    pub fn unsaved(&self) -> bool {
        self.unsaved
    }

    /// Whether the rows must be read again before they are shown.
    pub fn stale(&self) -> bool {
        self.stale
    }

    pub fn models(&self) -> &[String] {
        &self.models
    }

    pub fn lineage(&self) -> Option<&Lineage> {
        self.lineage.as_ref()
    }

    pub fn ledger(&self) -> Option<&Ledger> {
        self.ledger.as_ref()
    }

    pub fn show_ledger(&self) -> bool {
        self.show_ledger
    }

    pub fn detail_focused(&self) -> bool {
        self.detail_focused
    }

    pub fn grid(&self) -> bool {
        self.grid
    }

    /// The ticket of the newest query, which its pages carry.
    pub fn ticket(&self) -> Ticket {
        self.query.current()
    }

    /// The search text changed and its query has not run yet.
    pub fn search_pending(&self) -> bool {
        self.typed_at.is_some()
    }

    /// Whether the search, typed at the time it last changed, has settled by `now_ms`.
    pub fn search_settled(&self, now_ms: i64) -> bool {
        self.typed_at.is_some_and(|at| now_ms - at >= SEARCH_SETTLE_MS)
    }

    /// Starts over with the current filters: the ticket and query of its first page.
    pub fn restart(&mut self, today_ms: i64) -> (Ticket, HistoryQuery) {
        let ticket = self.query.issue();
        self.rows.clear();
        self.reviewed = 0;
        self.selected = 0;
        self.done = false;
        self.loading = true;
        self.typed_at = None;
        self.lineage = None;
        self.stale = false;
        self.arrived.clear();
        (ticket, self.filters.query(today_ms))
    }

    /// The next page to read, when the selection nears the end of the rows loaded: its ticket,
    /// query and cursor (the last id loaded).
    pub fn next_page(&mut self, today_ms: i64) -> Option<(Ticket, HistoryQuery, Option<i64>)> {
        let near_end = self.selected + AHEAD >= self.rows.len();
        if self.done || self.loading || !near_end || self.search_pending() {
            return None;
        }
        self.loading = true;
        Some((self.query.current(), self.filters.query(today_ms), self.rows.last().map(|r| r.record.id)))
    }

    /// A page arrived; pages of an older query are ignored. Returns whether it was used.
    pub fn add_page(&mut self, ticket: Ticket, rows: Vec<HistoryRow>) -> bool {
        if !self.query.is_current(ticket) {
            return false;
        }
        self.done = rows.len() < PAGE;
        self.loading = false;
        // A task the engine reported while the page was read is already in.
        let added = rows.into_iter().filter(|r| !self.arrived.contains(&r.record.id)).map(Entry::from);
        let before = self.rows.len();
        self.rows.extend(added);
        self.reviewed += self.rows[before..].iter().filter(|r| r.record.review.has_mark()).count();
        true
    }

    /// A page could not be read; returns whether it was the newest query's.
    pub fn page_failed(&mut self, ticket: Ticket) -> bool {
        let current = self.query.is_current(ticket);
        if current {
            self.loading = false;
        }
        current
    }

    /// The engine's news of a task. A task shown is updated in place (its state, its file);
    /// a new task that the query admits comes in at its place in the order when that place is
    /// loaded. While the screen is not shown only the rows loaded are kept true, and the next
    /// opening reads them again.
    pub fn apply(&mut self, record: &TaskRecord, shown: bool) {
        // A file the engine reports saved was just written.
        let saved = (record.state == LocalState::Downloaded && record.file_path.is_some()).then_some(true);
        if let Some(i) = self.position(record.id) {
            let kept = self.rows[i].file_present.filter(|_| self.rows[i].record.file_path == record.file_path);
            self.reviewed -= usize::from(self.rows[i].record.review.has_mark());
            self.reviewed += usize::from(record.review.has_mark());
            self.rows[i] = Entry::from(HistoryRow { record: record.clone(), file_present: kept.or(saved) });
            return;
        }
        if !shown {
            self.stale = true;
            return;
        }
        let today = reel_rules::text::local_day_start(record.created_at);
        if !self.filters.query(today).admits(record) {
            return;
        }
        let entry = Entry::from(HistoryRow { record: record.clone(), file_present: saved });
        let marked = usize::from(record.review.has_mark());
        match self.filters.order {
            Order::Newest => {
                let at = self.rows.partition_point(|r| r.record.id > record.id);
                if at < self.rows.len() || self.done {
                    self.arrived.insert(record.id);
                    self.rows.insert(at, entry);
                    self.reviewed += marked;
                    if at <= self.selected && self.rows.len() > 1 {
                        self.selected += 1;
                    }
                }
            }
            // Oldest first: it belongs at the end, once the end is loaded.
            Order::Oldest if self.done => {
                self.arrived.insert(record.id);
                self.rows.push(entry);
                self.reviewed += marked;
            }
            Order::Oldest => {}
        }
    }

    /// Where task `id` is among the rows: they are in id order (the query's), so a binary search.
    fn position(&self, id: i64) -> Option<usize> {
        let newest_first = self.filters.order == Order::Newest;
        self.rows.binary_search_by(|r| if newest_first { id.cmp(&r.record.id) } else { r.record.id.cmp(&id) }).ok()
    }

    /// Shows a review the engine was just asked to record (see `Table::set_review`).
    pub fn set_review(&mut self, id: i64, review: &reel_store::Review) {
        if let Some(i) = self.position(id) {
            self.reviewed -= usize::from(self.rows[i].record.review.has_mark());
            self.reviewed += usize::from(review.has_mark());
            self.rows[i].record.review = review.clone();
        }
    }

    /// Forgets a task whose record was deleted.
    pub fn remove(&mut self, id: i64) {
        if let Some(i) = self.position(id) {
            self.reviewed -= usize::from(self.rows[i].record.review.has_mark());
            self.rows.remove(i);
        }
        self.move_by(0);
    }

    /// What a look at the disk found for a task's file.
    pub fn set_file_present(&mut self, id: i64, present: bool) {
        for r in self.rows.iter_mut().filter(|r| r.record.id == id && r.record.file_path.is_some()) {
            r.file_present = Some(present);
        }
    }

    pub fn move_by(&mut self, delta: isize) {
        if self.rows.is_empty() {
            self.selected = 0;
            return;
        }
        let last = self.rows.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
    }

    pub fn set_typing(&mut self, typing: bool) {
        self.typing = typing;
    }

    /// Edits the search text; its query runs once typing settles.
    pub fn edit_search(&mut self, now_ms: i64, edit: impl FnOnce(&mut String)) {
        let before = self.filters.text.clone();
        edit(&mut self.filters.text);
        self.filters.text.truncate(200);
        if self.filters.text != before {
            self.typed_at = Some(now_ms);
            self.unsaved = true;
        }
    }

    /// Changes the filters; the caller starts the query over.
    pub fn edit_filters(&mut self, edit: impl FnOnce(&mut Filters, &[String])) {
        edit(&mut self.filters, &self.models);
        self.unsaved = true;
    }

    /// The filters were saved.
    pub fn saved(&mut self) {
        self.unsaved = false;
    }

    pub fn set_models(&mut self, models: Vec<String>) {
        self.models = models;
    }

    /// The lineage of task `id` arrived.
    pub fn set_lineage(&mut self, id: i64, parent: Option<TaskRecord>, children: Vec<TaskRecord>) {
        let child = self.rows.iter().find(|r| r.record.id == id).map(|r| &r.record);
        self.lineage = Some(Lineage::new(id, child, parent, children));
    }

    pub fn set_ledger(&mut self, ledger: Ledger) {
        self.ledger = Some(ledger);
    }

    /// Shows or hides the ledger; returns whether it is shown now.
    pub fn toggle_ledger(&mut self) -> bool {
        self.show_ledger = !self.show_ledger;
        self.show_ledger
    }

    pub fn toggle_detail_focus(&mut self) {
        self.detail_focused = !self.detail_focused;
    }

    pub fn leave_detail(&mut self) {
        self.detail_focused = false;
    }

    /// The rows missed what happened meanwhile: read them again when the screen opens.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    pub fn toggle_grid(&mut self) {
        self.grid = !self.grid;
    }
}

#[cfg(test)]
mod tests;
