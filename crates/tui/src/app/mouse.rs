//! The mouse: a click focuses the pane or field under it (and selects a task row), the wheel
//! scrolls the task table or the detail pane. Hit-testing uses the same layout the view draws.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::{App, Focus, Screen};
use crate::keymap::Cmd;
use crate::layout::{self, hit};

impl App {
    pub(crate) fn mouse(&mut self, ev: MouseEvent) {
        if self.screen != Screen::Dashboard {
            return;
        }
        let areas = self.areas();
        let (col, row) = (ev.column, ev.row);
        match ev.kind {
            MouseEventKind::Down(MouseButton::Left) if self.overlay.is_none() => {
                if hit(areas.table, col, row) {
                    self.focus = Focus::Table;
                    let first = layout::first_row_y(areas.table);
                    if row >= first {
                        let offset = layout::offset(self.table.selected(), self.table.view().len(), areas.table);
                        let index = offset + (row - first) as usize;
                        if index < self.table.view().len() {
                            self.table.select_at(index);
                        }
                    }
                } else if hit(areas.detail, col, row) {
                    self.focus = Focus::Detail;
                } else if let Some((field, _)) = areas.fields.iter().find(|(_, r)| hit(*r, col, row)) {
                    self.focus = Focus::Form(*field);
                }
            }
            MouseEventKind::ScrollDown if hit(areas.table, col, row) => self.table.move_by(3),
            MouseEventKind::ScrollUp if hit(areas.table, col, row) => self.table.move_by(-3),
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp if hit(areas.detail, col, row) => {
                let cmd = if ev.kind == MouseEventKind::ScrollDown { Cmd::Down } else { Cmd::Up };
                (0..3).for_each(|_| self.scroll_detail(cmd));
            }
            _ => {}
        }
    }
}
