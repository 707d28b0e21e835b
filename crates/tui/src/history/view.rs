//! The history screen: filters, the list of every past task, the selected task with its
//! lineage (and what changed from its parent), and the ledger.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Borders, Cell, Paragraph, Row, Table, TableState};

use crate::app::App;
use crate::detail::view::{error_line, parameters, wrapped_height};
use crate::history::{Entry, Piece};
use crate::keymap::Scope;
use crate::labels::count;
use crate::labels::short_model;
use crate::layout::{HistoryAreas, history_in, offset, visible_rows};
use crate::theme;
use crate::views::field::field;
use reel_engine::ledger::Line as LedgerLine;
use reel_rules::text::{clean, excerpt, size};
use reel_store::history::Order;

/// The history screen in `area` (the frame but the header, status and footer lines).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let HistoryAreas { filters, list, below } = history_in(area, app.history().grid());
    let h = app.history();
    let f = &h.filters();
    let search = if h.typing() {
        format!("/{}▏", clean(&f.text))
    } else if f.text.is_empty() {
        "/ to search".into()
    } else {
        format!("/{}", clean(&f.text))
    };
    let order = if f.order == Order::Newest { "newest first" } else { "oldest first" };
    let line = Line::from(vec![
        Span::styled(" History ", theme::title()),
        Span::styled(search, if h.typing() { theme::focused_label() } else { theme::label() }),
        Span::raw(format!(
            "   model {} · state {} · {} · {}{}",
            f.model.as_deref().map(|m| excerpt(m, 32)).unwrap_or_else(|| "any".into()),
            f.group.label(),
            f.span.label(),
            order,
            if h.loading() { " · loading…" } else { "" },
        )),
    ]);
    frame.render_widget(Paragraph::new(line), filters);

    if h.grid() {
        crate::preview::view::grid(frame, list, app);
    } else {
        draw_list(frame, list, app);
    }
    if h.show_ledger() {
        ledger(frame, below, app);
    } else {
        detail(frame, below, app);
    }
}

fn draw_list(frame: &mut Frame, area: Rect, app: &App) {
    let h = app.history();
    let n = h.rows().len();
    let title = match (h.done(), n) {
        (true, _) => format!(" {} ", count(n, "task")),
        (false, _) => format!(" {n}+ tasks "),
    };
    let start = offset(h.selected(), n, area);
    let visible = visible_rows(area);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(if h.detail_focused() { theme::border() } else { theme::focused_border() })
        .title(Span::styled(title, theme::title()));
    if n > visible && visible > 0 {
        let last = (start + visible).min(n);
        block = block.title_bottom(Span::styled(
            format!(" {}–{last} of {n}{more} ", start + 1, more = if h.done() { "" } else { "+" }),
            theme::label(),
        ));
    }
    let wide = area.width >= 110;
    // The rating and pick get a column once a loaded task has either.
    let reviews = h.any_reviewed();
    let rows: Vec<Row> = h.rows()[start..]
        .iter()
        .take(visible)
        .map(|r| {
            let t = &r.record;
            let file = match r.file_present {
                Some(true) => Span::styled("saved", theme::ok()),
                Some(false) => Span::styled("missing", theme::warn()),
                None => Span::raw("-"),
            };
            // Narrow screens drop the year and the seconds of the date.
            let date = if wide { r.date.as_str() } else { r.date.get(5..16).unwrap_or(&r.date) };
            let mut cells = vec![
                Cell::from(date),
                Cell::from(Span::styled(r.state.as_str(), theme::state(t.state))),
                Cell::from(format!("{:>4}", crate::views::field::seconds(t.seconds))),
                Cell::from(format!("{} {}", t.resolution, t.ratio)),
            ];
            if wide {
                cells.insert(1, Cell::from(r.model.as_str()));
            }
            if reviews {
                cells.push(Cell::from(Span::styled(crate::views::field::review_mark(&t.review), theme::warn())));
            }
            cells.push(Cell::from(r.prompt.as_str()));
            cells.push(Cell::from(file));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(if wide { 19 } else { 11 }),
        Constraint::Length(15),
        Constraint::Length(5),
        Constraint::Length(13),
    ];
    let mut header = vec!["date", "state", "sec", "size"];
    if wide {
        widths.insert(1, Constraint::Length(16));
        header.insert(1, "model");
    }
    if reviews {
        widths.push(Constraint::Length(3));
        header.push("★");
    }
    widths.extend([Constraint::Min(10), Constraint::Length(7)]);
    header.extend(["prompt", "file"]);
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme::dim()))
        .block(block)
        .row_highlight_style(theme::selected());
    let mut state = TableState::default();
    if !h.rows().is_empty() {
        state.select(Some(h.selected() - start));
    }
    frame.render_stateful_widget(table, area, &mut state);
    if h.rows().is_empty() && !h.loading() {
        let problems = reel_store::history::problems(&h.filters().text);
        let hint = if h.filters().text.is_empty() {
            "No tasks yet".to_string()
        } else if let Some(problem) = problems.first() {
            format!("No task matches: {problem}")
        } else {
            "No task matches".to_string()
        };
        let r = Rect { x: area.x + 2, y: area.y + 2, width: area.width.saturating_sub(4), height: 1 };
        frame.render_widget(Paragraph::new(Line::styled(hint, theme::dim())), r);
    }
}

fn lines<'a>(app: &App, row: &Entry) -> Vec<Line<'a>> {
    let t = &row.record;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("Task {} ", t.id), theme::title()),
        Span::styled(t.remote_id.as_deref().map(|r| excerpt(r, 40)).unwrap_or_default(), theme::dim()),
        Span::raw("  "),
        Span::styled(row.state.clone(), theme::state(t.state)),
    ])];
    lines.extend(parameters(t));
    lines.extend(crate::preview::view::note(app, t, row.file_present));
    match (&t.file_path, row.file_present) {
        (Some(p), Some(true)) => lines
            .push(field("File", format!("{} ({})", clean(p), t.file_size.map(|s| size(s as u64)).unwrap_or_default()))),
        (Some(p), _) => lines.push(Line::from(vec![
            Span::styled(format!("{:<9}", "File"), theme::label()),
            Span::styled(format!("missing: {} (moved or deleted)", clean(p)), theme::warn()),
        ])),
        _ => {}
    }
    if let Some(e) = &t.error {
        lines.push(error_line(e, t.state));
    }
    if let Some(l) = app.history().lineage()
        && l.id == t.id
    {
        if let Some(p) = &l.parent {
            lines.push(field("Parent", format!("task {} · {}", p.id, l.parent_prompt)));
            let mut spans = vec![Span::styled(format!("{:<9}", "Changed"), theme::label())];
            for piece in &l.prompt_diff {
                spans.push(match piece {
                    Piece::Same(w) => Span::raw(format!("{w} ")),
                    Piece::Added(w) => Span::styled(format!("+{w} "), theme::ok()),
                    Piece::Removed(w) => Span::styled(format!("-{w} "), theme::error()),
                });
            }
            lines.push(Line::from(spans));
            if !l.settings_diff.is_empty() {
                lines.push(field("", l.settings_diff.clone()));
            }
        }
        if !l.children.is_empty() {
            let list: Vec<String> = l.children.iter().map(|c| format!("task {}", c.id)).collect();
            lines.push(field("Children", list.join(", ")));
        }
    }
    lines
}

/// Rows the selected task's detail takes at `width` columns.
pub fn detail_height(app: &App, width: u16) -> u16 {
    app.history().selected_row().map_or(0, |row| wrapped_height(&lines(app, row), width))
}

fn detail(frame: &mut Frame, area: Rect, app: &App) {
    let focused = app.detail_focused();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme::focused_border() } else { theme::border() })
        .title(Span::styled(" Task ", theme::title()));
    let Some(row) = app.history().selected_row() else {
        frame.render_widget(Paragraph::new("").block(block), area);
        return;
    };
    let lines = lines(app, row);
    crate::detail::view::body(frame, area, block, lines, app, Scope::History);
}

/// Ledger columns at full width; narrower screens fold failed, rejected and lost into one
/// column and leave out the render times. The rating is the average of the rated tasks and
/// their number. Rendered tasks whose billed seconds are unknown are
/// counted in a column of their own, never added as 0; a cost too long for its column ends in "…".
fn ledger_row(l: &LedgerLine, app: &App, wide: bool, cost_width: usize) -> Row<'static> {
    let pct = l.success_rate.map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
    let secs = |v: Option<f64>| v.map_or("-".into(), |s| format!("{s:.0} s"));
    let mut cells = vec![Cell::from(short_model(&l.key)), Cell::from(l.tasks.to_string()), Cell::from(pct)];
    if wide {
        cells.extend([
            Cell::from(l.failed.to_string()),
            Cell::from(l.rejected.to_string()),
            Cell::from(l.lost.to_string()),
            Cell::from(secs(l.p50)),
            Cell::from(secs(l.p90)),
        ]);
    } else {
        cells.push(Cell::from(format!("{:<4} {:<3} {}", l.failed, l.rejected, l.lost)));
    }
    let unknown = if l.unknown_billed == 0 { String::new() } else { count(l.unknown_billed as usize, "task") };
    // Narrow: the average alone (the count is in the wide table and `reel history stats`).
    let rating = if wide { l.rating_text() } else { l.rating.map_or_else(|| "-".into(), |r| format!("{r:.1}")) };
    cells.extend([
        Cell::from(rating),
        Cell::from(format!("{:.0} s", l.billed_seconds)),
        Cell::from(unknown),
        Cell::from(excerpt(&l.cost.show(app.pricing_ref()), cost_width)),
    ]);
    Row::new(cells)
}

fn ledger(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border())
        .title(Span::styled(format!(" Ledger · {} ", app.history().filters().span.label()), theme::title()));
    let Some(l) = app.history().ledger() else {
        frame.render_widget(Paragraph::new(Line::styled("Adding up…", theme::dim())).block(block), area);
        return;
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let chart_width = if inner.width >= 140 { inner.width / 5 } else { 0 };
    let [table_area, chart_area] =
        Layout::horizontal([Constraint::Length(inner.width - chart_width), Constraint::Length(chart_width)])
            .areas(inner);
    let wide = table_area.width >= 110;
    let (fixed, header): (&[u16], Vec<&str>) = if wide {
        (
            &[5, 7, 6, 8, 4, 6, 6, 8, 8, 7],
            vec![
                "model", "tasks", "success", "failed", "rejected", "lost", "p50", "p90", "rating", "billed", "unknown",
                "cost",
            ],
        )
    } else {
        (
            &[5, 7, 13, 6, 8, 7],
            vec!["model", "tasks", "success", "fail rej lost", "rating", "billed", "unknown", "cost"],
        )
    };
    let model_width = 16u16;
    let used = model_width + fixed.iter().sum::<u16>() + fixed.len() as u16 + 1;
    let cost_width = table_area.width.saturating_sub(used).max(8);
    let mut widths = vec![Constraint::Length(model_width)];
    widths.extend(fixed.iter().map(|w| Constraint::Length(*w)));
    widths.push(Constraint::Length(cost_width));
    let mut rows: Vec<Row> = l.models.iter().map(|m| ledger_row(m, app, wide, cost_width.into())).collect();
    rows.push(ledger_row(&l.total, app, wide, cost_width.into()).style(theme::title()));
    frame.render_widget(Table::new(rows, widths).header(Row::new(header).style(theme::dim())), table_area);
    if chart_width == 0 {
        return;
    }
    // Tasks per day, the most recent days that fit.
    let fit = (chart_area.width / 6).max(1) as usize;
    let days = &l.days[l.days.len().saturating_sub(fit)..];
    let bars: Vec<Bar> = days
        .iter()
        .map(|d| Bar::default().value(d.tasks).label(Line::raw(d.key.get(5..).unwrap_or(&d.key).to_string())))
        .collect();
    let chart = BarChart::default()
        .block(Block::default().title(Span::styled("tasks per day", theme::dim())))
        .data(BarGroup::default().bars(&bars))
        .bar_width(5)
        .bar_gap(1)
        .bar_style(theme::ok());
    frame.render_widget(chart, chart_area);
}
