//! Frames of saved videos: the poster and strip in a detail pane (or the inline player's
//! frame), what stands in while they are made, and the history's grid of posters. Pictures are
//! made in `update`; here they are only copied to the screen.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui_image::Image;

use crate::app::{App, subject};
use crate::labels::count;
use crate::preview::fit::{Fit, GRID_TEXT_ROWS};
use crate::preview::{Missing, Picture};
use crate::theme;
use crate::views::field::field;
use reel_rules::text::{excerpt, wrap_lines};
use reel_store::TaskRecord;

pub(crate) fn draw_picture(frame: &mut Frame, area: Rect, p: &Picture) {
    let area = Rect { width: area.width.min(p.size.width), height: area.height.min(p.size.height), ..area };
    frame.render_widget(Image::new(&p.protocol), area);
}

/// An empty frame with a dim word in its middle, where a picture will be (or cannot be): the
/// first of `texts` that fits.
pub(crate) fn stand_in(frame: &mut Frame, area: Rect, texts: &[&str]) {
    let block = Block::default().borders(Borders::ALL).border_style(theme::border());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let line = Rect { y: inner.y + inner.height.saturating_sub(1) / 2, height: inner.height.min(1), ..inner };
    let fits = texts.iter().find(|t| Span::raw(**t).width() <= usize::from(inner.width));
    let text =
        fits.map_or_else(|| excerpt(texts.last().copied().unwrap_or(""), usize::from(inner.width)), |t| t.to_string());
    frame.render_widget(Paragraph::new(Span::styled(text, theme::dim())).alignment(Alignment::Center), line);
}

/// The poster (or the playing frame) and the strip of the task the pane shows.
pub fn pictures(frame: &mut Frame, app: &App, sha256: &str, fit: &Fit) {
    let p = app.previews();
    let playing = p.playing().filter(|pl| pl.sha256 == sha256);
    let shown = p.shown().filter(|s| s.sha256 == sha256);
    match (playing.and_then(|pl| pl.frame.as_ref()), shown) {
        (Some(f), _) => draw_picture(frame, fit.poster, f),
        (None, Some(s)) => draw_picture(frame, fit.poster, &s.poster),
        (None, None) => stand_in(frame, fit.poster, &["making preview…", "preview…", "…"]),
    }
    if let Some(pl) = playing {
        let (state, short) = match (pl.paused, pl.frame.is_some()) {
            (true, _) => ("❚❚ paused", "❚❚"),
            (false, true) => ("▶ playing", "▶"),
            (false, false) => ("▶ starting…", "…"),
        };
        // The word where it fits, else the sign alone.
        let state = if Span::raw(state).width() + 2 <= usize::from(fit.poster.width) { state } else { short };
        let width = (Span::raw(state).width() as u16).min(fit.poster.width);
        let r = Rect { y: fit.poster.bottom().saturating_sub(1), height: 1, width, ..fit.poster };
        frame.render_widget(Paragraph::new(Span::styled(state, theme::label())), r);
    }
    for (i, area) in fit.strip.iter().enumerate() {
        match shown.and_then(|s| s.strip.get(i)) {
            Some(pic) => draw_picture(frame, *area, pic),
            None if shown.is_none() => stand_in(frame, *area, &[]),
            None => {}
        }
    }
}

/// The detail's line about previews, when there is something to say instead of a picture:
/// ffmpeg missing, or this file could not be read.
pub fn note<'a>(app: &App, t: &TaskRecord, present: Option<bool>) -> Option<Line<'a>> {
    let s = subject(t, present)?;
    match app.previews().missing(&s.sha256) {
        Some(Missing::NeedsFfmpeg(why)) => Some(field("Preview", why)),
        Some(Missing::Failed(why)) => Some(field("Preview", format!("none: {why}"))),
        _ => None,
    }
}

/// The history as a grid: a poster for each task with its prompt under it.
pub fn grid(frame: &mut Frame, area: Rect, app: &App) {
    let h = app.history();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if h.detail_focused() { theme::border() } else { theme::focused_border() })
        .title(Span::styled(
            if h.done() {
                format!(" {} · grid ", count(h.rows().len(), "task"))
            } else {
                format!(" {}+ tasks · grid ", h.rows().len())
            },
            theme::title(),
        ));
    let rows = app.grid_rows();
    let block = if rows.len() < h.rows().len() {
        block.title_bottom(Span::styled(
            format!(" {}–{} of {}{} ", rows.start + 1, rows.end, h.rows().len(), if h.done() { "" } else { "+" }),
            theme::label(),
        ))
    } else {
        block
    };
    frame.render_widget(block, area);
    let (inner, g) = app.grid();
    if h.rows().is_empty() {
        let hint = if h.loading() { "Loading…" } else { "No tasks yet" };
        frame.render_widget(Paragraph::new(Span::styled(hint, theme::dim())), inner);
        return;
    }
    for (slot, i) in rows.enumerate() {
        let row = &h.rows()[i];
        let cell = g.cell(inner, slot);
        if cell.bottom() > inner.bottom() || cell.right() > inner.right() {
            break;
        }
        let poster = Rect { height: g.poster.1, ..cell };
        let t = &row.record;
        match subject(t, row.file_present) {
            Some(s) => match app.previews().thumb_picture(&s.sha256) {
                Some(p) => draw_picture(frame, poster, p),
                None => match app.previews().thumb_missing(&s.sha256) {
                    Missing::NeedsFfmpeg(_) => stand_in(frame, poster, &["needs ffmpeg", "ffmpeg"]),
                    Missing::Failed(_) => stand_in(frame, poster, &["no preview"]),
                    Missing::Loading => stand_in(frame, poster, &["…"]),
                },
            },
            None if t.file_path.is_some() && row.file_present == Some(false) => {
                stand_in(frame, poster, &["file missing", "missing"])
            }
            None => stand_in(frame, poster, &[&row.state]),
        }
        let selected = i == h.selected();
        let text = Rect { y: poster.bottom(), height: GRID_TEXT_ROWS, ..cell };
        let style = if selected { theme::selected() } else { theme::dim() };
        let mark = if selected { "▸ " } else { "" };
        let caption =
            wrap_lines(&format!("{mark}{}", row.caption), usize::from(cell.width), usize::from(GRID_TEXT_ROWS));
        let lines: Vec<Line> = caption.into_iter().map(|l| Line::styled(l, style)).collect();
        frame.render_widget(Paragraph::new(lines), text);
    }
}
