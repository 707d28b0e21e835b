//! Keys and text: a key becomes a command through the keymap (or is typed into the focused
//! field), pastes are cleaned, focus moves; the form's own commands live here too.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Focus, Level, Overlay, PickerKind};
use crate::compose::{Field, MediaEditor, TextOp, clean_paste};
use crate::keymap::{Cmd, Scope};
use crate::labels::count;

impl App {
    pub(crate) fn key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        let scope = self.scope();
        // A playing video's keys (Space, Esc) come first where its pane is the subject: the
        // task table, the detail pane and the history list (the form keeps its own).
        let beside = matches!(scope, Scope::Table | Scope::Detail | Scope::History);
        // So do takes playing together in the compare view.
        let comparing = scope == Scope::Comparing && self.compare.as_ref().is_some_and(|c| c.playback().is_some());
        if ((self.playing() && beside) || comparing)
            && let Some(cmd) = self.keymap.lookup_only(Scope::Playing, &ev)
        {
            return self.command(cmd);
        }
        match self.keymap.lookup(scope, &ev) {
            Some(cmd) => self.command(cmd),
            // Nothing is typed under the comparison (the table's search waits below it).
            None if scope == Scope::Comparing => Vec::new(),
            None if scope == Scope::HistorySearch => {
                self.search_typed(ev);
                Vec::new()
            }
            None if scope == Scope::Tagging => {
                self.tags_typed(ev);
                Vec::new()
            }
            None if scope == Scope::Picker => {
                self.picker_typed(ev);
                Vec::new()
            }
            None if scope == Scope::HelpFilter => {
                let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
                match ev.code {
                    KeyCode::Char(c) if plain && !c.is_control() => self.help_typed(Some(c)),
                    KeyCode::Backspace => self.help_typed(None),
                    _ => {}
                }
                Vec::new()
            }
            None => {
                self.typed(ev);
                Vec::new()
            }
        }
    }

    /// A command no other part took (see `dispatch.rs`): the form, the pickers, the media
    /// editor, the task table, quitting.
    pub(crate) fn dashboard_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        match cmd {
            Cmd::Quit | Cmd::ForceQuit => return self.request_quit(),
            Cmd::Help => self.open_help(),
            Cmd::CloseOverlay => {
                self.overlay = None;
                self.table.stop_search();
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
            Cmd::Undo | Cmd::Redo | Cmd::ClearLine => self.edit_line(cmd),
            // Esc in the form unloads a batch file first; the next one leaves the form.
            Cmd::LeaveForm => {
                if !(matches!(self.focus, Focus::Form(_)) && self.unload_batch()) {
                    self.focus = Focus::Table;
                }
            }
            Cmd::LoadBatch => self.open_batch_path(),
            Cmd::CompletePath => return self.complete_path(),
            Cmd::NewPrompt => self.new_prompt(),
            Cmd::Suspend => return vec![Effect::Suspend],
            Cmd::FieldUp | Cmd::FieldDown => self.field_step(cmd == Cmd::FieldDown),
            Cmd::ValuePrev | Cmd::ValueNext => self.value_step(cmd == Cmd::ValueNext),
            Cmd::Toggle => {
                if self.focus == Focus::Form(Field::Watermark) {
                    self.form.cycle(Field::Watermark, true);
                }
            }
            Cmd::Choose => return self.choose(),
            Cmd::MediaAdd => {
                self.focus = Focus::Form(Field::Media);
                let kind = self.form.media_kind_needed();
                self.overlay = Some(Overlay::Media(MediaEditor::new(None, None, kind)));
            }
            Cmd::MediaRemove => {
                if self.focus == Focus::Form(Field::Media) {
                    self.form.remove_media();
                }
            }
            Cmd::Up | Cmd::Down | Cmd::PageUp | Cmd::PageDown | Cmd::Top | Cmd::Bottom => self.scroll(cmd),
            Cmd::Mark
            | Cmd::Sort
            | Cmd::Filter
            | Cmd::Search
            | Cmd::ClearSelection
            | Cmd::Open
            | Cmd::CopyPath
            | Cmd::CopyUrl
            | Cmd::UserAction(_)
            | Cmd::Resubmit
            | Cmd::Vary
            | Cmd::Download
            | Cmd::Recheck => return self.table_command(cmd),
            Cmd::ShowHistory => return self.open_history(),
            Cmd::Zoom => self.toggle_zoom(),
            Cmd::Yes | Cmd::YesWithFile | Cmd::No => return self.answer(cmd),
            Cmd::ToggleLedger
            | Cmd::CycleModel
            | Cmd::CycleSpan
            | Cmd::CopyPrompt
            | Cmd::Reveal
            | Cmd::Delete
            | Cmd::Play
            | Cmd::PlayPause
            | Cmd::PlayStop
            | Cmd::ToggleGrid
            | Cmd::RateUp
            | Cmd::RateDown
            | Cmd::TogglePick
            | Cmd::EditTags
            | Cmd::Blind
            | Cmd::Pick
            | Cmd::Rate1
            | Cmd::Rate2
            | Cmd::Rate3
            | Cmd::Rate4
            | Cmd::Rate5 => {}
            // Taken by the compare route before it comes here.
            Cmd::Compare => return self.open_compare(),
        }
        Vec::new()
    }

    /// Undo, redo and a shell's Ctrl-U in the focused text, line or media part.
    pub(crate) fn edit_line(&mut self, cmd: Cmd) {
        match &mut self.overlay {
            Some(Overlay::Media(m)) => return m.clear_part(),
            Some(Overlay::BatchPath(p)) => return p.clear(),
            _ => {}
        }
        let op = match cmd {
            Cmd::Undo => TextOp::Undo,
            Cmd::Redo => TextOp::Redo,
            _ => TextOp::ClearLine,
        };
        match self.focus {
            Focus::Form(f) => {
                self.form.edit(f, op);
            }
            // A shell's Ctrl-U in the table's search too.
            Focus::Table if self.table.search().1 && op == TextOp::ClearLine => self.table.edit_search(String::clear),
            _ => {}
        }
    }

    pub(crate) fn submit(&mut self) -> Vec<Effect> {
        if let Some(effects) = self.submit_batch() {
            return effects;
        }
        self.form.touch();
        let check = self.form.check();
        if let Some((field, problem)) = check.problems.first().cloned() {
            self.focus = Focus::Form(field);
            self.say(Level::Error, format!("Not sent: {problem}"));
            return Vec::new();
        }
        let (plan, copies, n) = (check.plan.clone(), check.copies, check.count);
        self.say(Level::Info, format!("Sending {}…", count(n, "task")));
        let parent = self.form.parent();
        self.guarded(Effect::Submit { plan, copies, parent })
    }

    pub(crate) fn typed(&mut self, ev: KeyEvent) {
        let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let push = |s: &mut String, ok: fn(char) -> bool| match ev.code {
            KeyCode::Char(c) if plain && ok(c) => s.push(c),
            KeyCode::Backspace => {
                s.pop();
            }
            _ => {}
        };
        match (&mut self.overlay, self.focus) {
            (Some(Overlay::Media(m)), _) => match ev.code {
                KeyCode::Char(c) if plain => m.typed(Some(c)),
                KeyCode::Backspace => m.typed(None),
                _ => {}
            },
            (Some(Overlay::BatchPath(p)), _) => match ev.code {
                KeyCode::Char(c) if plain => p.typed(Some(c)),
                KeyCode::Backspace => p.typed(None),
                _ => {}
            },
            (Some(_), _) => {}
            (None, Focus::Table) if self.table.search().1 => self.table.edit_search(|s| push(s, |c| !c.is_control())),
            (None, Focus::Table | Focus::Detail) => {}
            (None, Focus::Form(field @ (Field::Prompt | Field::Negative))) => {
                self.form.input(field, ev);
            }
            (None, Focus::Form(field)) => {
                let ok: fn(char) -> bool = match field {
                    Field::Seconds => |c| c.is_ascii_digit() || c == '-',
                    Field::Copies => |c| c.is_ascii_digit(),
                    _ => |c| c.is_ascii_alphanumeric() || matches!(c, ':' | ',' | ' '),
                };
                let replace = std::mem::take(&mut self.replace_on_type);
                let dropped = match ev.code {
                    KeyCode::Char(c) if plain && !ok(c) => Some(c),
                    _ => None,
                };
                self.form.edit_line(field, |line| {
                    if replace && matches!(ev.code, KeyCode::Char(c) if ok(c)) {
                        line.clear();
                    }
                    push(line, ok);
                });
                if let Some(c) = dropped {
                    self.say(Level::Warn, dropped_message(field, c));
                }
            }
        }
    }

    pub(crate) fn paste(&mut self, text: &str) {
        let text = clean_paste(text);
        let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match (&mut self.overlay, self.focus) {
            (Some(Overlay::Media(m)), _) => m.paste(&one_line),
            (Some(Overlay::BatchPath(p)), _) => p.paste(&one_line),
            (None, Focus::Table) if self.table.search().1 => self.table.edit_search(|s| s.push_str(&one_line)),
            (None, Focus::Form(field)) => self.form.paste(field, &text),
            _ => {}
        }
    }

    /// Tab order: every field, the task table, the detail pane.
    pub(crate) fn step_focus(&mut self, forward: bool) {
        let mut order: Vec<Focus> = Field::ALL.iter().map(|f| Focus::Form(*f)).collect();
        order.extend([Focus::Table, Focus::Detail]);
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = order.len();
        self.focus = order[if forward { (i + 1) % n } else { (i + n - 1) % n }];
    }

    pub(crate) fn field_step(&mut self, down: bool) {
        if let Some(Overlay::Media(m)) = &mut self.overlay {
            m.step_part(down);
            return;
        }
        if let Focus::Form(f) = self.focus {
            let next = if down { f.next() } else { f.prev() };
            self.focus = next.map_or(if down { Focus::Table } else { self.focus }, Focus::Form);
        }
    }

    pub(crate) fn value_step(&mut self, forward: bool) {
        match &mut self.overlay {
            // ← and → change the type from any part of the media item, as its hint says.
            Some(Overlay::Media(m)) => m.cycle_kind(forward),
            Some(_) => {}
            None => {
                if let Focus::Form(f) = self.focus {
                    self.form.cycle(f, forward);
                }
            }
        }
    }

    pub(crate) fn choose(&mut self) -> Vec<Effect> {
        match self.overlay.take() {
            Some(Overlay::Picker { kind, cursor }) => return self.picked(kind, cursor),
            Some(Overlay::BatchPath(p)) => return self.batch_path_chosen(p),
            Some(Overlay::Media(m)) => {
                let item = m.item();
                let key = self.form.put_media(m.index(), item.clone());
                return vec![Effect::CheckMedia(vec![(key, item)])];
            }
            Some(other) => self.overlay = Some(other),
            None => match self.focus {
                Focus::Form(Field::Model) => {
                    self.overlay = Some(Overlay::Picker { kind: PickerKind::Model, cursor: self.form.model_index() })
                }
                Focus::Form(Field::Media) => {
                    let i = self.form.media_cursor();
                    let item = self.form.media().get(i);
                    let kind = self.form.media_kind_needed();
                    self.overlay = Some(Overlay::Media(MediaEditor::new(item.map(|_| i), item, kind)));
                }
                _ => {}
            },
        }
        Vec::new()
    }

    /// Moves in whatever list has the keys: a picker or the task table.
    pub(crate) fn scroll(&mut self, cmd: Cmd) {
        let page = (self.size.1 / 2).max(1) as isize;
        match &self.overlay {
            Some(Overlay::Picker { .. }) => self.picker_step(matches!(cmd, Cmd::Down | Cmd::PageDown | Cmd::Bottom)),
            Some(_) => {}
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
}

/// Why a typed character did not go into a one-line field.
fn dropped_message(field: Field, c: char) -> String {
    let shown = reel_rules::text::clean(&c.to_string());
    match field {
        Field::Seconds => format!("Seconds are whole numbers (or -1 for automatic): \"{shown}\" was not typed"),
        Field::Copies => format!("Copies are a whole number: \"{shown}\" was not typed"),
        _ => format!("The grid takes ratios and whole seconds: \"{shown}\" was not typed"),
    }
}
