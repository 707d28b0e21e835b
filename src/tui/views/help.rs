use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keymap::Scope;
use crate::tui::theme;

/// A centred box of `w` by `h`, at most the whole area.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let (w, h) = (w.min(area.width), h.min(area.height));
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

pub fn draw(frame: &mut Frame, app: &App, scroll: u16) {
    let area = centered(frame.area(), 76, frame.area().height.saturating_sub(2));
    let mut lines = Vec::new();
    let order = [
        Scope::Global,
        Scope::Table,
        Scope::Text,
        Scope::Line,
        Scope::Form,
        Scope::Searching,
        Scope::Picker,
        Scope::MediaEditor,
        Scope::HelpView,
    ];
    for scope in order {
        lines.push(Line::styled(scope.title(), theme::title()));
        let mut seen = Vec::new();
        for b in app.keymap.bindings().iter().filter(|b| b.scope == scope) {
            if seen.contains(&b.cmd) {
                // Several keys for one command: list them on the first line only.
                continue;
            }
            seen.push(b.cmd);
            let keys: Vec<String> = app
                .keymap
                .bindings()
                .iter()
                .filter(|o| o.scope == scope && o.cmd == b.cmd)
                .map(|o| o.key.label())
                .collect();
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<14}", keys.join(" ")), theme::key()),
                Span::raw(b.help.clone()),
            ]));
        }
        lines.push(Line::raw(""));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::focused_border())
        .title(Span::styled(" Keys (Esc closes) ", theme::title()));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}
