//! The `App`: it holds the dashboard's parts and routes to them. `update` takes an [`Action`]
//! in (a key, an engine event, a tick, the result of an effect), changes state and gives
//! [`Effect`]s out for the event loop to carry out. No I/O here. Each part with a screen or a
//! pane has its own folder beside this one, its state, its `update` (the part's keys and news,
//! as methods of `App`) and its `view`: `compose`, `tasks`, `detail`, `history`, `compare`,
//! `preview`, `help`. Here is what belongs to no one part: input and focus, the keys' routes,
//! overlays, questions and the budget guard, reviews, quitting, the mouse, news from the engine
//! and the link to it.

mod action;
mod dispatch;
mod events;
mod input;
mod link;
mod mouse;
mod overlays;
mod questions;
mod quit;
mod review;
mod zoom;

use std::collections::{BTreeMap, BTreeSet};

pub use crate::compare::update::{CLIP_FRAMES, CompareAreas, TakeArea};
pub use crate::preview::update::{Subject, subject};
pub use crate::tasks::bulk::{bulk_message, eligible};
pub use crate::tasks::update::resubmission;
pub use action::{Action, BatchNews, Effect, EffectError, Op, Reload};
pub use dispatch::{ROUTES, Route};
pub use quit::{AfterQuit, Summary, quit_question};
pub use review::{TagInput, rate_step, tag_changes};

use crossterm::event::KeyEventKind;

use super::compare::Compare;
use super::compose::{Field, Form, MediaEditor, PathInput};
use super::help::HelpState;
use super::history::History;
use super::keymap::{Keymap, Scope, UserAction};
use super::link::{Link, reload_since};
use super::prefs::Prefs;
use super::preview::Previews;
use super::tasks::Table;
use crate::labels::sentence;
use reel_engine::ServiceState;
use reel_rules::{Budget, Catalog, Pricing};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Form(Field),
    Table,
    /// The detail pane, to scroll it.
    Detail,
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
    /// Send although today's spending would pass the daily budget? `text` says by how much.
    Budget { then: Box<Effect>, planned: f64, text: String },
    /// Send several paid tasks again?
    Again { then: Box<Effect>, count: usize, billed: String, cost: String },
    /// Quit while tasks are unfinished, or submissions are held for an engine not attached?
    Quit { unfinished: usize, held: usize },
    /// Replace the unsent draft in the form with this task's parameters ("vary")?
    Vary(Box<reel_store::TaskRecord>),
    /// Send a batch file's tasks, more than `[batch] confirm_over` of them?
    Batch { then: Box<Effect>, count: usize, billed: String, cost: String },
}

/// What a picker chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    Model,
    /// A group of states, for the screen's filter.
    States,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help(HelpState),
    Picker {
        kind: PickerKind,
        cursor: usize,
    },
    Media(MediaEditor),
    /// The path of a batch file to load into the form.
    BatchPath(PathInput),
    Confirm(Question),
    /// The line where tags are typed for a task.
    Tags(TagInput),
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
    /// `user@host:port` when the engine runs on another machine, reached over SSH.
    pub far: Option<String>,
    /// The service as the engine last said: health, since when, the pause on every request.
    pub service: ServiceState,
}

pub struct App {
    pub(crate) screen: Screen,
    pub(crate) history: History,
    pub(crate) focus: Focus,
    pub(crate) form: Form,
    pub(crate) table: Table,
    pub(crate) header: Header,
    pub(crate) overlay: Option<Overlay>,
    pub(crate) status: Option<Status>,
    /// Shown in the detail pane until the first task exists.
    pub(crate) welcome: Option<String>,
    pub(crate) keymap: Keymap,
    pub(crate) now_ms: i64,
    /// Advances on every tick: drives the spinners.
    pub(crate) frame: u64,
    pub(crate) size: (u16, u16),
    pub(crate) quit: bool,
    /// What becomes of unfinished tasks when the dashboard quits (set at start from the engine).
    pub(crate) after_quit: AfterQuit,
    /// Whether the engine is attached, and where re-attaching stands when it is not.
    pub(crate) link: Link,
    /// Submissions made while the engine was not attached, sent once it is.
    pub(crate) held: Vec<Effect>,
    /// The newest change the engine reported (its `updated_at`, on the engine's clock): after
    /// a dropped link to another machine the rows are read again from there, whatever the
    /// two clocks say.
    pub(crate) engine_mark: Option<i64>,
    /// Why the last attempt to attach again failed, as said on the status line.
    pub(crate) reattach_error: Option<String>,
    /// The first line of the detail pane shown.
    pub(crate) detail_scroll: u16,
    /// Frames of saved videos, their pictures, and the inline player.
    pub(crate) previews: Previews,
    /// Tasks sent in this run, for the summary on the way out.
    pub(crate) sent: BTreeSet<i64>,
    /// Tasks sent in this run whose records were deleted since.
    pub(crate) sent_deleted: usize,
    /// Tasks with review changes sent to the engine and shown already, and how many of those
    /// changes the engine has not answered yet: until it has answered them all, its news of
    /// the task keeps the review shown (news of the first of three quick `+` must not undo
    /// the other two).
    pub(crate) reviewing: BTreeMap<i64, usize>,
    pub(crate) catalog: Catalog,
    pub(crate) pricing: Pricing,
    pub(crate) actions: Vec<UserAction>,
    pub(crate) budget: Budget,
    /// Today's spending so far (priced models only), for the daily budget.
    pub(crate) spent_today: f64,
    pub(crate) last_selected: Option<i64>,
    pub(crate) last_lineage: Option<i64>,
    /// Just tabbed into a one-line field: the first character typed replaces its value.
    pub(crate) replace_on_type: bool,
    /// A draft file exists from this run or the last: quitting without a draft removes it.
    pub(crate) draft_kept: bool,
    /// Writes the draft as it changes (debounced), so a closed terminal or a kill loses little.
    pub(crate) draft_keeper: crate::compose::draft_keep::DraftKeeper,
    /// A pick asked for, and the takes of its batch picked before it: said when it lands.
    pub(crate) pick_moving: Option<(i64, Vec<i64>)>,
    /// The form hidden (zoom) and a picker's filter: what the views show, owned by no part.
    pub(crate) on_screen: zoom::OnScreen,
    /// Past this many tasks, sending a batch file asks first (`[batch] confirm_over`).
    pub(crate) batch_confirm_over: usize,
    /// Takes side by side (`C`), over the screen it was opened from.
    pub(crate) compare: Option<Compare>,
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
        let mut form = Form::new(&catalog, &pricing);
        form.set_demo(header.demo);
        form.show_cursor(Some(Field::Prompt));
        let welcome_text = if header.demo {
            "Demo mode: no API key is configured, so reel runs against its embedded simulator (tasks take \
             about 15 s). Type a prompt and press Ctrl-S. To use a real provider, set REEL_BASE_URL and \
             REEL_API_KEY, or add a profile to the config file (see README)."
        } else {
            // A new profile's first run: the doctor says what the service expects before anything is spent.
            "No tasks yet with this service. New profile? Run `reel doctor` first: it checks the key, the models \
             the service lists and the settings it expects, without sending a task. Then type a prompt and press \
             Ctrl-S."
        };
        let welcome = Some(welcome_text.to_string());
        let history = History::new(prefs.history.clone());
        let after_quit = if header.demo { AfterQuit::Lost } else { AfterQuit::Pause };
        App {
            screen: Screen::Dashboard,
            history,
            focus: Focus::Form(Field::Prompt),
            form,
            table: Table::new(prefs.sort, prefs.filter),
            header,
            overlay: None,
            status: None,
            welcome,
            keymap: Keymap::new(&actions),
            now_ms,
            frame: 0,
            size,
            quit: false,
            after_quit,
            link: Link::Opening,
            held: Vec::new(),
            engine_mark: None,
            reattach_error: None,
            detail_scroll: 0,
            previews: Previews::default(),
            sent: BTreeSet::new(),
            sent_deleted: 0,
            reviewing: BTreeMap::new(),
            catalog,
            pricing,
            actions,
            budget,
            spent_today: 0.0,
            last_selected: None,
            last_lineage: None,
            replace_on_type: false,
            draft_kept: false,
            draft_keeper: Default::default(),
            pick_moving: None,
            on_screen: zoom::OnScreen::default(),
            batch_confirm_over: reel_engine::config::BatchSettings::default().confirm_over as usize,
            compare: None,
        }
    }

    pub fn screen(&self) -> Screen {
        self.screen
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn focus(&self) -> Focus {
        self.focus
    }

    pub fn form(&self) -> &Form {
        &self.form
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    pub fn welcome(&self) -> Option<&str> {
        self.welcome.as_deref()
    }

    pub fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// Advances on every tick: drives the spinners.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    /// Whether the user asked to quit (and was not asked back).
    pub fn quitting(&self) -> bool {
        self.quit
    }

    pub fn after_quit(&self) -> AfterQuit {
        self.after_quit
    }

    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Submissions held while no engine is attached.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    pub fn detail_scroll(&self) -> u16 {
        self.detail_scroll
    }

    pub fn previews(&self) -> &Previews {
        &self.previews
    }

    /// Tasks sent in this run.
    pub fn sent(&self) -> &BTreeSet<i64> {
        &self.sent
    }

    /// Today's spending so far (priced, non-demo work), for the daily budget.
    pub fn spent_today(&self) -> f64 {
        self.spent_today
    }

    /// What the start learned of the terminal and the engine: the keys as configured, the
    /// terminal's image protocol, and what becomes of unfinished tasks on quitting.
    pub fn started(&mut self, keymap: Keymap, previews: Previews, after_quit: AfterQuit) {
        self.keymap = keymap;
        self.previews = previews;
        self.after_quit = after_quit;
    }

    /// Gives the keys to a part of the screen, as a click or Tab does.
    pub fn focus_on(&mut self, focus: Focus) {
        self.focus = focus;
        self.sync_cursors();
    }

    /// Selects the task at `index` of the table's view, as a click does.
    pub fn select_row(&mut self, index: usize) {
        self.table.select_at(index);
    }

    /// Adds a media item to the form, as the media editor's Enter does: the check of the
    /// item to run.
    pub fn add_media(&mut self, item: reel_rules::MediaDraft) -> Vec<Effect> {
        let key = self.form.put_media(None, item.clone());
        vec![Effect::CheckMedia(vec![(key, item)])]
    }

    /// The price table, for views that show costs.
    pub fn pricing_ref(&self) -> &Pricing {
        &self.pricing
    }

    /// What the event loop does first: read the rows to show (unfinished and recent tasks:
    /// an engine process kept working while no dashboard was open), and learn today's spending
    /// (for the daily budget), and what models the service lists (for the form's list).
    pub fn initial_effects(&self) -> Vec<Effect> {
        let mut effects = vec![
            Effect::Reload { since_ms: reload_since(self.now_ms, None), check: Vec::new() },
            Effect::LoadServiceModels,
        ];
        if self.budget.daily.is_some() {
            effects.push(Effect::LoadSpent);
        }
        effects
    }

    /// The scope whose keys apply now.
    pub fn scope(&self) -> Scope {
        let history = self.screen == Screen::History;
        match (&self.overlay, self.focus) {
            (Some(Overlay::Help(h)), _) if h.typing() => Scope::HelpFilter,
            (Some(Overlay::Help(_)), _) => Scope::HelpView,
            (Some(Overlay::Picker { .. }), _) => Scope::Picker,
            (Some(Overlay::Media(_)), _) => Scope::MediaEditor,
            (Some(Overlay::BatchPath(_)), _) => Scope::Path,
            (Some(Overlay::Confirm(_)), _) => Scope::Confirm,
            (Some(Overlay::Tags(_)), _) => Scope::Tagging,
            (None, _) if self.compare.is_some() => Scope::Comparing,
            (None, _) if history && self.history.typing() => Scope::HistorySearch,
            (None, _) if history && self.history.detail_focused() => Scope::Detail,
            (None, _) if history => Scope::History,
            (None, Focus::Table) if self.table.search().1 => Scope::Searching,
            (None, Focus::Table) => Scope::Table,
            (None, Focus::Detail) => Scope::Detail,
            (None, Focus::Form(f)) => f.scope(),
        }
    }

    /// Whether anything waits for time to pass (spinners, elapsed times, countdowns, a search
    /// that has not settled, the next attempt to attach to the engine): the loop ticks only then.
    pub fn animating(&self) -> bool {
        // A playing preview is not here: its frames wake the loop themselves.
        self.table.running() > 0
            || self.history.search_pending()
            || self.header.service.paused_until_ms.is_some_and(|t| t > self.now_ms)
            || !self.link.attached()
            || self.compare.as_ref().is_some_and(Compare::running)
    }

    /// Whether a saved file is on screen, so the loop looks at the disk every few seconds.
    pub fn watches_files(&self) -> bool {
        !self.files_on_screen().is_empty()
    }

    /// One capitalisation style: every message starts with a capital letter.
    pub(crate) fn say(&mut self, level: Level, text: impl Into<String>) {
        self.status = Some(Status { text: sentence(&text.into()), level });
    }

    /// An effect's error, as the user reads it (errors may quote what a server sent), and in
    /// the log.
    pub(crate) fn say_error(&mut self, prefix: &str, e: &EffectError) {
        tracing::warn!("{prefix}{e}");
        self.say(Level::Error, format!("{prefix}{}", reel_rules::text::clean(&e.to_string())));
    }

    /// The one entry: applies `action` at `now_ms` and returns the work it asks for.
    pub fn update(&mut self, action: Action, now_ms: i64) -> Vec<Effect> {
        self.now_ms = now_ms;
        if !matches!(action, Action::Tick | Action::PlayFrame(..)) {
            tracing::debug!(action = action.name(), "dashboard");
        }
        let focus_before = self.focus;
        let mut effects = match action {
            Action::Key(ev) if ev.kind != KeyEventKind::Release => self.key(ev),
            Action::Key(_) => Vec::new(),
            Action::Paste(text) => {
                self.paste(&text);
                Vec::new()
            }
            // The compare view takes no clicks: its keys say what they do.
            Action::Mouse(_) if self.compare.is_some() => Vec::new(),
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
                if self.header.service.paused_until_ms.is_some_and(|t| t <= now_ms) {
                    self.header.service.paused_until_ms = None;
                }
                self.settle_search()
            }
            Action::CheckFiles => {
                let files = self.files_on_screen();
                if files.is_empty() { Vec::new() } else { vec![Effect::CheckFiles(files)] }
            }
            Action::Batch(news) => self.batch_news(news),
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
            self.detail_scroll = 0;
            effects.push(Effect::LoadTimeline(id));
            if let Some(path) = self.table.row(id).and_then(|r| r.record.file_path.clone()) {
                effects.push(Effect::CheckFiles(vec![(id, path)]));
            }
        }
        if self.screen == Screen::History {
            effects.extend(self.history_follow_ups());
        }
        effects.extend(self.sync_previews());
        effects.extend(self.batch_refresh());
        self.note_batch_sending(&effects);
        self.sync_compare_reviews();
        effects.extend(self.sync_compare());
        effects.extend(self.keep_draft(now_ms));
        if self.link.attached() { effects } else { self.while_down(effects) }
    }

    /// The draft written as it changes, once a change has stood for a moment (not on quitting:
    /// that writes it at once).
    pub(crate) fn keep_draft(&mut self, now_ms: i64) -> Option<Effect> {
        if self.quit {
            return None;
        }
        let current = self.form.has_draft().then(|| self.form.saved());
        let write = self.draft_keeper.note(current, now_ms)?;
        self.draft_kept |= write.is_some();
        Some(Effect::KeepDraft(write))
    }

    /// When the draft's pending write falls due, if one is pending (the loop wakes then).
    pub fn draft_due_ms(&self) -> Option<i64> {
        self.draft_keeper.due_ms()
    }

    pub(crate) fn prefs(&self) -> Prefs {
        Prefs { sort: self.table.sort(), filter: self.table.filter(), history: self.history.filters().clone() }
    }

    /// Remembers the table's and the history's choices for the next run.
    pub(crate) fn save_prefs(&mut self) -> Effect {
        self.history.saved();
        Effect::SavePrefs(self.prefs())
    }

    /// Only the focused text area shows a cursor.
    pub(crate) fn sync_cursors(&mut self) {
        let field = match self.focus {
            Focus::Form(f) => Some(f),
            _ => None,
        };
        self.form.show_cursor(field);
    }
}

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_batch;
#[cfg(test)]
mod tests_compare;
#[cfg(test)]
mod tests_dispatch;
#[cfg(test)]
mod tests_follow;
#[cfg(test)]
mod tests_keys;
#[cfg(test)]
mod tests_link;
#[cfg(test)]
mod tests_preview;
#[cfg(test)]
mod tests_review;
#[cfg(test)]
mod tests_rows;
#[cfg(test)]
mod tests_truth;
