use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::help::centered;
use crate::rules::ModelId;
use crate::tui::app::{App, Question};
use crate::tui::form::MediaEditor;
use crate::tui::theme;

pub fn picker(frame: &mut Frame, app: &App, cursor: usize) {
    let h = (app.form.models.len() as u16 + 2).min(frame.area().height);
    let area = centered(frame.area(), 72, h);
    let lines: Vec<Line> = app
        .form
        .models
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let mode = id.parse::<ModelId>().map(|m| m.mode.to_string()).unwrap_or_default();
            let style = if i == cursor { theme::selected() } else { ratatui::style::Style::default() };
            Line::styled(format!(" {id:<44} {mode}"), style)
        })
        .collect();
    let scroll = cursor.saturating_sub(h.saturating_sub(3) as usize) as u16;
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(" Model ");
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

pub fn media(frame: &mut Frame, m: &MediaEditor) {
    let area = centered(frame.area(), 70, 7);
    let part = |i: usize, label: &str, value: String| {
        let style = if m.part == i { theme::focused_label() } else { theme::label() };
        Line::from(vec![Span::styled(format!(" {label:<9}"), style), Span::raw(format!(" {value}"))])
    };
    let cursor = |i: usize| if m.part == i { "▏" } else { "" };
    let lines = vec![
        part(0, "Type", format!("◂ {} ▸", m.kind)),
        part(1, "URL", format!("{}{}", crate::text::clean(&m.url), cursor(1))),
        part(2, "Seconds", format!("{}{}  (reference video or audio only)", m.seconds, cursor(2))),
        Line::styled(" ↑↓ part   ←→ type   Enter save   Esc cancel", theme::dim()),
    ];
    let title = if m.index.is_some() { " Edit media item " } else { " Add media item " };
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

pub fn confirm(frame: &mut Frame, app: &App, q: &Question) {
    let area = centered(frame.area(), 72, 6);
    let lines = match q {
        Question::Delete(id) => vec![
            Line::raw(format!(" Delete the record of task {id}? Its timeline goes with it.")),
            Line::raw(""),
            Line::from(vec![
                Span::styled(" y ", theme::key()),
                Span::raw("record only   "),
                Span::styled(" f ", theme::key()),
                Span::raw("record and video file   "),
                Span::styled(" n ", theme::key()),
                Span::raw("keep it"),
            ]),
        ],
        Question::Budget { .. } => vec![
            Line::raw(format!(" {}", app.status.as_ref().map(|s| s.text.as_str()).unwrap_or("Past the daily budget."))),
            Line::raw(""),
            Line::from(vec![
                Span::styled(" y ", theme::key()),
                Span::raw("send anyway   "),
                Span::styled(" n ", theme::key()),
                Span::raw("do not send"),
            ]),
        ],
    };
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(" Are you sure? ");
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }).block(block), area);
}
