//! Where everything goes, as a pure function of the terminal size and the form's content:
//! the view draws into these areas and mouse clicks are matched against them.

use ratatui::layout::{Constraint, Layout, Rect};

use super::form::{Field, Form};

/// Media items listed under the Media field before it scrolls.
pub const MEDIA_ROWS: u16 = 3;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub form: Rect,
    pub fields: Vec<(Field, Rect)>,
    pub summary: Rect,
    pub problems: Rect,
    pub table: Rect,
    pub detail: Rect,
    pub status: Rect,
    pub footer: Rect,
}

impl Areas {
    pub fn field(&self, field: Field) -> Rect {
        self.fields.iter().find(|(f, _)| *f == field).map(|(_, r)| *r).unwrap_or_default()
    }
}

/// Width of the compose pane: roomy on wide terminals, never below 34 columns.
fn form_width(total: u16) -> u16 {
    if total >= 140 { 56 } else { (total * 2 / 5).max(34).min(total) }
}

pub fn areas(area: Rect, form: &Form) -> Areas {
    let [header, body, status, footer] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)])
            .areas(area);
    let [form_area, right] =
        Layout::horizontal([Constraint::Length(form_width(body.width)), Constraint::Min(0)]).areas(body);
    let detail_h = (right.height * 2 / 5).clamp(6.min(right.height), 16);
    let [table, detail] = Layout::vertical([Constraint::Min(0), Constraint::Length(detail_h)]).areas(right);

    // Inside the compose block (one-cell border).
    let inner = Rect {
        x: form_area.x + 1,
        y: form_area.y + 1,
        width: form_area.width.saturating_sub(2),
        height: form_area.height.saturating_sub(2),
    };
    let media_rows = (form.media().len() as u16).min(MEDIA_ROWS);
    let fixed = 3 + 8 + media_rows + 1;
    let prompt_lines = Form::wrapped_rows(form.prompt(), inner.width.saturating_sub(2));
    let prompt_h = (prompt_lines + 2).clamp(4, 10).min(inner.height.saturating_sub(fixed).max(3));
    let rows = [
        (Field::Prompt, prompt_h),
        (Field::Negative, 3),
        (Field::Model, 1),
        (Field::Seconds, 1),
        (Field::Resolution, 1),
        (Field::Ratio, 1),
        (Field::Watermark, 1),
        (Field::Media, 1 + media_rows),
        (Field::Copies, 1),
        (Field::Grid, 1),
    ];
    let mut y = inner.y;
    let bottom = inner.y + inner.height;
    let mut fields = Vec::new();
    for (field, h) in rows {
        let h = h.min(bottom.saturating_sub(y));
        fields.push((field, Rect { x: inner.x, y, width: inner.width, height: h }));
        y += h;
    }
    let summary = Rect { x: inner.x, y, width: inner.width, height: u16::from(y < bottom) };
    y += summary.height;
    let problems = Rect { x: inner.x, y, width: inner.width, height: bottom.saturating_sub(y) };
    Areas { header, form: form_area, fields, summary, problems, table, detail, status, footer }
}

/// The help overlay: centred, at most 76 wide, the whole height but a line above and below.
pub fn help_area(frame: Rect) -> Rect {
    centered(frame, 76, frame.height.saturating_sub(2))
}

/// A centred box of `w` by `h`, at most the whole area.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let (w, h) = (w.min(area.width), h.min(area.height));
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

/// The history screen: the filter line, the list, and the detail or ledger below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryAreas {
    pub filters: Rect,
    pub list: Rect,
    pub below: Rect,
}

/// Where the history screen goes, inside the frame (between the header and the status line).
/// The grid of posters takes more of the height than the list.
pub fn history(frame: Rect, grid: bool) -> HistoryAreas {
    history_in(Rect { y: frame.y + 1, height: frame.height.saturating_sub(3), ..frame }, grid)
}

/// The history screen's parts inside `body`.
pub fn history_in(body: Rect, grid: bool) -> HistoryAreas {
    let [filters, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(body);
    let share = if grid { 65 } else { 55 };
    let [list, below] = Layout::vertical([Constraint::Percentage(share), Constraint::Min(0)]).areas(rest);
    HistoryAreas { filters, list, below }
}

/// The history's detail pane.
pub fn history_detail(frame: Rect, grid: bool) -> Rect {
    history(frame, grid).below
}

/// Rows a bordered table with a header line shows.
pub fn visible_rows(area: Rect) -> usize {
    area.height.saturating_sub(3) as usize
}

/// The screen row of a bordered table's first data row (below the border and the header).
pub fn first_row_y(area: Rect) -> u16 {
    area.y + 2
}

/// The first row a table of `len` rows draws: the selection stays in view, centred when the
/// list scrolls. The view draws from here and a click is matched against it.
pub fn offset(selected: usize, len: usize, area: Rect) -> usize {
    let visible = visible_rows(area).max(1);
    if len <= visible {
        return 0;
    }
    selected.saturating_sub(visible / 2).min(len - visible)
}

/// Whether a cell lies in a rectangle.
pub fn hit(r: Rect, column: u16, row: u16) -> bool {
    column >= r.x && column < r.x + r.width && row >= r.y && row < r.y + r.height
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Catalog;

    #[test]
    fn every_part_fits_at_80_by_24_and_nothing_overlaps() {
        let form = Form::new(&Catalog::builtin(), &crate::rules::Pricing::default());
        for (w, h) in [(80, 24), (160, 48), (100, 30)] {
            let a = areas(Rect::new(0, 0, w, h), &form);
            for (f, r) in &a.fields {
                assert!(r.height >= 1, "{f:?} hidden at {w}x{h}");
                assert!(r.y + r.height <= a.form.y + a.form.height);
            }
            assert!(a.table.height >= 5 && a.detail.height >= 5, "{w}x{h}: {:?} {:?}", a.table, a.detail);
            assert_eq!(a.footer.y, h - 1);
            assert!(a.form.width + a.table.width == w);
        }
    }

    #[test]
    fn the_offset_keeps_the_selection_in_view() {
        let area = Rect::new(0, 0, 50, 13); // ten rows
        let cases = [(0, 5, 0), (4, 5, 0), (0, 100, 0), (5, 100, 0), (6, 100, 1), (50, 100, 45), (99, 100, 90)];
        for (selected, len, want) in cases {
            assert_eq!(offset(selected, len, area), want, "{selected} of {len}");
            let first = offset(selected, len, area);
            assert!(selected >= first && selected < first + visible_rows(area), "{selected} of {len}");
        }
    }
}
