use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Level};
use crate::tui::theme;

pub fn draw(frame: &mut Frame, status: Rect, footer: Rect, app: &App) {
    if let Some(s) = &app.status {
        let style = match s.level {
            Level::Info => theme::label(),
            Level::Warn => theme::warn(),
            Level::Error => theme::error(),
        };
        frame.render_widget(Paragraph::new(Line::styled(format!(" {}", s.text), style)), status);
    }
    let mut spans = vec![Span::raw(" ")];
    for (key, what) in app.keymap.footer(app.scope()) {
        spans.push(Span::styled(key, theme::key()));
        spans.push(Span::styled(format!(" {what}  "), theme::label()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), footer);
}
