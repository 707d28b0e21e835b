//! Text in the form's fields: pastes made safe, edits by key, text areas made alike.

use ratatui_textarea::TextArea;

/// Longest text kept from one paste or editor session, so a stray paste cannot freeze the form.
pub const MAX_TEXT: usize = 20_000;

/// A paste, ready for a text area: control characters other than newlines removed, CRLF and
/// a lone CR (what terminals send for Enter in a paste) made newlines.
pub fn clean_paste(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|c| *c == '\n' || !c.is_control())
        .take(MAX_TEXT)
        .collect()
}

/// An edit of a field's text by a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOp {
    Undo,
    Redo,
    /// Delete to the start of the line (a shell's Ctrl-U).
    ClearLine,
}

/// Replaces a text area's text as one edit, so undo brings the old text back.
pub(super) fn replace(area: &mut TextArea<'static>, text: &str) {
    area.select_all();
    area.cut();
    area.insert_str(text);
}

pub(super) fn text_area(placeholder: &str) -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_placeholder_text(placeholder.to_string());
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_max_histories(200);
    t.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    t
}
