//! Commands on the task table: marks, sort, the state picker, search, actions on the selected
//! task (open, copy, run), the files on screen, and following the newest task.

use ratatui::layout::Rect;

use super::{App, Effect, Focus, Level, Overlay, PickerKind, Screen};
use crate::rules::{Catalog, Invalid, UnknownModels, ValidSubmission, validate};
use crate::store::{LocalState, TaskRecord};
use crate::tui::form::Field;
use crate::tui::keymap::{Cmd, fill_command};
use crate::tui::layout;
use crate::tui::table::Filter;

/// A task's parameters as a submission, for "submit again as is".
pub fn resubmission(t: &TaskRecord, catalog: &Catalog) -> Result<ValidSubmission, Invalid> {
    validate(&crate::engine::journal::draft(t), catalog, UnknownModels::Warn)
}

impl App {
    pub(super) fn table_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        match cmd {
            Cmd::Mark => self.table.toggle_mark(),
            Cmd::Sort => {
                self.table.prefs.sort = self.table.prefs.sort.next();
                self.table.rebuild();
                let (filter, sort) = (self.table.prefs.filter.label(), self.table.prefs.sort.label());
                self.say(Level::Info, format!("Showing {filter} tasks, {sort}"));
                return vec![self.save_prefs()];
            }
            Cmd::Filter => self.open_state_picker(self.table.prefs.filter),
            Cmd::Search => self.table.searching = true,
            Cmd::ClearSelection => {
                self.table.searching = false;
                self.table.search.clear();
                self.table.marks.clear();
                self.table.rebuild();
            }
            Cmd::Open | Cmd::CopyPath | Cmd::CopyUrl | Cmd::UserAction(_) => return self.on_selected(cmd),
            Cmd::Resubmit | Cmd::Vary | Cmd::Download | Cmd::Recheck => return self.on_targets(cmd),
            _ => {}
        }
        Vec::new()
    }

    pub(super) fn open_state_picker(&mut self, current: Filter) {
        let cursor = Filter::ALL.iter().position(|f| *f == current).unwrap_or(0);
        self.overlay = Some(Overlay::Picker { kind: PickerKind::States, cursor });
    }

    /// The table's filter was picked.
    pub(super) fn set_table_filter(&mut self, filter: Filter) -> Vec<Effect> {
        self.table.prefs.filter = filter;
        self.table.rebuild();
        let (filter, sort) = (filter.label(), self.table.prefs.sort.label());
        self.say(Level::Info, format!("Showing {filter} tasks, {sort}"));
        vec![self.save_prefs()]
    }

    fn on_selected(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(row) = self.table.selected_row() else {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        };
        let t = &row.record;
        if cmd == Cmd::Open
            && row.file_present == Some(false)
            && let Some(p) = &t.file_path
        {
            let text = format!("The file of task {} is missing: {} (moved or deleted)", t.id, crate::text::clean(p));
            self.say(Level::Warn, text);
            return Vec::new();
        }
        let effect = match cmd {
            Cmd::Open | Cmd::CopyPath => {
                t.file_path.clone().map(|p| if cmd == Cmd::Open { Effect::Open(p) } else { Effect::Copy(p) })
            }
            Cmd::CopyUrl => t.url.clone().map(Effect::Copy),
            Cmd::UserAction(i) => match self.actions.get(i).map(|a| fill_command(a, t)).transpose() {
                Ok(argv) => argv.map(Effect::Run),
                Err(e) => {
                    self.say(Level::Warn, e.to_string());
                    return Vec::new();
                }
            },
            _ => None,
        };
        match effect {
            Some(e) => vec![e],
            None => {
                let what = if cmd == Cmd::CopyUrl { "URL" } else { "saved file" };
                let (id, state) = (t.id, t.state);
                self.say(Level::Warn, format!("Task {id} has no {what} yet ({state})"));
                Vec::new()
            }
        }
    }

    /// Copies a task into the form; the next submission records it as the parent.
    pub(super) fn vary(&mut self, t: &TaskRecord) {
        self.form.load(t);
        self.recheck();
        self.focus = Focus::Form(Field::Prompt);
        self.say(Level::Info, format!("Copied task {} into the form; the next submission records it as parent", t.id));
    }

    /// After sending: the newest task is selected, so the table scrolls to it.
    pub(super) fn follow_newest(&mut self, ids: &[i64]) {
        if let Some(newest) = ids.iter().copied().filter(|id| self.table.view.contains(id)).max() {
            self.table.select(newest);
        }
    }

    /// The saved files of the task rows on screen, to look at on the disk.
    pub(super) fn files_on_screen(&self) -> Vec<(i64, String)> {
        if self.screen != Screen::Dashboard {
            return Vec::new();
        }
        let areas = layout::areas(Rect::new(0, 0, self.size.0, self.size.1), &self.form);
        let start = layout::offset(self.table.selected, self.table.view.len(), areas.table);
        self.table.view[start.min(self.table.view.len())..]
            .iter()
            .take(layout::visible_rows(areas.table))
            .filter_map(|id| self.table.row(*id))
            .filter(|r| r.record.state == LocalState::Downloaded)
            .filter_map(|r| r.record.file_path.clone().map(|p| (r.record.id, p)))
            .collect()
    }
}
