//! All dashboard state in one `App`, and `update`: an [`Action`] in (a key, an engine event, a
//! tick), state changed, [`Effect`]s out for the event loop to carry out. No I/O here.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::form::{Field, Form, MediaEditor, clean_paste};
use super::history::{History, cycle};
use super::keymap::{Cmd, Keymap, Scope, UserAction};
use super::layout::{self, hit};
use super::table::{Prefs, Table, Transfer, is_running};
use crate::config::{Budget, Pricing};
use crate::engine::ledger::Ledger;
use crate::engine::query::HistoryRow;
use crate::engine::{Event, Health, TaskUpdate};
use crate::rules::{Catalog, Draft, MediaDraft, UnknownModels, ValidSubmission, validate};
use crate::store::history::{HistoryQuery, Order};
use crate::store::{EventRecord, LocalState, TaskRecord};
use crate::text::clean;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Form(Field),
    Table,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Dashboard,
    History,
}

/// A question the user must answer before reel goes on.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// Delete this task's record (and, with f, its file)?
    Delete(i64),
    /// Send although today's spending would pass the daily budget?
    Budget { plan: Vec<ValidSubmission>, copies: u32, parent: Option<i64>, planned: f64 },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help { scroll: u16 },
    Picker { cursor: usize },
    Media(MediaEditor),
    Confirm(Question),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

/// What the header shows about the service.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub profile: Option<String>,
    pub base_url: String,
    pub demo: bool,
    pub health: Health,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Key(KeyEvent),
    Paste(String),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Time passes (spinners, elapsed times, countdowns).
    Tick,
    Engine(Event),
    /// The unfinished tasks of earlier runs, read at start.
    Loaded(Vec<TaskRecord>),
    Timeline(i64, Vec<EventRecord>),
    Submitted(Result<Vec<TaskRecord>, String>),
    Edited(Field, Result<String, String>),
    /// An effect reported back (a copy, a command, an engine action).
    Report(Result<String, String>),
    HistoryPage(u64, Result<Vec<HistoryRow>, String>),
    Lineage(i64, Option<TaskRecord>, Vec<TaskRecord>),
    Ledger(Ledger),
    Models(Vec<String>),
    Deleted(Result<TaskRecord, String>),
    /// What today's tasks cost so far.
    Spent(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Submit { plan: Vec<ValidSubmission>, copies: u32, parent: Option<i64> },
    Resend(i64),
    Recheck(i64),
    Download(i64),
    LoadTimeline(i64),
    Open(String),
    Copy(String),
    Run(Vec<String>),
    Edit { field: Field, text: String },
    SavePrefs(Prefs),
    Bell,
    Notify(String),
    Suspend,
    Quit,
    HistoryPage { generation: u64, query: HistoryQuery, cursor: Option<i64> },
    Lineage(i64),
    LoadLedger(Option<i64>),
    LoadModels,
    Delete { id: i64, remove_file: bool },
    Reveal(String),
    LoadSpent,
}

pub struct App {
    pub screen: Screen,
    pub history: History,
    pub focus: Focus,
    pub form: Form,
    pub table: Table,
    pub header: Header,
    pub overlay: Option<Overlay>,
    pub status: Option<Status>,
    /// Shown in the detail pane until the first task exists.
    pub welcome: Option<String>,
    pub keymap: Keymap,
    pub now_ms: i64,
    /// Advances on every tick: drives the spinners.
    pub frame: u64,
    pub size: (u16, u16),
    pub quit: bool,
    catalog: Catalog,
    pricing: Pricing,
    actions: Vec<UserAction>,
    budget: Budget,
    /// Today's spending so far (priced models only), for the daily budget.
    pub spent_today: f64,
    last_selected: Option<i64>,
    last_lineage: Option<i64>,
    /// Just tabbed into a one-line field: the first character typed replaces its value.
    replace_on_type: bool,
}

/// Replaces `{path}`, `{url}`, `{id}` and `{prompt}` in each argument; no shell is involved.
pub fn fill_command(command: &[String], t: &TaskRecord) -> Vec<String> {
    command
        .iter()
        .map(|arg| {
            arg.replace("{path}", t.file_path.as_deref().unwrap_or(""))
                .replace("{url}", t.url.as_deref().unwrap_or(""))
                .replace("{id}", t.remote_id.as_deref().unwrap_or(&t.id.to_string()))
                .replace("{prompt}", &t.prompt)
        })
        .collect()
}

/// A task's parameters as a submission, for "submit again as is".
pub fn resubmission(t: &TaskRecord, catalog: &Catalog) -> Result<ValidSubmission, String> {
    let draft = Draft {
        model: t.model.clone(),
        prompt: t.prompt.clone(),
        negative_prompt: t.negative_prompt.clone().unwrap_or_default(),
        seconds: Some(t.seconds.to_string()),
        resolution: Some(t.resolution.clone()),
        ratio: Some(t.ratio.clone()),
        watermark: Some(t.watermark),
        media: t
            .media
            .iter()
            .map(|m| MediaDraft { kind: m.kind.clone(), url: m.url.clone(), seconds: m.seconds.map(|s| s.to_string()) })
            .collect(),
    };
    validate(&draft, catalog, UnknownModels::Warn).map_err(|e| e.to_string())
}

impl App {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        catalog: Catalog,
        pricing: Pricing,
        actions: Vec<UserAction>,
        budget: Budget,
        header: Header,
        prefs: Prefs,
        now_ms: i64,
        size: (u16, u16),
    ) -> App {
        let mut form = Form::new(&catalog);
        form.recheck(&catalog, &pricing);
        form.touched = false;
        form.negative.set_cursor_style(ratatui::style::Style::default());
        let welcome = header.demo.then(|| {
            "Demo mode: no API key is configured, so reel runs against its embedded simulator (tasks take \
             about 15 s). Type a prompt and press Ctrl-S. To use a real provider, set REEL_BASE_URL and \
             REEL_API_KEY, or add a profile to the config file (see README)."
                .to_string()
        });
        let history = History { filters: prefs.history.clone(), ..History::default() };
        App {
            screen: Screen::Dashboard,
            history,
            focus: Focus::Form(Field::Prompt),
            form,
            table: Table::new(prefs),
            header,
            overlay: None,
            status: None,
            welcome,
            keymap: Keymap::new(&actions),
            now_ms,
            frame: 0,
            size,
            quit: false,
            catalog,
            pricing,
            actions,
            budget,
            spent_today: 0.0,
            last_selected: None,
            last_lineage: None,
            replace_on_type: false,
        }
    }

    /// The price table, for views that show costs.
    pub fn pricing_ref(&self) -> &Pricing {
        &self.pricing
    }

    /// What the event loop does first: learn today's spending (for the daily budget).
    pub fn initial_effects(&self) -> Vec<Effect> {
        if self.budget.daily.is_some() { vec![Effect::LoadSpent] } else { Vec::new() }
    }

    /// The scope whose keys apply now.
    pub fn scope(&self) -> Scope {
        match (&self.overlay, self.focus) {
            (Some(Overlay::Help { .. }), _) => Scope::HelpView,
            (Some(Overlay::Picker { .. }), _) => Scope::Picker,
            (Some(Overlay::Media(_)), _) => Scope::MediaEditor,
            (Some(Overlay::Confirm(_)), _) => Scope::Confirm,
            (None, _) if self.screen == Screen::History && self.history.typing => Scope::HistorySearch,
            (None, _) if self.screen == Screen::History => Scope::History,
            (None, Focus::Table) if self.table.searching => Scope::Searching,
            (None, Focus::Table) => Scope::Table,
            (None, Focus::Form(f)) => f.scope(),
        }
    }

    /// Whether time-driven parts are on screen (spinners, elapsed, countdowns): the loop ticks
    /// only then.
    pub fn animating(&self) -> bool {
        self.table.running() > 0
    }

    fn say(&mut self, level: Level, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), level });
    }

    fn recheck(&mut self) {
        self.form.touched = true;
        self.form.recheck(&self.catalog, &self.pricing);
    }

    pub fn update(&mut self, action: Action, now_ms: i64) -> Vec<Effect> {
        self.now_ms = now_ms;
        let focus_before = self.focus;
        let mut effects = match action {
            Action::Key(ev) if ev.kind != KeyEventKind::Release => self.key(ev),
            Action::Key(_) => Vec::new(),
            Action::Paste(text) => {
                self.paste(&text);
                Vec::new()
            }
            Action::Mouse(ev) => self.mouse(ev),
            Action::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Action::Tick => {
                self.frame = self.frame.wrapping_add(1);
                Vec::new()
            }
            Action::Engine(event) => self.engine(event),
            Action::Loaded(records) => {
                for record in records {
                    self.table.upsert(TaskUpdate { record, eta_ms: None });
                }
                self.table.rebuild();
                Vec::new()
            }
            Action::Timeline(id, events) => {
                self.table.timelines.insert(id, events);
                Vec::new()
            }
            Action::Submitted(Ok(records)) => {
                let n = records.len();
                for record in records {
                    self.table.upsert(TaskUpdate { record, eta_ms: None });
                }
                self.welcome = None;
                self.say(
                    Level::Info,
                    format!("Sent {n} task{}; the form keeps its text for the next variation", plural(n)),
                );
                Vec::new()
            }
            Action::Submitted(Err(e)) | Action::Report(Err(e)) => {
                self.say(Level::Error, e);
                Vec::new()
            }
            Action::Report(Ok(message)) => {
                self.say(Level::Info, message);
                Vec::new()
            }
            Action::HistoryPage(generation, Ok(rows)) => {
                self.history.add_page(generation, rows);
                Vec::new()
            }
            Action::HistoryPage(_, Err(e)) => {
                self.history.loading = false;
                self.say(Level::Error, e);
                Vec::new()
            }
            Action::Lineage(id, parent, children) => {
                self.history.lineage = Some((id, parent, children));
                Vec::new()
            }
            Action::Ledger(ledger) => {
                self.history.ledger = Some(ledger);
                Vec::new()
            }
            Action::Models(models) => {
                self.history.models = models;
                Vec::new()
            }
            Action::Deleted(Ok(t)) => {
                self.history.rows.retain(|r| r.record.id != t.id);
                self.history.move_by(0);
                self.say(Level::Info, format!("Deleted the record of task {}", t.id));
                Vec::new()
            }
            Action::Deleted(Err(e)) => {
                self.say(Level::Error, e);
                Vec::new()
            }
            Action::Spent(amount) => {
                self.spent_today = amount;
                Vec::new()
            }
            Action::Edited(field, Ok(text)) => {
                let text = clean_paste(&text);
                let area = if field == Field::Negative { &mut self.form.negative } else { &mut self.form.prompt };
                area.select_all();
                area.cut();
                area.insert_str(text.trim_end_matches('\n'));
                self.recheck();
                Vec::new()
            }
            Action::Edited(_, Err(e)) => {
                self.say(Level::Error, e);
                Vec::new()
            }
        };
        if self.focus != focus_before {
            self.replace_on_type = matches!(self.focus, Focus::Form(f) if f.scope() == Scope::Line);
            self.sync_cursors();
        }
        if let Some(id) = self.table.selected_id()
            && self.last_selected != Some(id)
        {
            self.last_selected = Some(id);
            effects.push(Effect::LoadTimeline(id));
        }
        if self.screen == Screen::History {
            if let Some(cursor) = self.history.wants_more() {
                self.history.loading = true;
                let query = self.history.filters.query(crate::text::local_day_start(self.now_ms));
                effects.push(Effect::HistoryPage { generation: self.history.generation, query, cursor });
            }
            if let Some(id) = self.history.selected_row().map(|r| r.record.id)
                && self.last_lineage != Some(id)
            {
                self.last_lineage = Some(id);
                effects.push(Effect::Lineage(id));
            }
        }
        effects
    }

    fn prefs(&self) -> Prefs {
        Prefs { history: self.history.filters.clone(), ..self.table.prefs.clone() }
    }

    /// Starts the history over after a filter changed, and remembers the filters.
    fn requery(&mut self) -> Vec<Effect> {
        let generation = self.history.restart();
        self.last_lineage = None;
        let query = self.history.filters.query(crate::text::local_day_start(self.now_ms));
        let mut effects =
            vec![Effect::HistoryPage { generation, query, cursor: None }, Effect::SavePrefs(self.prefs())];
        if self.history.show_ledger {
            effects
                .push(Effect::LoadLedger(self.history.filters.span.since(crate::text::local_day_start(self.now_ms))));
        }
        effects
    }

    fn history_command(&mut self, cmd: Cmd) -> Option<Vec<Effect>> {
        let page = (self.size.1 / 2).max(1) as isize;
        let h = &mut self.history;
        let effects = match cmd {
            Cmd::ShowHistory => {
                self.screen = Screen::Dashboard;
                Vec::new()
            }
            Cmd::Up | Cmd::Down | Cmd::PageUp | Cmd::PageDown | Cmd::Top | Cmd::Bottom => {
                h.move_by(match cmd {
                    Cmd::Up => -1,
                    Cmd::Down => 1,
                    Cmd::PageUp => -page,
                    Cmd::PageDown => page,
                    Cmd::Top => isize::MIN / 2,
                    _ => isize::MAX / 2,
                });
                Vec::new()
            }
            Cmd::Search => {
                h.typing = true;
                Vec::new()
            }
            Cmd::CloseOverlay => {
                h.typing = false;
                Vec::new()
            }
            Cmd::ClearSelection => {
                h.typing = false;
                h.filters.text.clear();
                self.requery()
            }
            Cmd::CycleModel => {
                h.filters.model = cycle(&h.filters.model, &h.models);
                self.requery()
            }
            Cmd::Filter => {
                h.filters.state = cycle(&h.filters.state, &LocalState::ALL);
                self.requery()
            }
            Cmd::CycleSpan => {
                h.filters.span = h.filters.span.next();
                self.requery()
            }
            Cmd::Sort => {
                h.filters.order = if h.filters.order == Order::Newest { Order::Oldest } else { Order::Newest };
                self.requery()
            }
            Cmd::ToggleLedger => {
                h.show_ledger = !h.show_ledger;
                let since = h.filters.span.since(crate::text::local_day_start(self.now_ms));
                if h.show_ledger { vec![Effect::LoadLedger(since)] } else { Vec::new() }
            }
            Cmd::Open | Cmd::Reveal | Cmd::CopyPrompt | Cmd::Resubmit | Cmd::Vary | Cmd::Download | Cmd::Delete => {
                let Some(row) = h.selected_row() else {
                    self.say(Level::Warn, "No task selected");
                    return Some(Vec::new());
                };
                let t = row.record.clone();
                let file = t.file_path.clone().filter(|_| row.file_present == Some(true));
                match cmd {
                    Cmd::Open | Cmd::Reveal => match file {
                        Some(p) if cmd == Cmd::Open => vec![Effect::Open(p)],
                        Some(p) => {
                            let dir = std::path::Path::new(&p).parent().map(|d| d.display().to_string()).unwrap_or(p);
                            vec![Effect::Reveal(dir)]
                        }
                        None => {
                            self.say(
                                Level::Warn,
                                format!("Task {} has no file here (it is missing or was never saved)", t.id),
                            );
                            Vec::new()
                        }
                    },
                    Cmd::CopyPrompt => vec![Effect::Copy(t.prompt.clone())],
                    Cmd::Download => vec![Effect::Download(t.id)],
                    Cmd::Delete => {
                        self.overlay = Some(Overlay::Confirm(Question::Delete(t.id)));
                        Vec::new()
                    }
                    Cmd::Vary => {
                        self.form.load(&t);
                        self.recheck();
                        self.screen = Screen::Dashboard;
                        self.focus = Focus::Form(Field::Prompt);
                        self.say(
                            Level::Info,
                            format!("Copied task {} into the form; the next submission records it as parent", t.id),
                        );
                        Vec::new()
                    }
                    _ => match resubmission(&t, &self.catalog) {
                        Ok(v) => self.guarded(vec![v], 1, Some(t.id)),
                        Err(e) => {
                            self.say(Level::Error, format!("Task {} cannot be run again: {e}", t.id));
                            Vec::new()
                        }
                    },
                }
            }
            _ => return None,
        };
        Some(effects)
    }

    fn answer(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(Overlay::Confirm(q)) = self.overlay.take() else { return Vec::new() };
        match (q, cmd) {
            (Question::Delete(id), Cmd::Yes) => vec![Effect::Delete { id, remove_file: false }],
            (Question::Delete(id), Cmd::YesWithFile) => vec![Effect::Delete { id, remove_file: true }],
            (Question::Budget { plan, copies, parent, planned }, Cmd::Yes) => {
                self.spent_today += planned;
                vec![Effect::Submit { plan, copies, parent }]
            }
            (q @ Question::Budget { .. }, Cmd::YesWithFile) => {
                self.overlay = Some(Overlay::Confirm(q));
                Vec::new()
            }
            _ => {
                self.say(Level::Info, "Nothing was done");
                Vec::new()
            }
        }
    }

    /// The priced cost of a plan (unpriced models count 0 here and are shown as unpriced elsewhere).
    fn planned_cost(&self, plan: &[ValidSubmission], copies: u32) -> f64 {
        plan.iter()
            .filter_map(|v| {
                v.billing.total().and_then(|b| self.pricing.cost(&v.model.to_string(), b * f64::from(copies)))
            })
            .sum()
    }

    /// A submission, or the budget question when it would pass today's budget.
    fn guarded(&mut self, plan: Vec<ValidSubmission>, copies: u32, parent: Option<i64>) -> Vec<Effect> {
        let planned = self.planned_cost(&plan, copies);
        if self.budget.exceeded(self.spent_today, planned) {
            let p = &self.pricing;
            let daily = self.budget.daily.unwrap_or_default();
            self.say(
                Level::Warn,
                format!(
                    "This adds {} to the {} spent today, past the daily budget of {}. Send anyway? y / n",
                    p.format(planned),
                    p.format(self.spent_today),
                    p.format(daily)
                ),
            );
            self.overlay = Some(Overlay::Confirm(Question::Budget { plan, copies, parent, planned }));
            return Vec::new();
        }
        self.spent_today += planned;
        vec![Effect::Submit { plan, copies, parent }]
    }

    /// Only the focused text area shows a cursor.
    fn sync_cursors(&mut self) {
        let cursor = ratatui::style::Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let none = ratatui::style::Style::default();
        let on = |f: Field| if self.focus == Focus::Form(f) { cursor } else { none };
        let (p, n) = (on(Field::Prompt), on(Field::Negative));
        self.form.prompt.set_cursor_style(p);
        self.form.negative.set_cursor_style(n);
    }

    // ---- keys

    fn key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        match self.keymap.lookup(self.scope(), &ev) {
            Some(cmd) => self.command(cmd),
            None if self.scope() == Scope::HistorySearch => {
                let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
                match ev.code {
                    KeyCode::Char(c) if plain && !c.is_control() => self.history.filters.text.push(c),
                    KeyCode::Backspace => {
                        self.history.filters.text.pop();
                    }
                    _ => return Vec::new(),
                }
                self.history.filters.text.truncate(200);
                self.requery()
            }
            None => {
                self.typed(ev);
                Vec::new()
            }
        }
    }

    fn typed(&mut self, ev: KeyEvent) {
        let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let push = |s: &mut String, ok: fn(char) -> bool| match ev.code {
            KeyCode::Char(c) if plain && ok(c) => s.push(c),
            KeyCode::Backspace => {
                s.pop();
            }
            _ => {}
        };
        match (&mut self.overlay, self.focus) {
            (Some(Overlay::Media(m)), _) => match m.part {
                1 => push(&mut m.url, |c| !c.is_control() && !c.is_whitespace()),
                2 => push(&mut m.seconds, |c| c.is_ascii_digit() || c == '.'),
                _ => {}
            },
            (Some(_), _) => {}
            (None, Focus::Table) if self.table.searching => {
                push(&mut self.table.search, |c| !c.is_control());
                self.table.rebuild();
            }
            (None, Focus::Table) => {}
            (None, Focus::Form(Field::Prompt)) => {
                if self.form.prompt.input(ev) {
                    self.recheck();
                }
            }
            (None, Focus::Form(Field::Negative)) => {
                if self.form.negative.input(ev) {
                    self.recheck();
                }
            }
            (None, Focus::Form(field)) => {
                let ok: fn(char) -> bool = match field {
                    Field::Seconds => |c| c.is_ascii_digit() || c == '-',
                    Field::Copies => |c| c.is_ascii_digit(),
                    _ => |c| c.is_ascii_alphanumeric() || matches!(c, ':' | ',' | ' '),
                };
                let replace = std::mem::take(&mut self.replace_on_type);
                if let Some(line) = self.form.line_mut(field) {
                    if replace && matches!(ev.code, KeyCode::Char(c) if ok(c)) {
                        line.clear();
                    }
                    push(line, ok);
                    line.truncate(200);
                    self.recheck();
                }
            }
        }
    }

    fn paste(&mut self, text: &str) {
        let text = clean_paste(text);
        let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match (&mut self.overlay, self.focus) {
            (Some(Overlay::Media(m)), _) if m.part == 1 => m.url.push_str(one_line.trim()),
            (None, Focus::Table) if self.table.searching => {
                self.table.search.push_str(&one_line);
                self.table.rebuild();
            }
            (None, Focus::Form(Field::Prompt)) => {
                self.form.prompt.insert_str(&text);
                self.recheck();
            }
            (None, Focus::Form(Field::Negative)) => {
                self.form.negative.insert_str(&text);
                self.recheck();
            }
            (None, Focus::Form(field)) => {
                if let Some(line) = self.form.line_mut(field) {
                    line.push_str(&one_line);
                    line.truncate(200);
                    self.recheck();
                }
            }
            _ => {}
        }
    }

    fn focus_order(&self) -> Vec<Focus> {
        let mut order: Vec<Focus> = Field::ALL.iter().map(|f| Focus::Form(*f)).collect();
        order.push(Focus::Table);
        order
    }

    fn step_focus(&mut self, forward: bool) {
        let order = self.focus_order();
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = order.len();
        self.focus = order[if forward { (i + 1) % n } else { (i + n - 1) % n }];
    }

    fn quit_effects(&mut self) -> Vec<Effect> {
        self.quit = true;
        vec![Effect::Quit]
    }

    fn command(&mut self, cmd: Cmd) -> Vec<Effect> {
        if matches!(self.overlay, Some(Overlay::Confirm(_))) {
            return self.answer(cmd);
        }
        if self.screen == Screen::History
            && self.overlay.is_none()
            && let Some(effects) = self.history_command(cmd)
        {
            return effects;
        }
        match cmd {
            Cmd::Quit | Cmd::ForceQuit => return self.quit_effects(),
            Cmd::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Cmd::CloseOverlay => {
                self.overlay = None;
                self.table.searching = false;
            }
            Cmd::NextFocus => self.step_focus(true),
            Cmd::PrevFocus => self.step_focus(false),
            Cmd::Submit => return self.submit(),
            Cmd::EditInEditor => {
                if let Focus::Form(field @ (Field::Prompt | Field::Negative)) = self.focus {
                    let text = if field == Field::Prompt { self.form.prompt_text() } else { self.form.negative_text() };
                    return vec![Effect::Edit { field, text }];
                }
            }
            Cmd::LeaveForm => self.focus = Focus::Table,
            Cmd::NewPrompt => self.focus = Focus::Form(Field::Prompt),
            Cmd::Suspend => return vec![Effect::Suspend],
            Cmd::FieldUp | Cmd::FieldDown => self.field_step(cmd == Cmd::FieldDown),
            Cmd::ValuePrev | Cmd::ValueNext => self.value_step(cmd == Cmd::ValueNext),
            Cmd::Toggle => {
                if self.focus == Focus::Form(Field::Watermark) {
                    self.form.watermark = !self.form.watermark;
                    self.recheck();
                }
            }
            Cmd::Choose => self.choose(),
            Cmd::MediaAdd => {
                self.focus = Focus::Form(Field::Media);
                self.overlay = Some(Overlay::Media(MediaEditor::new(None, None)));
            }
            Cmd::MediaRemove => {
                if self.focus == Focus::Form(Field::Media) && self.form.media_cursor < self.form.media.len() {
                    self.form.media.remove(self.form.media_cursor);
                    self.form.media_cursor = self.form.media_cursor.min(self.form.media.len().saturating_sub(1));
                    self.recheck();
                }
            }
            Cmd::Up | Cmd::Down | Cmd::PageUp | Cmd::PageDown | Cmd::Top | Cmd::Bottom => self.scroll(cmd),
            Cmd::Mark => self.table.toggle_mark(),
            Cmd::Sort | Cmd::Filter => {
                if cmd == Cmd::Sort {
                    self.table.prefs.sort = self.table.prefs.sort.next();
                } else {
                    self.table.prefs.filter = self.table.prefs.filter.next();
                }
                self.table.rebuild();
                let p = self.prefs();
                self.say(Level::Info, format!("Showing {} tasks, {}", p.filter.label(), p.sort.label()));
                return vec![Effect::SavePrefs(p)];
            }
            Cmd::Search => self.table.searching = true,
            Cmd::ClearSelection => {
                self.table.searching = false;
                self.table.search.clear();
                self.table.marks.clear();
                self.table.rebuild();
            }
            Cmd::Open | Cmd::CopyPath | Cmd::CopyUrl | Cmd::UserAction(_) => return self.on_selected(cmd),
            Cmd::Resubmit | Cmd::Vary | Cmd::Download | Cmd::Recheck => return self.on_targets(cmd),
            Cmd::ShowHistory => {
                self.screen = Screen::History;
                let mut effects = vec![Effect::LoadModels];
                if self.history.rows.is_empty() {
                    effects.extend(self.requery());
                }
                return effects;
            }
            Cmd::Yes | Cmd::YesWithFile | Cmd::No => return self.answer(cmd),
            Cmd::ToggleLedger | Cmd::CycleModel | Cmd::CycleSpan | Cmd::CopyPrompt | Cmd::Reveal | Cmd::Delete => {}
        }
        Vec::new()
    }

    fn field_step(&mut self, down: bool) {
        if let Some(Overlay::Media(m)) = &mut self.overlay {
            m.part = if down { (m.part + 1).min(2) } else { m.part.saturating_sub(1) };
            return;
        }
        if let Focus::Form(f) = self.focus {
            let next = if down { f.next() } else { f.prev() };
            self.focus = next.map_or(if down { Focus::Table } else { self.focus }, Focus::Form);
        }
    }

    fn value_step(&mut self, forward: bool) {
        match &mut self.overlay {
            Some(Overlay::Media(m)) if m.part == 0 => m.cycle_kind(forward),
            Some(_) => {}
            None => {
                if let Focus::Form(f) = self.focus {
                    self.form.cycle(f, forward);
                    self.recheck();
                }
            }
        }
    }

    fn choose(&mut self) {
        match self.overlay.take() {
            Some(Overlay::Picker { cursor }) => {
                self.form.model = cursor.min(self.form.models.len().saturating_sub(1));
                self.recheck();
            }
            Some(Overlay::Media(m)) => {
                let item = m.item();
                match m.index {
                    Some(i) if i < self.form.media.len() => self.form.media[i] = item,
                    _ => {
                        self.form.media.push(item);
                        self.form.media_cursor = self.form.media.len() - 1;
                    }
                }
                self.recheck();
            }
            Some(other) => self.overlay = Some(other),
            None => match self.focus {
                Focus::Form(Field::Model) => self.overlay = Some(Overlay::Picker { cursor: self.form.model }),
                Focus::Form(Field::Media) => {
                    let i = self.form.media_cursor;
                    let item = self.form.media.get(i);
                    self.overlay = Some(Overlay::Media(MediaEditor::new(item.map(|_| i), item)));
                }
                _ => {}
            },
        }
    }

    fn scroll(&mut self, cmd: Cmd) {
        let page = (self.size.1 / 2).max(1) as isize;
        match &mut self.overlay {
            Some(Overlay::Help { scroll }) => {
                *scroll = if cmd == Cmd::Down { scroll.saturating_add(1) } else { scroll.saturating_sub(1) };
            }
            Some(Overlay::Picker { cursor }) => {
                let last = self.form.models.len().saturating_sub(1);
                *cursor = if cmd == Cmd::Down { (*cursor + 1).min(last) } else { cursor.saturating_sub(1) };
            }
            Some(Overlay::Media(_) | Overlay::Confirm(_)) => {}
            None => match cmd {
                Cmd::Up => self.table.move_by(-1),
                Cmd::Down => self.table.move_by(1),
                Cmd::PageUp => self.table.move_by(-page),
                Cmd::PageDown => self.table.move_by(page),
                Cmd::Top => self.table.move_by(isize::MIN / 2),
                _ => self.table.move_by(isize::MAX / 2),
            },
        }
    }

    fn submit(&mut self) -> Vec<Effect> {
        self.recheck();
        let check = &self.form.check;
        if let Some((field, problem)) = check.problems.first().cloned() {
            self.focus = Focus::Form(field);
            self.say(Level::Error, format!("Not sent: {problem}"));
            return Vec::new();
        }
        let (plan, copies, count) = (check.plan.clone(), check.copies, check.count);
        self.say(Level::Info, format!("Sending {count} task{}…", plural(count)));
        let parent = self.form.parent;
        self.guarded(plan, copies, parent)
    }

    fn on_selected(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(row) = self.table.selected_row() else {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        };
        let t = &row.record;
        let effect = match cmd {
            Cmd::Open | Cmd::CopyPath => {
                t.file_path.clone().map(|p| if cmd == Cmd::Open { Effect::Open(p) } else { Effect::Copy(p) })
            }
            Cmd::CopyUrl => t.url.clone().map(Effect::Copy),
            Cmd::UserAction(i) => self.actions.get(i).map(|a| Effect::Run(fill_command(&a.command, t))),
            _ => None,
        };
        match effect {
            Some(e) => vec![e],
            None => {
                let what = if cmd == Cmd::CopyUrl { "URL" } else { "saved file" };
                let state = t.state;
                self.say(Level::Warn, format!("Task {} has no {what} yet ({state})", t.id));
                Vec::new()
            }
        }
    }

    fn on_targets(&mut self, cmd: Cmd) -> Vec<Effect> {
        let ids = self.table.targets();
        if ids.is_empty() {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        }
        let records: Vec<TaskRecord> =
            ids.iter().filter_map(|id| self.table.row(*id)).map(|r| r.record.clone()).collect();
        let mut effects = Vec::new();
        for t in &records {
            match cmd {
                Cmd::Resubmit if t.state == LocalState::SubmitUnknown => effects.push(Effect::Resend(t.id)),
                Cmd::Resubmit => match resubmission(t, &self.catalog) {
                    Ok(v) => effects.extend(self.guarded(vec![v], 1, Some(t.id))),
                    Err(e) => self.say(Level::Error, format!("Task {} cannot be sent again: {e}", t.id)),
                },
                Cmd::Download => effects.push(Effect::Download(t.id)),
                Cmd::Recheck => effects.push(Effect::Recheck(t.id)),
                _ => {}
            }
        }
        if cmd == Cmd::Vary
            && let Some(t) = records.first()
        {
            self.form.load(t);
            self.recheck();
            self.focus = Focus::Form(Field::Prompt);
            self.say(
                Level::Info,
                format!("Copied task {} into the form; the next submission records it as parent", t.id),
            );
        }
        self.table.marks.clear();
        effects
    }

    // ---- mouse

    fn mouse(&mut self, ev: MouseEvent) -> Vec<Effect> {
        let areas = layout::areas(Rect::new(0, 0, self.size.0, self.size.1), &self.form);
        let (col, row) = (ev.column, ev.row);
        match ev.kind {
            MouseEventKind::Down(MouseButton::Left) if self.overlay.is_none() => {
                if hit(areas.table, col, row) {
                    self.focus = Focus::Table;
                    // The table has a border and a header line.
                    let first = areas.table.y + 2;
                    if row >= first {
                        let offset =
                            super::views::tasks::offset(self.table.selected, self.table.view.len(), areas.table);
                        let index = offset + (row - first) as usize;
                        if index < self.table.view.len() {
                            self.table.selected = index;
                        }
                    }
                } else if let Some((field, _)) = areas.fields.iter().find(|(_, r)| hit(*r, col, row)) {
                    self.focus = Focus::Form(*field);
                }
            }
            MouseEventKind::ScrollDown if hit(areas.table, col, row) => self.table.move_by(3),
            MouseEventKind::ScrollUp if hit(areas.table, col, row) => self.table.move_by(-3),
            _ => {}
        }
        Vec::new()
    }

    // ---- engine

    fn engine(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Task(update) => {
                let id = update.record.id;
                let before = self.table.row(id).map(|r| r.record.state);
                let after = update.record.state;
                let busy_before = self.table.running() > 0;
                self.table.upsert(*update);
                self.welcome = None;
                let mut effects = Vec::new();
                if before.is_some_and(is_running) && !is_running(after) {
                    effects.push(Effect::Bell);
                    effects.push(Effect::Notify(format!("Task {id} {after}")));
                    if busy_before && self.table.running() == 0 {
                        effects.push(Effect::Notify("All tasks are done".into()));
                    }
                }
                effects
            }
            Event::Transfer { id, bytes, total, rate } => {
                self.table.set_transfer(id, Transfer { bytes, total, rate });
                Vec::new()
            }
            Event::Health(h) => {
                self.header.health = h;
                Vec::new()
            }
            Event::Trouble(message) => {
                self.say(Level::Error, clean(&message));
                Vec::new()
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
