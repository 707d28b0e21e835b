//! Commands on the task table: marks, sort, the state picker, search, actions on the selected
//! task (open, copy, run), the files on screen, and following the newest task.

use crate::app::{App, Effect, Focus, Level, Overlay, PickerKind, Question, Screen};
use crate::compose::Field;
use crate::keymap::{Cmd, fill_command};
use crate::labels::Filter;
use crate::layout;
use reel_rules::{Catalog, Invalid, UnknownModels, ValidSubmission, validate};
use reel_store::{LocalState, TaskRecord};

/// A task's parameters as a submission, for "submit again as is".
pub fn resubmission(t: &TaskRecord, catalog: &Catalog) -> Result<ValidSubmission, Invalid> {
    validate(&reel_engine::journal::draft(t), catalog, UnknownModels::Warn)
}

impl App {
    pub(crate) fn table_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        match cmd {
            Cmd::Mark => self.table.toggle_mark(),
            Cmd::Sort => {
                self.table.set_sort(self.table.sort().next());
                let (filter, sort) = (self.table.filter().tasks(), self.table.sort().label());
                self.say(Level::Info, format!("Showing {filter}, {sort}"));
                return vec![self.save_prefs()];
            }
            Cmd::Filter => self.open_state_picker(self.table.filter()),
            Cmd::Search => self.table.start_search(),
            // Esc while typing a search drops the search; in the table, the search and the marks.
            Cmd::ClearSelection => {
                let typing = self.table.search().1;
                self.table.clear_search();
                if !typing {
                    self.table.clear_marks();
                }
            }
            Cmd::Open | Cmd::CopyPath | Cmd::CopyUrl | Cmd::UserAction(_) => return self.on_selected(cmd),
            Cmd::Resubmit | Cmd::Vary | Cmd::Download | Cmd::Recheck => return self.on_targets(cmd),
            _ => {}
        }
        Vec::new()
    }

    pub(crate) fn open_state_picker(&mut self, current: Filter) {
        let cursor = Filter::ALL.iter().position(|f| *f == current).unwrap_or(0);
        self.overlay = Some(Overlay::Picker { kind: PickerKind::States, cursor });
    }

    /// The table's filter was picked.
    pub(crate) fn set_table_filter(&mut self, filter: Filter) -> Vec<Effect> {
        self.table.set_filter(filter);
        let (filter, sort) = (filter.tasks(), self.table.sort().label());
        self.say(Level::Info, format!("Showing {filter}, {sort}"));
        vec![self.save_prefs()]
    }

    pub(crate) fn on_selected(&mut self, cmd: Cmd) -> Vec<Effect> {
        let Some(row) = self.table.selected_row() else {
            self.say(Level::Warn, "No task selected");
            return Vec::new();
        };
        let t = &row.record;
        if cmd == Cmd::Open
            && row.file_present == Some(false)
            && let Some(p) = &t.file_path
        {
            let text =
                format!("The file of task {} is missing: {} (moved or deleted)", t.id, reel_rules::text::clean(p));
            self.say(Level::Warn, text);
            return Vec::new();
        }
        let effect = match cmd {
            Cmd::Open | Cmd::CopyPath => {
                let sha256 = reel_engine::fetched::saved_sum(t).map(String::from);
                t.file_path
                    .clone()
                    .map(|path| if cmd == Cmd::Open { Effect::Open { path, sha256 } } else { Effect::Copy(path) })
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

    /// Copies a task into the form; the next submission records it as the parent. An unsent
    /// draft in the form is not overwritten without asking.
    pub(crate) fn vary(&mut self, t: &TaskRecord) {
        if self.form.has_draft() {
            self.overlay = Some(Overlay::Confirm(Question::Vary(Box::new(t.clone()))));
            return;
        }
        self.vary_now(t);
    }

    pub(crate) fn vary_now(&mut self, t: &TaskRecord) {
        self.form.load(t);
        self.focus = Focus::Form(Field::Prompt);
        self.say(Level::Info, format!("Copied task {} into the form; the next submission records it as parent", t.id));
    }

    /// `n`: a fresh form for a new prompt, varying no task.
    pub(crate) fn new_prompt(&mut self) {
        let had_text = !self.form.prompt_text().is_empty() || !self.form.negative_text().is_empty();
        let parent = self.form.parent();
        self.form.clear();
        self.focus = Focus::Form(Field::Prompt);
        let mut text = "New prompt".to_string();
        if let Some(p) = parent {
            text.push_str(&format!("; the form no longer varies task {p}"));
        }
        if had_text {
            let undo = self.keymap.key_for(crate::keymap::Scope::Text, crate::keymap::Cmd::Undo);
            text.push_str(&format!(" ({} brings the old text back)", undo.unwrap_or_default()));
        }
        self.say(Level::Info, text);
    }

    /// The form's unsent draft from the last run, put back at start.
    pub fn restore_draft(&mut self, saved: &crate::compose::Saved) {
        self.form.restore(saved);
        self.draft_kept = true;
        self.draft_keeper = crate::compose::draft_keep::DraftKeeper::restored(self.form.saved());
        self.say(Level::Info, "Your unsent draft from the last run is back in the form");
    }

    /// After sending: the newest task is selected, so the table scrolls to it.
    pub(crate) fn follow_newest(&mut self, ids: &[i64]) {
        if let Some(newest) = ids.iter().copied().filter(|id| self.table.view().contains(id)).max() {
            self.table.select(newest);
        }
    }

    /// The saved files of the task rows on screen, to look at on the disk.
    pub(crate) fn files_on_screen(&self) -> Vec<(i64, String)> {
        if self.screen != Screen::Dashboard {
            return Vec::new();
        }
        let areas = self.areas();
        let view = self.table.view();
        let start = layout::offset(self.table.selected(), view.len(), areas.table);
        view[start.min(view.len())..]
            .iter()
            .take(layout::visible_rows(areas.table))
            .filter_map(|id| self.table.row(*id))
            .filter(|r| r.record.state == LocalState::Downloaded)
            .filter_map(|r| r.record.file_path.clone().map(|p| (r.record.id, p)))
            .collect()
    }
}
