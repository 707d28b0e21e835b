//! Drawing the whole screen: `draw` lays out the parts and calls each part's own `view`
//! (`compose::view`, `tasks::view`, …); here are only the pieces that belong to no one part
//! (header, footer, overlays, a field's label). Every function reads the `App` and draws; none
//! changes state or does I/O.

pub mod field;
pub mod footer;
pub mod header;
pub mod overlays;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::app::{App, Overlay, Screen};
use super::layout;

pub fn draw(frame: &mut Frame, app: &App) {
    if !layout::fits(frame.area()) {
        too_small(frame);
        return;
    }
    let a = layout::arrange(frame.area(), app.form(), app.show());
    header::draw(frame, a.header, app);
    if app.compare().is_some() {
        crate::compare::view::draw(frame, app);
    } else if app.screen() == Screen::History {
        let h = layout::history(frame.area(), app.history().grid());
        crate::history::view::draw(frame, h.filters.union(h.below), app);
    } else {
        // A pane the layout gave no room (the form hidden, the detail on a short terminal).
        let room = |r: Rect| !r.is_empty();
        if room(a.form) {
            crate::compose::view::draw(frame, &a, app);
        }
        if room(a.table) {
            crate::tasks::view::draw(frame, a.table, app);
        }
        if room(a.detail) {
            crate::detail::view::draw(frame, a.detail, app);
        }
    }
    footer::draw(frame, a.status, a.footer, app);
    match app.overlay() {
        Some(Overlay::Help(h)) => crate::help::view::draw(frame, h),
        Some(Overlay::Picker { kind, cursor }) => overlays::picker(frame, app, *kind, *cursor),
        Some(Overlay::Media(m)) => overlays::media(frame, app, m),
        Some(Overlay::BatchPath(p)) => overlays::batch_path(frame, app, p),
        Some(Overlay::Confirm(q)) => overlays::confirm(frame, app, q),
        Some(Overlay::Tags(input)) => overlays::tags(frame, app, input),
        None => {}
    }
}

/// Instead of a screen that cannot fit: what size reel needs, and what it has.
fn too_small(frame: &mut Frame) {
    let area = frame.area();
    let text = format!(
        "reel needs at least {}x{}; this terminal is {}x{}. Make it larger to go on.",
        layout::MIN_WIDTH,
        layout::MIN_HEIGHT,
        area.width,
        area.height
    );
    let lines: Vec<Line> = reel_rules::text::wrap_lines(&text, area.width.into(), area.height.into())
        .into_iter()
        .map(|l| Line::styled(l, super::theme::warn()))
        .collect();
    let rows = lines.len() as u16;
    let y = area.y + (area.height - rows) / 2;
    frame.render_widget(Paragraph::new(lines), Rect { y, height: rows, ..area });
}
