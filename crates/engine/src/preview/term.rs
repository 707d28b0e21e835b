//! A picture printed into a terminal as part of a command's output (`reel show --preview`).
//!
//! `ratatui-image` does the drawing: with the terminal's own protocol (kitty, sixel, iTerm2)
//! when standard output is a terminal that answers its query, drawn through a ratatui inline
//! viewport; else as half blocks (`▀`, upper pixel in the foreground colour, lower in the
//! background) rendered into a `Buffer` whose cells are written out with 24-bit colour codes.

use std::io::{self, IsTerminal, Write};

use image::{DynamicImage, RgbImage};
use ratatui::buffer::{Buffer, CellDiffOption};
use ratatui::layout::{Position, Rect, Size};
use ratatui::style::Color;
use ratatui::widgets::Widget;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::{FilterType, Image, Resize};

/// Tall enough to recognise a scene, short enough to leave the text above it on screen.
pub const MAX_ROWS: u16 = 20;
/// The width when standard output is not a terminal.
pub const PIPE_COLUMNS: u16 = 80;

fn protocol(picker: &Picker, image: &RgbImage, columns: u16, rows: u16) -> io::Result<Protocol> {
    let image = DynamicImage::ImageRgb8(image.clone());
    picker
        .new_protocol(image, Size::new(columns.max(1), rows.max(1)), Resize::Scale(Some(FilterType::Triangle)))
        .map_err(io::Error::other)
}

/// `image` as lines of coloured half blocks, as large as fits in `columns` × `rows` cells.
pub fn halfblock_text(image: &RgbImage, columns: u16, rows: u16) -> io::Result<String> {
    let protocol = protocol(&Picker::halfblocks(), image, columns, rows)?;
    let size = protocol.size();
    let area = Rect::new(0, 0, size.width, size.height);
    let mut buf = Buffer::empty(area);
    Image::new(&protocol).render(area, &mut buf);
    Ok(ansi(&buf))
}

/// A buffer's cells as text: colour codes only where the colour changes, a reset at the end of
/// every line (so nothing bleeds into what is printed next).
pub fn ansi(buf: &Buffer) -> String {
    use std::fmt::Write as _;
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let (mut fg, mut bg) = (None, None);
        for x in area.left()..area.right() {
            let Some(cell) = buf.cell(Position::new(x, y)) else { continue };
            if cell.diff_option == CellDiffOption::Skip {
                continue;
            }
            if fg != Some(cell.fg) {
                let _ = write!(out, "\x1b[{}m", sgr(cell.fg, 38));
                fg = Some(cell.fg);
            }
            if bg != Some(cell.bg) {
                let _ = write!(out, "\x1b[{}m", sgr(cell.bg, 48));
                bg = Some(cell.bg);
            }
            out.push_str(cell.symbol());
        }
        out.push_str("\x1b[0m\n");
    }
    out
}

/// The SGR parameters for a colour as foreground (`base` 38) or background (48).
fn sgr(color: Color, base: u8) -> String {
    match color {
        Color::Rgb(r, g, b) => format!("{base};2;{r};{g};{b}"),
        Color::Indexed(i) => format!("{base};5;{i}"),
        _ => format!("{}", base + 1),
    }
}

/// Prints `image` after whatever is already on standard output (flush it first); inside tmux or
/// screen (`multiplexer`) in half blocks, without asking the terminal.
pub fn print(image: &RgbImage, multiplexer: bool) -> io::Result<()> {
    let mut stdout = io::stdout();
    if !(stdout.is_terminal() && io::stdin().is_terminal()) {
        return stdout.write_all(halfblock_text(image, PIPE_COLUMNS, MAX_ROWS)?.as_bytes());
    }
    let columns = crossterm::terminal::size().map_or(PIPE_COLUMNS, |(c, _)| c);
    let picker = super::detect::picker(multiplexer);
    if picker.protocol_type() == ProtocolType::Halfblocks {
        return stdout.write_all(halfblock_text(image, columns, MAX_ROWS)?.as_bytes());
    }
    inline(&picker, image, columns)
}

/// Draws with the terminal's protocol into an inline viewport: ratatui makes room below the
/// cursor and places the escape sequences cell by cell; the cursor ends on the line after.
fn inline(picker: &Picker, image: &RgbImage, columns: u16) -> io::Result<()> {
    let protocol = protocol(picker, image, columns, MAX_ROWS)?;
    let size = protocol.size();
    let backend = ratatui::backend::CrosstermBackend::new(io::stdout());
    let options = ratatui::TerminalOptions { viewport: ratatui::Viewport::Inline(size.height.max(1)) };
    let mut terminal = ratatui::Terminal::with_options(backend, options)?;
    let mut bottom = 0;
    terminal.draw(|frame| {
        let area = frame.area();
        let area = Rect { width: size.width.min(area.width), height: size.height.min(area.height), ..area };
        bottom = area.bottom();
        frame.render_widget(Image::new(&protocol), area);
    })?;
    terminal.set_cursor_position(Position::new(0, bottom.saturating_sub(1)))?;
    terminal.show_cursor()?;
    drop(terminal);
    let mut stdout = io::stdout();
    stdout.write_all(b"\r\n")?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Left half red, right half blue; top rows lighter.
    fn picture() -> RgbImage {
        RgbImage::from_fn(64, 36, |x, y| {
            let lift = if y < 18 { 0 } else { 100 };
            if x < 32 { image::Rgb([255, lift, lift]) } else { image::Rgb([lift, lift, 255]) }
        })
    }

    #[test]
    fn halfblocks_fill_the_width_in_colour() {
        let text = halfblock_text(&picture(), 40, 20).expect("drawn");
        let lines: Vec<&str> = text.lines().collect();
        assert!(!lines.is_empty() && lines.len() <= 20, "{} lines", lines.len());
        for line in &lines {
            let blocks = line.chars().filter(|&c| c == '▀' || c == '▄' || c == ' ' || c == '█').count();
            assert_eq!(blocks, 40, "{line:?}");
            assert!(line.ends_with("\x1b[0m"));
        }
        assert!(text.contains("\x1b[38;2;255;0;0m") || text.contains("\x1b[48;2;255;0;0m"), "{text:?}");
        assert!(text.contains("0;0;255m"), "blue on the right");
    }

    #[test]
    fn the_aspect_is_kept_within_the_box() {
        // 16:9 at a 1:2 cell: 40 columns are 40 × 10 px wide, so 225 px tall: 11.25 rows, rounded up.
        let rows = |columns, max| halfblock_text(&picture(), columns, max).expect("drawn").lines().count();
        assert_eq!(rows(40, 20), 12);
        assert_eq!(rows(80, 20), 20, "limited by the rows");
        assert_eq!(rows(80, 5), 5);
    }

    #[test]
    fn ansi_writes_colours_once_per_run_and_skips_skipped_cells() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        for x in 0..3 {
            if let Some(c) = buf.cell_mut((x, 0)) {
                c.set_char('▀').set_fg(Color::Rgb(1, 2, 3)).set_bg(Color::Reset);
            }
        }
        if let Some(c) = buf.cell_mut((2, 0)) {
            c.set_diff_option(CellDiffOption::Skip);
        }
        assert_eq!(ansi(&buf), "\x1b[38;2;1;2;3m\x1b[49m▀▀\x1b[0m\n");
    }
}
