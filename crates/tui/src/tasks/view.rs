//! The task table: the columns that fit (see `columns`), a group line beside the rows of one
//! batch or grid, a glyph for marks (not only a colour), and where you are when rows are hidden.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Row as TableRow, Table, TableState};

use crate::app::{App, Focus};
use crate::keymap::{Cmd, Scope};
use crate::labels::{elapsed_ms, is_running};
use crate::layout::{offset, visible_rows};
use crate::tasks::Row;
use crate::tasks::columns::{Col, SPACING, fit};
use crate::theme;
use reel_rules::text::clock;
use reel_store::LocalState;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// A marked row: shown as a glyph, so it reads without colour too.
pub const MARK: &str = "●";

fn bar(done: u64, total: Option<u64>, width: usize) -> String {
    match total {
        Some(t) if t > 0 => {
            let filled = ((done as f64 / t as f64) * width as f64).round() as usize;
            format!("{}{}", "█".repeat(filled.min(width)), "░".repeat(width - filled.min(width)))
        }
        _ => reel_rules::text::size(done),
    }
}

/// Where a row sits in its group: the line drawn beside rows sent together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupLine {
    Alone,
    First,
    Middle,
    Last,
}

impl GroupLine {
    fn glyph(self) -> &'static str {
        match self {
            GroupLine::Alone => " ",
            GroupLine::First => "┌",
            GroupLine::Middle => "│",
            GroupLine::Last => "└",
        }
    }
}

/// What the row shows in the file column.
fn file_cell(r: &Row, now_ms: i64) -> Span<'static> {
    let t = &r.record;
    match (t.state, r.transfer, r.file_present) {
        (LocalState::Downloaded, _, Some(false)) => Span::styled("missing", theme::warn()),
        (LocalState::Downloaded, _, _) => Span::styled("saved", theme::ok()),
        (LocalState::Downloading, Some(x), _) => Span::raw(bar(x.bytes, x.total, 8)),
        (s, _, _) if s.needs_download() => match t.url_deadline {
            Some(d) if d > now_ms => Span::raw(format!("url {}", clock((d - now_ms) / 1000))),
            Some(_) => Span::styled("url old?", theme::warn()),
            None => Span::raw(""),
        },
        _ => Span::raw(""),
    }
}

/// The cells of one row; `now_ms` and `frame` come from the app, not from a clock; `frame` is
/// `None` while no engine is attached, and then nothing spins: nothing is known to move.
fn cells(r: &Row, cols: &[Col], marked: bool, group: GroupLine, now_ms: i64, frame: Option<u64>) -> Vec<Cell<'static>> {
    let t = &r.record;
    let spins = is_running(t.state) && t.state != LocalState::Unrecognized;
    let spinner = match frame {
        Some(frame) if spins => SPINNER[(frame % 10) as usize],
        _ => " ",
    };
    let eta = match (r.eta_ms, t.state.is_polled()) {
        (Some(e), true) if e > now_ms => clock((e - now_ms) / 1000),
        (Some(_), true) => "soon".into(),
        _ => String::new(),
    };
    let progress = t.progress.map(|p| format!("{p:.0}%")).unwrap_or_default();
    // What the service says it rendered, where that is not what was asked, stands out.
    let rendered = reel_rules::rendered::cells(t.asked(), &t.rendered);
    let or_rendered = |asked: String, rendered: &Option<String>| match rendered {
        Some(r) => Cell::from(Span::styled(r.clone(), theme::warn())),
        None => Cell::from(asked),
    };
    cols.iter()
        .map(|c| match c {
            Col::Marks => Cell::from(Line::from(vec![
                Span::styled(group.glyph(), theme::dim()),
                Span::styled(if marked { MARK } else { " " }, theme::warn()),
                Span::raw(spinner),
            ])),
            Col::State => Cell::from(Span::styled(r.state_label.clone(), theme::state(t.state))),
            Col::Review => Cell::from(Span::styled(crate::views::field::review_mark(&t.review), theme::warn())),
            Col::Prompt => Cell::from(r.prompt.clone()),
            Col::Model => Cell::from(r.model_short.clone()),
            Col::Seconds => or_rendered(crate::views::field::seconds(t.seconds), &rendered.seconds),
            // "adaptive" is the one ratio longer than the column.
            Col::Ratio => {
                or_rendered(if t.ratio == "adaptive" { "adapt".to_string() } else { t.ratio.clone() }, &rendered.ratio)
            }
            Col::Resolution => or_rendered(t.resolution.clone(), &rendered.resolution),
            Col::Elapsed => Cell::from(clock(elapsed_ms(t, now_ms) / 1000)),
            Col::Progress => Cell::from(format!("{progress:>4} {eta}").trim_end().to_string()),
            Col::File => Cell::from(file_cell(r, now_ms)),
        })
        .collect()
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let table = app.table();
    let focused = app.focus() == Focus::Table && app.overlay().is_none();
    let mut title = format!(" Tasks · {} · {} ", table.filter().label(), table.sort().label());
    if !table.search().0.is_empty() || table.search().1 {
        title.push_str(&format!(
            "· /{}{} ",
            reel_rules::text::clean(table.search().0),
            if table.search().1 { "▏" } else { "" }
        ));
    }
    if !table.marks().is_empty() {
        title.push_str(&format!("· {MARK} {} marked ", table.marks().len()));
    }
    let visible = visible_rows(area);
    let start = offset(table.selected(), table.view().len(), area);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme::focused_border() } else { theme::border() })
        .title(Span::styled(title, theme::title()));
    if table.view().len() > visible && visible > 0 {
        let last = (start + visible).min(table.view().len());
        let more = match (start > 0, last < table.view().len()) {
            (true, true) => " ↑↓",
            (true, false) => " ↑",
            _ => " ↓",
        };
        block = block.title_bottom(Span::styled(
            format!(" {}–{last} of {}{more} ", start + 1, table.view().len()),
            theme::label(),
        ));
    }
    let reviews = table.any_reviewed();
    let (cols, prompt) = fit(area.width.saturating_sub(2), reviews);
    let widths: Vec<Constraint> =
        cols.iter().map(|c| Constraint::Length(if *c == Col::Prompt { prompt } else { c.width() })).collect();
    let header: Vec<&str> = cols.iter().map(|c| c.header()).collect();
    let group = |i: usize| match (i > 0 && table.grouped_with_next(i - 1), table.grouped_with_next(i)) {
        (false, false) => GroupLine::Alone,
        (false, true) => GroupLine::First,
        (true, true) => GroupLine::Middle,
        (true, false) => GroupLine::Last,
    };
    let rows: Vec<TableRow> = (start..table.view().len())
        .take(visible)
        .filter_map(|i| table.row(table.view()[i]).map(|r| (i, r)))
        .map(|(i, r)| {
            let marked = table.marks().contains(&r.record.id);
            let row = TableRow::new(cells(
                r,
                &cols,
                marked,
                group(i),
                app.now_ms(),
                app.link().attached().then_some(app.frame()),
            ));
            if marked { row.style(theme::warn()) } else { row }
        })
        .collect();
    let empty = table.view().is_empty();
    let widget = Table::new(rows, widths)
        .column_spacing(SPACING)
        .header(TableRow::new(header).style(theme::dim()))
        .block(block)
        .row_highlight_style(if focused { theme::selected() } else { theme::selected_idle() });
    let mut state = TableState::default();
    if !empty {
        state.select(Some(table.selected() - start));
    }
    frame.render_stateful_widget(widget, area, &mut state);
    let inner = Rect { x: area.x + 2, y: area.y + 2, width: area.width.saturating_sub(4), height: 1 };
    if empty && inner.y + 1 < area.bottom() {
        let send = crate::compose::view::key(app, Scope::Text, Cmd::Submit);
        let hints = if table.is_empty() {
            vec![
                format!("No tasks yet: write a prompt and press {send}"),
                format!("No tasks yet: {send} sends a prompt"),
                "No tasks yet".to_string(),
            ]
        } else if let Some(problem) = reel_store::history::problems(table.search().0).first() {
            // A filter that cannot filter is named, as the history names it.
            vec![format!("No task matches: {problem}"), "No task matches".to_string()]
        } else {
            vec!["No task matches the filter or search".to_string(), "No task matches".to_string()]
        };
        // The longest wording that fits, never one cut inside a word.
        let room = usize::from(inner.width);
        let hint = hints.iter().find(|h| h.chars().count() <= room).or(hints.last()).cloned().unwrap_or_default();
        frame.render_widget(ratatui::widgets::Paragraph::new(Line::styled(hint, theme::dim())), inner);
    }
}
