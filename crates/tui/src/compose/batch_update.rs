//! A batch file in the form: the path input (Ctrl-O), the plan the effect read and expanded,
//! sending it as one batch (the `[batch] confirm_over` question, then the budget guard), and
//! unloading it (Esc in the form).

use crate::app::{Action, App, BatchNews, Effect, Focus, Level, Overlay, Question};
use crate::compose::{Completion, Field, PathInput, more_row_errors, split_typed};
use crate::keymap::{Cmd, Scope};
use crate::labels::count;
use reel_rules::batch::plan::Plan;

impl App {
    /// The threshold of `[batch] confirm_over`: past it, sending a batch file asks first.
    pub fn set_batch_confirm_over(&mut self, tasks: u32) {
        self.batch_confirm_over = tasks as usize;
    }

    /// Ctrl-O: the path input, holding the file loaded now (to load it again) if any.
    pub(crate) fn open_batch_path(&mut self) {
        let current = self.form.batch().map_or("", |b| b.file());
        self.overlay = Some(Overlay::BatchPath(PathInput::new(current)));
    }

    /// Enter in the path input: the file is read and expanded by an effect, over the form's
    /// fields as they are now.
    pub(crate) fn batch_path_chosen(&mut self, input: PathInput) -> Vec<Effect> {
        let path = input.text().trim().to_string();
        if path.is_empty() {
            self.overlay = Some(Overlay::BatchPath(input));
            self.say(Level::Warn, "Type the path of a batch file (JSON lines, CSV or text)");
            return Vec::new();
        }
        self.say(Level::Info, format!("Reading {}…", reel_rules::text::clean(&path)));
        vec![Effect::LoadBatch { path, defaults: self.form.batch_defaults(), refresh: false }]
    }

    /// Tab in the path input: the folder is listed by an effect.
    pub(crate) fn complete_path(&mut self) -> Vec<Effect> {
        match &self.overlay {
            Some(Overlay::BatchPath(p)) => vec![Effect::CompletePath(p.text().to_string())],
            _ => Vec::new(),
        }
    }

    pub(crate) fn batch_news(&mut self, news: BatchNews) -> Vec<Effect> {
        match news {
            BatchNews::Completed { typed, completion } => {
                // Only for the text still typed: a key typed meanwhile wins.
                let Some(Overlay::BatchPath(p)) = &mut self.overlay else { return Vec::new() };
                if p.text() != typed {
                    return Vec::new();
                }
                match completion {
                    Completion::To(text) => {
                        p.complete(&text);
                        self.status = None;
                    }
                    Completion::Choices(names) => {
                        let shown: Vec<String> = names.iter().map(|n| reel_rules::text::clean(n)).collect();
                        self.say(Level::Info, format!("Matches: {}", shown.join("  ")));
                    }
                    Completion::Nothing => {
                        let (dir, start) = split_typed(&typed);
                        let dir = if dir.is_empty() { "the current folder" } else { dir };
                        let text = format!(
                            "Nothing in {} starts with \"{}\"",
                            reel_rules::text::clean(dir),
                            reel_rules::text::clean(start)
                        );
                        self.say(Level::Warn, text);
                    }
                }
                Vec::new()
            }
            BatchNews::Loaded { refresh: true, defaults, result } => {
                // Loaded again over the changed form: only the file loaded now is replaced.
                let Some(file) = self.form.batch().map(|b| b.file().to_string()) else { return Vec::new() };
                match result {
                    Ok(plan) if plan.file == file => self.form.load_batch(plan, defaults),
                    Ok(_) => {}
                    // A plan not expanded over the form as it is must not be sent: it goes.
                    Err(e) => {
                        self.form.unload_batch();
                        self.say_error(
                            &format!("Unloaded {}: cannot load it again: ", reel_rules::text::clean(&file)),
                            &e,
                        );
                    }
                }
                Vec::new()
            }
            BatchNews::Loaded { refresh: false, defaults, result: Ok(plan) } => {
                let key = |cmd| self.keymap.key_for(Scope::Text, cmd).unwrap_or_default();
                let text = loaded_message(&plan, &key(Cmd::Submit), &key(Cmd::LeaveForm));
                let level = if plan.problems.is_empty() { Level::Info } else { Level::Warn };
                self.form.load_batch(plan, defaults);
                self.focus = Focus::Form(Field::Prompt);
                self.say(level, text);
                Vec::new()
            }
            BatchNews::Loaded { refresh: false, result: Err(e), .. } => {
                self.say_error("Cannot load the batch file: ", &e);
                Vec::new()
            }
            BatchNews::Submitted(result) => {
                let sent = result.as_ref().ok().map(Vec::len);
                // The plan being sent: another file loaded meanwhile is not this answer's.
                let file = self.form.batch().filter(|b| b.sending()).map(|b| b.file().to_string());
                // The table, the history and the status line take the tasks as any sent.
                let effects = self.news(Action::Submitted { again: false, result });
                match (sent, file) {
                    (Some(n), Some(file)) => {
                        self.form.unload_batch();
                        let text = format!(
                            "Sent {} of {} as one batch; the form is as it was",
                            count(n, "task"),
                            reel_rules::text::clean(&file)
                        );
                        self.say(Level::Info, text);
                    }
                    (Some(_), None) | (None, None) => {}
                    // Not sent: the plan stays, to send again.
                    (None, Some(_)) => self.form.batch_sending(false),
                }
                effects
            }
        }
    }

    /// Ctrl-S with a plan loaded: every task of it as one batch, after the threshold's
    /// question and the budget guard; or why nothing is sent.
    pub(crate) fn submit_batch(&mut self) -> Option<Vec<Effect>> {
        let send = match self.form.batch_send()? {
            Ok(send) => send,
            Err(refusal) => {
                self.say(Level::Error, format!("Not sent: {refusal}"));
                return Some(Vec::new());
            }
        };
        let (n, billed, cost) = (send.count, send.billed.clone(), send.cost.clone());
        let then = Effect::SubmitBatch(send.parts);
        if n > self.batch_confirm_over {
            self.overlay = Some(Overlay::Confirm(Question::Batch { then: Box::new(then), count: n, billed, cost }));
            return Some(Vec::new());
        }
        self.say(Level::Info, format!("Sending {}…", count(n, "task")));
        Some(self.guarded(then))
    }

    /// Esc in the form with a plan loaded: the plan goes, the form stays. Returns whether
    /// there was one.
    pub(crate) fn unload_batch(&mut self) -> bool {
        let Some(file) = self.form.batch().map(|b| b.file().to_string()) else { return false };
        self.form.unload_batch();
        let send = self.keymap.key_for(Scope::Text, Cmd::Submit).unwrap_or_default();
        self.say(Level::Info, format!("Unloaded {}; {send} sends the form again", reel_rules::text::clean(&file)));
        true
    }

    /// A loaded plan expanded over fields the form no longer holds: it is loaded again.
    pub(crate) fn batch_refresh(&mut self) -> Option<Effect> {
        let (path, defaults) = self.form.batch_refresh()?;
        Some(Effect::LoadBatch { path, defaults, refresh: true })
    }

    /// The effects `update` gives out: a batch handed to the engine is being sent.
    pub(crate) fn note_batch_sending(&mut self, effects: &[Effect]) {
        let batch = |e: &Effect| matches!(e, Effect::SubmitBatch(_));
        if effects.iter().any(|e| batch(e) || matches!(e, Effect::PastBudget(inner) if batch(inner))) {
            self.form.batch_sending(true);
        }
    }
}

/// What the status line says of a plan just loaded.
fn loaded_message(plan: &Plan, send_key: &str, unload_key: &str) -> String {
    let file = reel_rules::text::clean(&plan.file);
    if let Some(first) = plan.problems.first() {
        let first = reel_rules::text::clean(&first.to_string());
        return format!("Loaded {file}, not sendable: {first}{}", more_row_errors(plan.problems.len()));
    }
    let to_send = plan.to_send().len();
    if plan.tasks.is_empty() {
        return format!("Loaded {file}: it has no task to send");
    }
    if to_send == 0 {
        return format!("Loaded {file}: all its {} were already sent", count(plan.tasks.len(), "task"));
    }
    format!(
        "Loaded {file}: {} to send; {send_key} sends them as one batch, {unload_key} unloads it",
        count(to_send, "task")
    )
}
