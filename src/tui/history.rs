//! The history screen's model: the query (remembered between runs), pages read from SQLite as
//! the list scrolls, lineage and the ledger of the selected range. What the screen shows of a
//! row or a lineage is worked out here once, when it arrives, not on every frame.

use serde::{Deserialize, Serialize};

use crate::engine::ledger::Ledger;
use crate::engine::query::HistoryRow;
use crate::store::history::{HistoryQuery, Order};
use crate::store::{LocalState, TaskRecord};
use crate::text::{clean, excerpt, local_time};
use crate::tui::labels::{Filter, seconds_label, short_model, state_label};
use crate::tui::latest::{Latest, Ticket};

/// Rows read per page.
pub const PAGE: usize = 200;
/// Read the next page when the selection comes this close to the end.
const AHEAD: usize = 50;
/// The search runs once typing has paused this long, not on every key.
pub const SEARCH_SETTLE_MS: i64 = 150;

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
    /// The same few groups of states as the task table.
    #[serde(default)]
    pub group: Filter,
    pub span: Span,
    pub order: Order,
}

impl Filters {
    pub fn query(&self, today_ms: i64) -> HistoryQuery {
        HistoryQuery {
            text: self.text.clone(),
            model: self.model.clone(),
            state: None,
            states: self.group.states(),
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

/// The selected task's parent and children, and what changed from the parent (cleaned for
/// the screen), worked out once when the lineage arrives.
#[derive(Debug, Clone, PartialEq)]
pub struct Lineage {
    pub id: i64,
    pub parent: Option<TaskRecord>,
    pub children: Vec<TaskRecord>,
    /// The parent's prompt, cut to fit one line.
    pub parent_prompt: String,
    /// The prompt's words from the parent's to this task's.
    pub prompt_diff: Vec<Piece>,
    /// "name old → new" for each setting that differs, joined.
    pub settings_diff: String,
}

impl Lineage {
    /// `child` is the task itself, when it is among the loaded rows.
    pub fn new(id: i64, child: Option<&TaskRecord>, parent: Option<TaskRecord>, children: Vec<TaskRecord>) -> Lineage {
        let (mut parent_prompt, mut prompt_diff, mut settings) = (String::new(), Vec::new(), String::new());
        if let Some(p) = &parent {
            parent_prompt = excerpt(&p.prompt, 60);
            if let Some(c) = child {
                prompt_diff = word_diff(&p.prompt, &c.prompt).into_iter().map(Piece::cleaned).collect();
                settings = clean(&settings_diff(p, c).join(" · "));
            }
        }
        Lineage { id, parent, children, parent_prompt, prompt_diff, settings_diff: settings }
    }
}

/// The history screen. Its fields are its own: pages arrive for the newest query only, rows
/// follow the engine's news of their tasks, and the selection stays in range.
#[derive(Debug, Default)]
pub struct History {
    filters: Filters,
    rows: Vec<Entry>,
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
        self.rows.extend(rows.into_iter().filter(|r| !self.arrived.contains(&r.record.id)).map(Entry::from));
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
            self.rows[i] = Entry::from(HistoryRow { record: record.clone(), file_present: kept.or(saved) });
            return;
        }
        if !shown {
            self.stale = true;
            return;
        }
        let today = crate::text::local_day_start(record.created_at);
        if !self.filters.query(today).admits(record) {
            return;
        }
        let entry = Entry::from(HistoryRow { record: record.clone(), file_present: saved });
        match self.filters.order {
            Order::Newest => {
                let at = self.rows.partition_point(|r| r.record.id > record.id);
                if at < self.rows.len() || self.done {
                    self.arrived.insert(record.id);
                    self.rows.insert(at, entry);
                    if at <= self.selected && self.rows.len() > 1 {
                        self.selected += 1;
                    }
                }
            }
            // Oldest first: it belongs at the end, once the end is loaded.
            Order::Oldest if self.done => {
                self.arrived.insert(record.id);
                self.rows.push(entry);
            }
            Order::Oldest => {}
        }
    }

    /// Where task `id` is among the rows: they are in id order (the query's), so a binary search.
    fn position(&self, id: i64) -> Option<usize> {
        let newest_first = self.filters.order == Order::Newest;
        self.rows.binary_search_by(|r| if newest_first { id.cmp(&r.record.id) } else { r.record.id.cmp(&id) }).ok()
    }

    /// Forgets a task whose record was deleted.
    pub fn remove(&mut self, id: i64) {
        self.rows.retain(|r| r.record.id != id);
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

/// One piece of a word diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Same(String),
    Added(String),
    Removed(String),
}

impl Piece {
    /// The same piece with its word made safe for the screen.
    fn cleaned(self) -> Piece {
        match self {
            Piece::Same(w) => Piece::Same(clean(&w)),
            Piece::Added(w) => Piece::Added(clean(&w)),
            Piece::Removed(w) => Piece::Removed(clean(&w)),
        }
    }
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
    cmp(
        "media",
        crate::tui::labels::count(parent.media.len(), "item"),
        crate::tui::labels::count(child.media.len(), "item"),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::LocalState;
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
    fn a_lineage_is_worked_out_once_and_cleaned() {
        let mut parent = record(1, LocalState::Downloaded);
        parent.prompt = "a red fox".into();
        let mut child = record(2, LocalState::Downloaded);
        child.prompt = "a \u{1b}[31mblue fox".into();
        child.seconds = 10;
        let l = Lineage::new(2, Some(&child), Some(parent.clone()), vec![]);
        let s = |x: &str| x.to_string();
        assert_eq!(
            l.prompt_diff,
            vec![Piece::Same(s("a")), Piece::Added(s("[31mblue")), Piece::Removed(s("red")), Piece::Same(s("fox"))]
        );
        assert_eq!(l.settings_diff, "seconds 5 → 10");
        let unknown = Lineage::new(2, None, Some(parent), vec![]);
        assert!(unknown.prompt_diff.is_empty() && unknown.settings_diff.is_empty(), "no child row, no diff");
    }

    #[test]
    fn pages_and_generations() {
        let mut h = History::default();
        let (g, _) = h.restart(0);
        assert_eq!(h.next_page(0), None, "a page is on its way");
        let page: Vec<HistoryRow> = (0..PAGE as i64)
            .map(|i| HistoryRow { record: record(1000 - i, LocalState::Downloaded), file_present: Some(true) })
            .collect();
        let mut newer = History::default();
        newer.restart(0);
        let (stale, _) = newer.restart(0);
        assert!(!newer.add_page(Ticket::default(), page.clone()) && newer.add_page(stale, vec![]));
        assert!(h.add_page(g, page));
        assert_eq!(h.next_page(0), None, "far from the end");
        h.move_by(PAGE as isize);
        assert_eq!(h.next_page(0).map(|(t, _, c)| (t, c)), Some((g, Some(1000 - PAGE as i64 + 1))));
        assert!(h.add_page(g, vec![]));
        assert!(h.done());
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

    #[test]
    fn a_grid_has_captions_that_tell_its_tasks_apart() {
        let mut captions = Vec::new();
        for (id, (ratio, seconds)) in [("16:9", 5), ("16:9", 10), ("9:16", 5), ("9:16", 10)].into_iter().enumerate() {
            let mut t = record(10 + id as i64, LocalState::Downloaded);
            (t.ratio, t.seconds, t.batch_id) = (ratio.into(), seconds, Some(10));
            captions.push(Entry::from(HistoryRow { record: t, file_present: Some(true) }).caption);
        }
        assert_eq!(captions[0], format!("#10 16:9 5 s · {}", record(10, LocalState::Downloaded).prompt));
        captions.sort();
        captions.dedup();
        assert_eq!(captions.len(), 4, "{captions:?}");
        let alone = Entry::from(HistoryRow { record: record(3, LocalState::Queued), file_present: None });
        assert_eq!(alone.caption, alone.prompt, "a task sent alone is its prompt");
    }
}
