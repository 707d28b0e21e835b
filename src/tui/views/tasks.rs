use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Row as TableRow, Table, TableState};

use crate::store::LocalState;
use crate::text::clock;
use crate::tui::app::{App, Focus};
use crate::tui::layout::{offset, visible_rows};
use crate::tui::table::{Row, is_running};
use crate::tui::theme;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

fn bar(done: u64, total: Option<u64>, width: usize) -> String {
    match total {
        Some(t) if t > 0 => {
            let filled = ((done as f64 / t as f64) * width as f64).round() as usize;
            format!("{}{}", "█".repeat(filled.min(width)), "░".repeat(width - filled.min(width)))
        }
        _ => crate::text::size(done),
    }
}

/// Which columns fit: narrow terminals keep state, prompt, elapsed and file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Width {
    Narrow,
    Medium,
    Wide,
}

impl Width {
    pub fn of(area: Rect) -> Width {
        match area.width {
            0..=59 => Width::Narrow,
            60..=99 => Width::Medium,
            _ => Width::Wide,
        }
    }
}

/// The cells of one row; `now_ms` and `frame` come from the app, not from a clock.
fn cells(r: &Row, now_ms: i64, frame: u64, width: Width) -> Vec<Cell<'static>> {
    let t = &r.record;
    let spinner = if is_running(t.state) { SPINNER[(frame % 10) as usize] } else { " " };
    let state = match (t.state, &t.remote_status) {
        (LocalState::Unrecognized, Some(s)) => crate::text::excerpt(s, 12),
        (s, _) => s.to_string(),
    };
    let start = t.submitted_at.unwrap_or(t.created_at);
    let elapsed = clock((t.finished_at.unwrap_or(now_ms) - start) / 1000);
    let eta = match (r.eta_ms, t.state.is_polled()) {
        (Some(e), true) if e > now_ms => clock((e - now_ms) / 1000),
        (Some(_), true) => "soon".into(),
        _ => String::new(),
    };
    let progress = t.progress.map(|p| format!("{p:.0}%")).unwrap_or_default();
    let file = match (t.state, r.transfer) {
        (LocalState::Downloaded, _) => "saved".to_string(),
        (LocalState::Downloading, Some(x)) => bar(x.bytes, x.total, 8),
        _ => String::new(),
    };
    let url = match (t.url_deadline, t.state.needs_download()) {
        (Some(d), true) if d > now_ms => clock((d - now_ms) / 1000),
        (Some(_), true) => "expired?".into(),
        _ => String::new(),
    };
    let mut out = vec![
        Cell::from(Line::from(vec![Span::raw(format!("{spinner} ")), Span::styled(state, theme::state(t.state))])),
        Cell::from(r.prompt.clone()),
    ];
    if width == Width::Wide {
        out.push(Cell::from(r.model.clone()));
    }
    out.push(Cell::from(elapsed));
    if width >= Width::Medium {
        out.extend([Cell::from(eta), Cell::from(progress)]);
    }
    out.push(Cell::from(file));
    if width == Width::Wide {
        out.push(Cell::from(url));
    }
    out
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let table = &app.table;
    let focused = app.focus == Focus::Table && app.overlay.is_none();
    let mut title = format!(" Tasks · {} · {} ", table.prefs.filter.label(), table.prefs.sort.label());
    if !table.search.is_empty() || table.searching {
        title.push_str(&format!("· /{}{} ", crate::text::clean(&table.search), if table.searching { "▏" } else { "" }));
    }
    if !table.marks.is_empty() {
        title.push_str(&format!("· {} marked ", table.marks.len()));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme::focused_border() } else { theme::border() })
        .title(Span::styled(title, theme::title()));
    let width = Width::of(area);
    let mut widths = vec![Constraint::Length(if width == Width::Narrow { 13 } else { 17 }), Constraint::Min(8)];
    let mut header = vec!["state", "prompt"];
    if width == Width::Wide {
        widths.push(Constraint::Length(24));
        header.push("model");
    }
    widths.push(Constraint::Length(7));
    header.push("elapsed");
    if width >= Width::Medium {
        widths.extend([Constraint::Length(6), Constraint::Length(5)]);
        header.extend(["eta", "done"]);
    }
    widths.push(Constraint::Length(8));
    header.push("file");
    if width == Width::Wide {
        widths.push(Constraint::Length(8));
        header.push("url left");
    }
    let start = offset(table.selected, table.view.len(), area);
    let rows: Vec<TableRow> = table.view[start..]
        .iter()
        .take(visible_rows(area))
        .filter_map(|id| table.row(*id))
        .map(|r| {
            let mark = table.marks.contains(&r.record.id);
            let row = TableRow::new(cells(r, app.now_ms, app.frame, width));
            if mark { row.style(theme::warn()) } else { row }
        })
        .collect();
    let empty = table.view.is_empty();
    let widget = Table::new(rows, widths)
        .header(TableRow::new(header).style(theme::dim()))
        .block(block)
        .row_highlight_style(if focused { theme::selected() } else { theme::label() });
    let mut state = TableState::default();
    if !empty {
        state.select(Some(table.selected - start));
    }
    frame.render_stateful_widget(widget, area, &mut state);
    if empty {
        let hint = if table.is_empty() {
            "No tasks yet: write a prompt and press Ctrl-S"
        } else {
            "No task matches the filter or search"
        };
        let inner = Rect { x: area.x + 2, y: area.y + 2, width: area.width.saturating_sub(4), height: 1 };
        frame.render_widget(ratatui::widgets::Paragraph::new(Line::styled(hint, theme::dim())), inner);
    }
}
