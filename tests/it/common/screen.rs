//! The dashboard drawn on ratatui's TestBackend at the app's size, and the text it shows.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use reel_tui::app::App;
use reel_tui::views;

pub fn draw(app: &App) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(app.size().0, app.size().1)).expect("terminal");
    t.draw(|f| views::draw(f, app)).expect("draw");
    t.backend().buffer().clone()
}

/// The screen's text, a line per row without trailing spaces (a double-width character is
/// written once, not followed by the cell it covers).
pub fn text(b: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..b.area.height {
        let mut line = String::new();
        let mut x = 0;
        while x < b.area.width {
            let symbol = b[(x, y)].symbol();
            line.push_str(symbol);
            x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
