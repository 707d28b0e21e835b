//! Commands on the task table: marks, sort, filter, search, and actions on the selected or
//! marked tasks (open, copy, run, submit again, vary, download, check again).

use super::{App, Effect, Focus, Level};
use crate::rules::{Catalog, Invalid, UnknownModels, ValidSubmission, validate};
use crate::store::{LocalState, TaskRecord};
use crate::tui::form::Field;
use crate::tui::keymap::Cmd;

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
pub fn resubmission(t: &TaskRecord, catalog: &Catalog) -> Result<ValidSubmission, Invalid> {
    validate(&crate::engine::journal::draft(t), catalog, UnknownModels::Warn)
}

impl App {
    pub(super) fn table_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        match cmd {
            Cmd::Mark => self.table.toggle_mark(),
            Cmd::Sort | Cmd::Filter => {
                if cmd == Cmd::Sort {
                    self.table.prefs.sort = self.table.prefs.sort.next();
                } else {
                    self.table.prefs.filter = self.table.prefs.filter.next();
                }
                self.table.rebuild();
                let (filter, sort) = (self.table.prefs.filter.label(), self.table.prefs.sort.label());
                self.say(Level::Info, format!("Showing {filter} tasks, {sort}"));
                return vec![self.save_prefs()];
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
            _ => {}
        }
        Vec::new()
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
                let (id, state) = (t.id, t.state);
                self.say(Level::Warn, format!("Task {id} has no {what} yet ({state})"));
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
            self.vary(t);
        }
        self.table.marks.clear();
        effects
    }

    /// Copies a task into the form; the next submission records it as the parent.
    pub(super) fn vary(&mut self, t: &TaskRecord) {
        self.form.load(t);
        self.recheck();
        self.focus = Focus::Form(Field::Prompt);
        self.say(Level::Info, format!("Copied task {} into the form; the next submission records it as parent", t.id));
    }
}
