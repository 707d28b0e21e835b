//! All dashboard state in one `App`, and `update`: an [`Action`] in (a key, an engine event, a
//! tick, the result of an effect), state changed, [`Effect`]s out for the event loop to carry
//! out. No I/O here. The work is split by job: input (keys, text, focus), the task table, the
//! history screen, questions and the budget guard, the mouse, and news from the engine.

mod action;
mod events;
mod guard;
mod history;
mod input;
mod mouse;
mod tasks;

pub use action::{Action, Effect, EffectError};
pub use tasks::{fill_command, resubmission};

use crossterm::event::KeyEventKind;

use super::form::{Field, Form, MediaEditor};
use super::history::History;
use super::keymap::{Keymap, Scope, UserAction};
use super::table::{Prefs, Table};
use crate::engine::Health;
use crate::rules::{Budget, Catalog, Pricing, ValidSubmission};

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

    /// Whether anything waits for time to pass (spinners, elapsed times, countdowns, a search
    /// that has not settled): the loop ticks only then.
    pub fn animating(&self) -> bool {
        self.table.running() > 0 || self.history.search_pending()
    }

    fn say(&mut self, level: Level, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), level });
    }

    /// An effect's error, as the user reads it (errors may quote what a server sent).
    fn say_error(&mut self, prefix: &str, e: &EffectError) {
        self.say(Level::Error, format!("{prefix}{}", crate::text::clean(&e.to_string())));
    }

    fn recheck(&mut self) {
        self.form.touched = true;
        self.form.recheck(&self.catalog, &self.pricing);
    }

    /// The one entry: applies `action` at `now_ms` and returns the work it asks for.
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
            Action::Mouse(ev) => {
                self.mouse(ev);
                Vec::new()
            }
            Action::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Action::Tick => {
                self.frame = self.frame.wrapping_add(1);
                self.settle_search()
            }
            other => self.news(other),
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
            effects.extend(self.history_follow_ups());
        }
        effects
    }

    fn prefs(&self) -> Prefs {
        Prefs { history: self.history.filters.clone(), ..self.table.prefs.clone() }
    }

    /// Remembers the table's and the history's choices for the next run.
    fn save_prefs(&mut self) -> Effect {
        self.history.unsaved = false;
        Effect::SavePrefs(self.prefs())
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

    fn quit_effects(&mut self) -> Vec<Effect> {
        self.quit = true;
        let mut effects = Vec::new();
        if self.history.unsaved || self.history.search_pending() {
            effects.push(self.save_prefs());
        }
        effects.push(Effect::Quit);
        effects
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests;
