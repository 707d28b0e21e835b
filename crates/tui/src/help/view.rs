//! The help overlay: the lines made when it opened (the screen's keys first), scrolled, with
//! the filter and where you are in the list.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::help::{HelpLine, HelpState};
use crate::layout::help_area;
use crate::theme;
use reel_rules::text::clean;

pub fn draw(frame: &mut Frame, h: &HelpState) {
    let area = help_area(frame.area());
    let visible = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = h
        .lines()
        .iter()
        .skip(h.scroll())
        .take(visible)
        .map(|l| match l {
            HelpLine::Title(t) => Line::styled(t.clone(), theme::title()),
            HelpLine::Key { keys, what } => {
                Line::from(vec![Span::styled(format!("  {keys:<14}"), theme::key()), Span::raw(what.clone())])
            }
            HelpLine::Blank => Line::raw(""),
        })
        .collect();
    let filter = match (h.typing(), h.filter().is_empty()) {
        (true, _) => format!(" /{}▏ ", clean(h.filter())),
        (false, true) => " / filters ".to_string(),
        (false, false) => format!(" /{} ", clean(h.filter())),
    };
    let total = h.lines().len();
    let position = if total > visible {
        let last = (h.scroll() + visible).min(total);
        let more = if last < total { " ↓" } else { "" };
        format!(" {}–{last} of {total}{more} ", h.scroll() + 1)
    } else {
        String::new()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::focused_border())
        .title(Span::styled(format!(" Keys · {} first · Esc closes ", h.screen()), theme::title()))
        .title_bottom(Line::from(vec![
            Span::styled(filter, if h.typing() { theme::focused_label() } else { theme::label() }),
            Span::styled(position, theme::label()),
        ]));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
