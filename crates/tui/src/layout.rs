//! Where everything goes, as a pure function of the terminal size and the form's content:
//! the view draws into these areas and mouse clicks are matched against them.

use ratatui::layout::{Constraint, Layout, Rect};

use super::compose::{Field, Form};

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

/// The smallest terminal the screens are drawn in; below it a notice says so instead.
pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 10;
/// Columns the task table needs beside the form: the state, the prompt, seconds and ratio.
const TASKS_BESIDE: u16 = 46;
/// Rows the task table keeps before the detail pane gets any: its borders, header, 3 tasks.
const TABLE_ROWS: u16 = 6;
/// Rows the detail pane needs to be worth showing: its borders and three lines.
const DETAIL_ROWS: u16 = 5;

/// Whether the screens fit `area` at all.
pub fn fits(area: Rect) -> bool {
    area.width >= MIN_WIDTH && area.height >= MIN_HEIGHT
}

/// Width of the compose pane: roomy on wide terminals, never below 34 columns.
fn form_width(total: u16) -> u16 {
    if total >= 140 { 56 } else { (total * 2 / 5).max(34).min(total) }
}

/// Whether the form and the task table both fit side by side in `width` columns.
pub fn side_by_side(width: u16) -> bool {
    width >= form_width(width) + TASKS_BESIDE
}

/// Which pane has the keys, as far as the layout cares: it is given room first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focused {
    Form(Field),
    #[default]
    Tasks,
    Detail,
}

/// What the dashboard asks of the layout: where the keys are, and whether the user hid the
/// form (zoom). The form is shown whenever it has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Show {
    pub focus: Focused,
    pub zoomed: bool,
}

/// Where everything goes with the form shown and the keys in the task table.
pub fn areas(area: Rect, form: &Form) -> Areas {
    arrange(area, form, Show::default())
}

/// Where everything goes. Side by side when both fit; on a narrow terminal the pane with the
/// keys takes the whole width. On a short one the table keeps its rows and the detail pane
/// gives way (unless it has the keys), and the form shows the fields around the focused one.
pub fn arrange(area: Rect, form: &Form, show: Show) -> Areas {
    let [header, body, status, footer] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)])
            .areas(area);
    let in_form = matches!(show.focus, Focused::Form(_));
    let both = side_by_side(body.width);
    let form_w = match (in_form, both) {
        (true, false) => body.width,
        (false, false) => 0,
        (_, true) if show.zoomed && !in_form => 0,
        (_, true) => form_width(body.width),
    };
    let [form_area, right] = Layout::horizontal([Constraint::Length(form_w), Constraint::Min(0)]).areas(body);
    let detail_h = match right.height {
        h if h >= TABLE_ROWS + DETAIL_ROWS => (h * 2 / 5).clamp(6.min(h), 16).min(h - TABLE_ROWS),
        h if show.focus == Focused::Detail => h,
        _ => 0,
    };
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
    let first = match show.focus {
        Focused::Form(f) => first_shown(&rows, f, inner.height),
        _ => 0,
    };
    let mut y = inner.y;
    let bottom = inner.y + inner.height;
    let mut fields = Vec::new();
    for (i, (field, h)) in rows.into_iter().enumerate() {
        let h = if i < first { 0 } else { h.min(bottom.saturating_sub(y)) };
        fields.push((field, Rect { x: inner.x, y, width: inner.width, height: h }));
        y += h;
    }
    let summary = Rect { x: inner.x, y, width: inner.width, height: u16::from(y < bottom) };
    y += summary.height;
    let problems = Rect { x: inner.x, y, width: inner.width, height: bottom.saturating_sub(y) };
    Areas { header, form: form_area, fields, summary, problems, table, detail, status, footer }
}

/// The first of `rows` drawn in `height` rows so that `focused` is whole on screen: the
/// fields above it give way when they do not all fit.
fn first_shown(rows: &[(Field, u16)], focused: Field, height: u16) -> usize {
    let Some(at) = rows.iter().position(|(f, _)| *f == focused) else { return 0 };
    let mut first = 0;
    while first < at && rows[first..=at].iter().map(|(_, h)| h).sum::<u16>() > height {
        first += 1;
    }
    first
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
    let [mut list, mut below] = Layout::vertical([Constraint::Percentage(share), Constraint::Min(0)]).areas(rest);
    // A short terminal keeps rows in the list before it gives any to the detail.
    let least = TABLE_ROWS.min(rest.height);
    if list.height < least {
        [list, below] = Layout::vertical([Constraint::Length(least), Constraint::Min(0)]).areas(rest);
    }
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
    use reel_rules::Catalog;

    #[test]
    fn every_part_fits_at_80_by_24_and_nothing_overlaps() {
        let form = Form::new(&Catalog::builtin(), &reel_rules::Pricing::default());
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
    fn small_terminals_keep_the_table_rows_and_the_focused_pane() {
        let form = Form::new(&Catalog::builtin(), &reel_rules::Pricing::default());
        let tasks = Show::default();
        let zoomed = Show { zoomed: true, ..tasks };
        let detail = Show { focus: Focused::Detail, ..tasks };
        let ratio = Show { focus: Focused::Form(Field::Ratio), ..tasks };
        // (size, show, form width, table width and height, detail height)
        let cases = [
            ((80, 24), tasks, 34, (46, 13), 8),
            ((80, 24), zoomed, 0, (80, 13), 8),
            ((80, 24), Show { zoomed: true, ..ratio }, 34, (46, 13), 8),
            ((160, 48), zoomed, 0, (160, 29), 16),
            ((79, 24), tasks, 0, (79, 13), 8),
            ((79, 24), ratio, 79, (0, 0), 0),
            ((60, 15), tasks, 0, (60, 6), 6),
            ((40, 10), tasks, 0, (40, 7), 0),
            ((40, 10), detail, 0, (40, 0), 7),
            ((40, 10), ratio, 40, (0, 0), 0),
        ];
        for ((w, h), show, form_w, (table_w, table_h), detail_h) in cases {
            let a = arrange(Rect::new(0, 0, w, h), &form, show);
            let got = match a.table.width {
                0 => (a.form.width, (0, 0), u16::from(!a.detail.is_empty())),
                _ => (a.form.width, (a.table.width, a.table.height), a.detail.height),
            };
            assert_eq!(got, (form_w, (table_w, table_h), detail_h), "{w}x{h} {show:?}");
            if table_w > 0 {
                assert_eq!(a.table.height + a.detail.height, h - 3, "{w}x{h} {show:?}");
            }
            if let Focused::Form(f) = show.focus {
                let r = a.field(f);
                assert!(r.height >= 1 && r.y + r.height <= a.form.y + a.form.height, "{w}x{h}: {f:?} at {r:?}");
            }
        }
        assert!(!fits(Rect::new(0, 0, 39, 10)) && !fits(Rect::new(0, 0, 40, 9)) && fits(Rect::new(0, 0, 40, 10)));
        let short = history(Rect::new(0, 0, 40, 10), false);
        assert_eq!((short.list.height, short.below.height), (6, 0), "the history list keeps its rows");
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
