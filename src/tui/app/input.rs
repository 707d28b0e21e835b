//! Keys and text: a key becomes a command through the keymap (or is typed into the focused
//! field), pastes are cleaned, focus moves; the form's own commands live here too.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Focus, Level, Overlay, Screen, plural};
use crate::tui::form::{Field, MediaEditor, clean_paste};
use crate::tui::keymap::{Cmd, Scope};

impl App {
    pub(super) fn key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        match self.keymap.lookup(self.scope(), &ev) {
            Some(cmd) => self.command(cmd),
            None if self.scope() == Scope::HistorySearch => {
                self.search_typed(ev);
                Vec::new()
            }
            None => {
                self.typed(ev);
                Vec::new()
            }
        }
    }

    /// Routes a command to the part of the app it belongs to.
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
            Cmd::Yes | Cmd::YesWithFile | Cmd::No => return self.answer(cmd),
            Cmd::ToggleLedger | Cmd::CycleModel | Cmd::CycleSpan | Cmd::CopyPrompt | Cmd::Reveal | Cmd::Delete => {}
        }
        Vec::new()
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

    pub(super) fn paste(&mut self, text: &str) {
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

    fn step_focus(&mut self, forward: bool) {
        let mut order: Vec<Focus> = Field::ALL.iter().map(|f| Focus::Form(*f)).collect();
        order.push(Focus::Table);
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = order.len();
        self.focus = order[if forward { (i + 1) % n } else { (i + n - 1) % n }];
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

    /// Moves in whatever list has the keys: the help, the model list or the task table.
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
}
