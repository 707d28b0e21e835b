//! Overlays and the detail pane: the help (scroll, filter), the pickers (models, state
//! groups), and scrolling the detail pane when it has the focus.

use ratatui::layout::Rect;

use super::{App, Effect, Focus, Overlay, PickerKind, Screen};
use crate::tui::help::HelpState;
use crate::tui::keymap::{Cmd, Scope};
use crate::tui::labels::Filter;
use crate::tui::layout;
use crate::tui::views;

impl App {
    /// Opens the help on the keys of the screen it is opened from.
    pub(super) fn open_help(&mut self) {
        let origin = self.scope();
        let screen = match origin {
            Scope::History | Scope::HistorySearch if self.history.show_ledger() => "ledger",
            Scope::History | Scope::HistorySearch => "history",
            Scope::Detail if self.screen == Screen::History => "history",
            Scope::Table | Scope::Searching | Scope::Detail => "task table",
            _ => "form",
        };
        self.overlay = Some(Overlay::Help(HelpState::new(&self.keymap, origin, screen)));
    }

    /// Lines of help on screen: the overlay's inside.
    fn help_visible(&self) -> usize {
        let area = layout::help_area(Rect::new(0, 0, self.size.0, self.size.1));
        area.height.saturating_sub(2) as usize
    }

    /// A command while the help is open; `None` when it is not the help's.
    pub(super) fn help_command(&mut self, cmd: Cmd) -> Option<Vec<Effect>> {
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
            Cmd::Search => h.typing = true,
            // Enter keeps the filter; Esc while typing drops it.
            Cmd::CloseOverlay if h.typing => h.typing = false,
            Cmd::ClearSelection => {
                h.typing = false;
                h.filter.clear();
                h.refilter(&self.keymap);
            }
            Cmd::CloseOverlay | Cmd::Help => self.overlay = None,
            _ => return None,
        }
        Some(Vec::new())
    }

    /// A character typed into the help's filter.
    pub(super) fn help_typed(&mut self, c: Option<char>) {
        if let Some(Overlay::Help(h)) = &mut self.overlay {
            match c {
                Some(c) => h.filter.push(c),
                None => {
                    h.filter.pop();
                }
            }
            h.filter.truncate(40);
            h.refilter(&self.keymap);
        }
    }

    /// Moves in a picker.
    pub(super) fn picker_step(&mut self, down: bool) {
        let models = self.form.models().len();
        if let Some(Overlay::Picker { kind, cursor }) = &mut self.overlay {
            let last = match kind {
                PickerKind::Model => models,
                PickerKind::States => Filter::ALL.len(),
            }
            .saturating_sub(1);
            *cursor = if down { (*cursor + 1).min(last) } else { cursor.saturating_sub(1) };
        }
    }

    /// Enter in a picker.
    pub(super) fn picked(&mut self, kind: PickerKind, cursor: usize) -> Vec<Effect> {
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
    pub(super) fn scroll_detail(&mut self, cmd: Cmd) {
        let area = layout::areas(Rect::new(0, 0, self.size.0, self.size.1), &self.form);
        let pane = if self.screen == Screen::History {
            layout::history_detail(Rect::new(0, 0, self.size.0, self.size.1), self.history.grid())
        } else {
            area.detail
        };
        let text = self.detail_text_area(pane.inner(ratatui::layout::Margin::new(1, 1)));
        let inner = (text.width, text.height);
        let total = if self.screen == Screen::History {
            views::history::detail_height(self, inner.0)
        } else {
            views::detail::height(self, inner.0)
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
    pub(super) fn toggle_history_focus(&mut self) {
        self.history.toggle_detail_focus();
    }

    /// Whether the detail pane has the keys.
    pub fn detail_focused(&self) -> bool {
        self.overlay.is_none()
            && if self.screen == Screen::History { self.history.detail_focused() } else { self.focus == Focus::Detail }
    }
}
