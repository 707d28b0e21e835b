//! A labelled line, as the detail pane and the previews write their fields.

use ratatui::text::{Line, Span};

use crate::tui::theme;

/// `Model    acme/aurora-3.0/…`: the name in a column of its own, then the value.
pub fn field<'a>(name: &str, value: String) -> Line<'a> {
    Line::from(vec![Span::styled(format!("{name:<9}"), theme::label()), Span::raw(value)])
}
