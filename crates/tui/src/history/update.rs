//! Commands of the history screen: opening and leaving it, filters, the search as you type
//! (run once the typing settles), paging, lineage and actions on the selected task.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{App, Effect, Level, Op, Overlay, Question, Screen};
use crate::history::cycle;
use crate::keymap::Cmd;
use crate::labels::Filter;
use reel_rules::text::local_day_start;
use reel_store::history::Order;

impl App {
    pub(crate) fn open_history(&mut self) -> Vec<Effect> {
        self.screen = Screen::History;
        self.status = None;
        self.detail_scroll = 0;
        let mut effects = vec![Effect::LoadModels];
        // Tasks sent or deleted while the screen was away are read again, so it never shows
        // a snapshot of the last visit.
        if self.history.stale() {
            effects.extend(self.requery(true));
        }
        effects
    }

    pub(crate) fn leave_history(&mut self) -> Vec<Effect> {
        self.screen = Screen::Dashboard;
        self.status = None;
        self.history.leave_detail();
        self.detail_scroll = 0;
        if self.history.unsaved() { vec![self.save_prefs()] } else { Vec::new() }
    }

    /// Starts the history over after a filter changed; with `save`, remembers the filters now,
    /// else they are remembered when the search is kept or the screen is left.
    pub(crate) fn requery(&mut self, save: bool) -> Vec<Effect> {
        let today = local_day_start(self.now_ms);
        let (ticket, query) = self.history.restart(today);
        self.last_lineage = None;
        let mut effects = vec![Effect::HistoryPage { ticket, query, cursor: None }];
        if save {
            effects.push(self.save_prefs());
        }
        if self.history.show_ledger() {
            effects.push(Effect::LoadLedger(self.history.filters().span.since(today)));
        }
        effects
    }

    /// A key typed into the history search: the query waits until typing pauses.
    pub(crate) fn search_typed(&mut self, ev: KeyEvent) {
        let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match ev.code {
            KeyCode::Char(c) if plain && !c.is_control() => self.history.edit_search(self.now_ms, |t| t.push(c)),
            KeyCode::Backspace => self.history.edit_search(self.now_ms, |t| {
                t.pop();
            }),
            _ => {}
        }
    }

    /// On a tick: runs the search once the typing has paused long enough.
    pub(crate) fn settle_search(&mut self) -> Vec<Effect> {
        if self.history.search_settled(self.now_ms) { self.requery(false) } else { Vec::new() }
    }

    /// After every update on the history screen: the next page when the selection nears the
    /// end, and the selected task's lineage.
    pub(crate) fn history_follow_ups(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        // While a search waits to settle, the loaded rows belong to the query before it.
        if self.history.search_pending() {
            return effects;
        }
        if let Some((ticket, query, cursor)) = self.history.next_page(local_day_start(self.now_ms)) {
            effects.push(Effect::HistoryPage { ticket, query, cursor });
        }
        if let Some(id) = self.history.selected_row().map(|r| r.record.id)
            && self.last_lineage != Some(id)
        {
            self.last_lineage = Some(id);
            self.detail_scroll = 0;
            effects.push(Effect::Lineage(id));
        }
        effects
    }

    /// The history screen's meaning of a command, or `None` when it has none of its own.
    pub(crate) fn history_command(&mut self, cmd: Cmd) -> Option<Vec<Effect>> {
        let mut page = (self.size.1 / 2).max(1) as isize;
        // In the grid, up and down go a row of posters, left and right one, a page a screenful.
        let mut row = 1;
        if self.history.grid() {
            let (_, g) = self.grid();
            row = g.cols as isize;
            page = g.cells() as isize;
        }
        let h = &mut self.history;
        let effects = match cmd {
            Cmd::ValuePrev | Cmd::ValueNext if h.grid() => {
                h.move_by(if cmd == Cmd::ValueNext { 1 } else { -1 });
                Vec::new()
            }
            Cmd::ShowHistory => self.leave_history(),
            Cmd::NextFocus | Cmd::PrevFocus => {
                self.toggle_history_focus();
                Vec::new()
            }
            Cmd::Up | Cmd::Down | Cmd::PageUp | Cmd::PageDown | Cmd::Top | Cmd::Bottom => {
                h.move_by(match cmd {
                    Cmd::Up => -row,
                    Cmd::Down => row,
                    Cmd::PageUp => -page,
                    Cmd::PageDown => page,
                    Cmd::Top => isize::MIN / 2,
                    _ => isize::MAX / 2,
                });
                Vec::new()
            }
            Cmd::Search => {
                h.set_typing(true);
                Vec::new()
            }
            Cmd::ClearLine => {
                h.edit_search(self.now_ms, String::clear);
                Vec::new()
            }
            // Enter keeps the search: run it now if it has not run yet, and remember it.
            Cmd::CloseOverlay => {
                h.set_typing(false);
                let mut effects = if h.search_pending() { self.requery(true) } else { Vec::new() };
                if self.history.unsaved() {
                    effects.push(self.save_prefs());
                }
                effects
            }
            Cmd::ClearSelection => {
                h.set_typing(false);
                h.edit_filters(|f, _| f.text.clear());
                self.requery(true)
            }
            Cmd::CycleModel => {
                h.edit_filters(|f, models| f.model = cycle(&f.model, models));
                self.requery(true)
            }
            Cmd::Filter => {
                let current = h.filters().group;
                self.open_state_picker(current);
                Vec::new()
            }
            Cmd::CycleSpan => {
                h.edit_filters(|f, _| f.span = f.span.next());
                self.requery(true)
            }
            Cmd::Sort => {
                h.edit_filters(|f, _| f.order = if f.order == Order::Newest { Order::Oldest } else { Order::Newest });
                self.requery(true)
            }
            Cmd::ToggleLedger => {
                let shown = h.toggle_ledger();
                let since = h.filters().span.since(local_day_start(self.now_ms));
                if shown { vec![Effect::LoadLedger(since)] } else { Vec::new() }
            }
            Cmd::Open | Cmd::Reveal | Cmd::CopyPrompt | Cmd::Resubmit | Cmd::Vary | Cmd::Download | Cmd::Delete => {
                self.on_history_row(cmd)
            }
            _ => return None,
        };
        Some(effects)
    }

    /// The history's state group was picked.
    pub(crate) fn set_history_filter(&mut self, filter: Filter) -> Vec<Effect> {
        self.history.edit_filters(|f, _| f.group = filter);
        self.requery(true)
    }

    pub(crate) fn on_history_row(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(row) = self.history.selected_row() else {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        };
        let t = row.record.clone();
        let present = row.file_present;
        let file = t.file_path.clone().filter(|_| present == Some(true));
        match cmd {
            Cmd::Open | Cmd::Reveal => match file {
                Some(path) if cmd == Cmd::Open => {
                    vec![Effect::Open { path, sha256: reel_engine::fetched::saved_sum(&t).map(String::from) }]
                }
                Some(p) => {
                    let dir = std::path::Path::new(&p).parent().map(|d| d.display().to_string()).unwrap_or(p);
                    vec![Effect::Reveal(dir)]
                }
                None => {
                    let text = match (&t.file_path, present) {
                        (Some(p), Some(false)) => {
                            format!(
                                "The file of task {} is missing: {} (moved or deleted)",
                                t.id,
                                reel_rules::text::clean(p)
                            )
                        }
                        _ => format!("Task {} has no saved file ({})", t.id, t.state),
                    };
                    self.say(Level::Warn, text);
                    Vec::new()
                }
            },
            Cmd::CopyPrompt => vec![Effect::Copy(t.prompt.clone())],
            Cmd::Download => self.bulk(Op::Download, std::slice::from_ref(&t)),
            Cmd::Delete => {
                self.overlay = Some(Overlay::Confirm(Question::Delete(t.id)));
                Vec::new()
            }
            Cmd::Vary => {
                let effects = self.leave_history();
                self.vary(&t);
                effects
            }
            _ => match crate::app::resubmission(&t, &self.catalog) {
                Ok(v) => self.guarded(Effect::SubmitAgain(vec![(t.id, v)])),
                Err(e) => {
                    self.say(Level::Error, format!("Task {} cannot be run again: {e}", t.id));
                    Vec::new()
                }
            },
        }
    }
}
