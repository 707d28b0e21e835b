//! Colours and styles, in one place, and the monochrome screen drawn under NO_COLOR.

pub use reel_engine::config::colours_off;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

use reel_store::LocalState;

pub fn title() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

pub fn focused_border() -> Style {
    Style::default().fg(Color::Cyan)
}

pub fn border() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn label() -> Style {
    Style::default().fg(Color::Gray)
}

pub fn focused_label() -> Style {
    Style::default().fg(Color::Black).bg(Color::Cyan)
}

pub fn error() -> Style {
    Style::default().fg(Color::Red)
}

pub fn warn() -> Style {
    Style::default().fg(Color::Yellow)
}

pub fn ok() -> Style {
    Style::default().fg(Color::Green)
}

pub fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn demo() -> Style {
    Style::default().fg(Color::Black).bg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// The selected row of the list that has the keys.
pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

/// The selected row of a list without the keys: bold as well as grey, so that it still
/// stands out where colours are off (NO_COLOR keeps bold and reversed, drops colours).
pub fn selected_idle() -> Style {
    label().add_modifier(Modifier::BOLD)
}

pub fn key() -> Style {
    Style::default().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

pub fn state(s: LocalState) -> Style {
    match s {
        LocalState::Downloaded => ok(),
        LocalState::Failed
        | LocalState::Cancelled
        | LocalState::Rejected
        | LocalState::Lost
        | LocalState::Expired
        | LocalState::DownloadFailed => error(),
        LocalState::SubmitUnknown | LocalState::Stalled | LocalState::Unrecognized => warn(),
        _ => Style::default().fg(Color::Cyan),
    }
}

/// A drawn screen without its colours: bold, reversed and the like stay. The terminal is
/// drawn so under NO_COLOR, because crossterm then writes a change of colour as a bare
/// `ESC[m`, which turns bold and reversed off too and leaves the selected row unmarked.
pub fn without_colours(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        cell.set_fg(Color::Reset).set_bg(Color::Reset);
    }
}
