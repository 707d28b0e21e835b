//! Overlays and the detail pane: the help (scroll, filter), the pickers (models, state
//! groups), and scrolling the detail pane when it has the focus.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::{App, Effect, Focus, Level, Overlay, PickerKind, Screen};
use crate::help::HelpState;
use crate::keymap::{Cmd, Scope};
use crate::labels::Filter;
use crate::layout;
use reel_rules::text::clean;

impl App {
    /// Opens the help on the keys of the screen it is opened from.
    pub(crate) fn open_help(&mut self) {
        let origin = self.scope();
        let screen = match origin {
            Scope::History | Scope::HistorySearch if self.history.show_ledger() => "ledger",
            Scope::History | Scope::HistorySearch => "history",
            Scope::Detail if self.screen == Screen::History => "history",
            Scope::Table | Scope::Searching | Scope::Detail => "task table",
            Scope::Comparing => "comparison",
            _ => "form",
        };
        self.overlay = Some(Overlay::Help(HelpState::new(&self.keymap, origin, screen)));
    }

    /// Lines of help on screen: the overlay's inside.
    pub(crate) fn help_visible(&self) -> usize {
        let area = layout::help_area(Rect::new(0, 0, self.size.0, self.size.1));
        area.height.saturating_sub(2) as usize
    }

    /// A command while the help is open; `None` when it is not the help's.
    pub(crate) fn help_command(&mut self, cmd: Cmd) -> Option<Vec<Effect>> {
        let visible = self.help_visible();
        let page = visible.saturating_sub(1).max(1) as isize;
        let Some(Overlay::Help(h)) = &mut self.overlay else { return None };
        match cmd {
            Cmd::Up => h.scroll_by(-1, visible),
            Cmd::Down => h.scroll_by(1, visible),
            Cmd::PageUp => h.scroll_by(-page, visible),
            Cmd::PageDown => h.scroll_by(page, visible),
            Cmd::Top => h.scroll_by(isize::MIN / 2, visible),
            Cmd::Bottom => h.scroll_by(isize::MAX / 2, visible),
            Cmd::Search => h.set_typing(true),
            // Enter keeps the filter; Esc while typing drops it.
            Cmd::CloseOverlay if h.typing() => h.set_typing(false),
            Cmd::ClearSelection => {
                h.set_typing(false);
                h.edit_filter(&self.keymap, String::clear);
            }
            Cmd::ClearLine => h.edit_filter(&self.keymap, String::clear),
            Cmd::CloseOverlay | Cmd::Help => self.overlay = None,
            _ => return None,
        }
        Some(Vec::new())
    }

    /// A character typed into the help's filter (`None`: Backspace).
    pub(crate) fn help_typed(&mut self, c: Option<char>) {
        if let Some(Overlay::Help(h)) = &mut self.overlay {
            h.edit_filter(&self.keymap, |f| match c {
                Some(c) => f.push(c),
                None => drop(f.pop()),
            });
        }
    }

    /// What was typed into the open picker to narrow its list.
    pub fn picker_filter(&self) -> &str {
        &self.on_screen.picker_filter
    }

    /// Every entry of a picker, as it is listed (and matched against what is typed).
    pub fn picker_entries(&self, kind: PickerKind) -> Vec<String> {
        match kind {
            PickerKind::Model => {
                self.form.models().iter().map(|id| format!("{id:<44} {}", self.form.model_note(id))).collect()
            }
            PickerKind::States => Filter::ALL.iter().map(|f| format!("{:<9} {}", f.label(), f.describe())).collect(),
        }
    }

    /// The positions of the entries the picker's filter lets through, in order.
    pub fn picker_shown(&self, kind: PickerKind) -> Vec<usize> {
        let entries = self.picker_entries(kind);
        (0..entries.len()).filter(|i| matches_filter(&entries[*i], &self.on_screen.picker_filter)).collect()
    }

    /// A key typed into a picker: letters narrow the list, Backspace and Ctrl-U widen it; the
    /// cursor moves to the first entry shown when its own is filtered out.
    pub(crate) fn picker_typed(&mut self, ev: KeyEvent) {
        let Some(Overlay::Picker { kind, .. }) = self.overlay else { return };
        let filter = &mut self.on_screen.picker_filter;
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match ev.code {
            KeyCode::Char('u') if ctrl => filter.clear(),
            KeyCode::Char(c) if !ctrl && !ev.modifiers.contains(KeyModifiers::ALT) && !c.is_control() => {
                if filter.chars().count() < 80 {
                    filter.push(c);
                }
            }
            KeyCode::Backspace => {
                filter.pop();
            }
            _ => return,
        }
        let shown = self.picker_shown(kind);
        let best = best_match(&self.picker_entries(kind), &shown, &self.on_screen.picker_filter);
        if let Some(Overlay::Picker { cursor, .. }) = &mut self.overlay {
            // An entry whose name begins with what was typed before one that only mentions it.
            match best {
                Some(best) => *cursor = best,
                None if !shown.contains(cursor) => {
                    if let Some(first) = shown.first() {
                        *cursor = *first;
                    }
                }
                None => {}
            }
        }
    }

    /// Moves in a picker, among the entries its filter lets through.
    pub(crate) fn picker_step(&mut self, down: bool) {
        let Some(Overlay::Picker { kind, cursor }) = self.overlay else { return };
        let shown = self.picker_shown(kind);
        let next = if down {
            shown.iter().find(|i| **i > cursor).or(shown.last())
        } else {
            shown.iter().rev().find(|i| **i < cursor).or(shown.first())
        };
        if let (Some(next), Some(Overlay::Picker { cursor, .. })) = (next, &mut self.overlay) {
            *cursor = *next;
        }
    }

    /// Enter in a picker: the entry under the cursor, when the filter lets it through. When it
    /// lets nothing through, the picker stays open and says so.
    pub(crate) fn picked(&mut self, kind: PickerKind, cursor: usize) -> Vec<Effect> {
        let shown = self.picker_shown(kind);
        let typed = self.on_screen.picker_filter.trim().to_string();
        // A model id typed whole that no entry matches: a custom model, as the service may
        // offer models the catalog does not list.
        if shown.is_empty() && kind == PickerKind::Model && !typed.is_empty() && !typed.contains(char::is_whitespace) {
            self.on_screen.picker_filter.clear();
            self.form.set_model_id(&typed);
            let note = "not in the catalog; the form checks it with the general rules";
            self.say(Level::Warn, format!("Model \"{}\" is {note}", clean(&typed)));
            return Vec::new();
        }
        let Some(cursor) = shown.contains(&cursor).then_some(cursor).or(shown.first().copied()) else {
            let what = if kind == PickerKind::Model { "model" } else { "group" };
            self.say(Level::Warn, format!("No {what} matches \"{}\"", clean(&self.on_screen.picker_filter)));
            self.overlay = Some(Overlay::Picker { kind, cursor });
            return Vec::new();
        };
        self.on_screen.picker_filter.clear();
        match kind {
            PickerKind::Model => {
                self.form.set_model(cursor);
                Vec::new()
            }
            PickerKind::States => {
                let filter = Filter::ALL.get(cursor).copied().unwrap_or_default();
                if self.screen == Screen::History {
                    self.set_history_filter(filter)
                } else {
                    self.set_table_filter(filter)
                }
            }
        }
    }

    /// Scrolls the focused detail pane, never past its last line.
    pub(crate) fn scroll_detail(&mut self, cmd: Cmd) {
        let area = self.areas();
        let pane = if self.screen == Screen::History {
            layout::history_detail(Rect::new(0, 0, self.size.0, self.size.1), self.history.grid())
        } else {
            area.detail
        };
        let text = self.detail_text_area(pane.inner(ratatui::layout::Margin::new(1, 1)));
        let inner = (text.width, text.height);
        let total = if self.screen == Screen::History {
            crate::history::view::detail_height(self, inner.0)
        } else {
            crate::detail::view::height(self, inner.0)
        };
        let last = total.saturating_sub(inner.1) as i32;
        let page = i32::from(inner.1.saturating_sub(1).max(1));
        let delta = match cmd {
            Cmd::Up => -1,
            Cmd::Down => 1,
            Cmd::PageUp => -page,
            Cmd::PageDown => page,
            Cmd::Top => i32::MIN / 2,
            _ => i32::MAX / 2,
        };
        self.detail_scroll = (i32::from(self.detail_scroll) + delta).clamp(0, last.max(0)) as u16;
    }

    /// Tab on the history screen: between the list and the detail.
    pub(crate) fn toggle_history_focus(&mut self) {
        self.history.toggle_detail_focus();
    }

    /// Whether the detail pane has the keys.
    pub fn detail_focused(&self) -> bool {
        self.overlay.is_none()
            && if self.screen == Screen::History { self.history.detail_focused() } else { self.focus == Focus::Detail }
    }
}

/// Among the entries `shown`, the first whose name (its first word) begins with what was typed:
/// `all` is the group "all", not one whose description says "all".
pub fn best_match(entries: &[String], shown: &[usize], filter: &str) -> Option<usize> {
    let typed = filter.trim().to_lowercase();
    if typed.is_empty() {
        return None;
    }
    let name = |i: usize| entries.get(i).and_then(|e| e.split_whitespace().next()).unwrap_or("").to_lowercase();
    shown
        .iter()
        .copied()
        .find(|i| name(*i) == typed)
        .or_else(|| shown.iter().copied().find(|i| name(*i).starts_with(&typed)))
}

/// Whether a picker's entry passes what was typed: every word of it, in any case, anywhere.
pub fn matches_filter(entry: &str, filter: &str) -> bool {
    let entry = entry.to_lowercase();
    filter.to_lowercase().split_whitespace().all(|word| entry.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_typed_picks_the_entry_it_names_before_one_that_mentions_it() {
        let entries: Vec<String> =
            ["problems  failed, rejected, lost; all that needs you", "all       every task", "done      saved"]
                .map(String::from)
                .to_vec();
        let shown = |f: &str| (0..entries.len()).filter(|i| matches_filter(&entries[*i], f)).collect::<Vec<_>>();
        assert_eq!(best_match(&entries, &shown("all"), "all"), Some(1));
        assert_eq!(best_match(&entries, &shown("pro"), "pro"), Some(0));
        assert_eq!(best_match(&entries, &shown("saved"), "saved"), None, "a description only: the first shown");
        assert_eq!(best_match(&entries, &shown(""), ""), None);
    }

    #[test]
    fn a_filter_matches_every_word_in_any_case() {
        let cases = [
            ("acme/aurora-2.7/image-to-video   image-to-video", "2.7 IMAGE", true),
            ("acme/aurora-2.7/image-to-video   image-to-video", "2.7/image", true),
            ("acme/aurora-2.7/image-to-video   image-to-video", "3.0 image", false),
            ("problems  failed, rejected, lost", "fail", true),
            ("anything", "", true),
        ];
        for (entry, filter, want) in cases {
            assert_eq!(matches_filter(entry, filter), want, "{entry:?} by {filter:?}");
        }
    }
}
