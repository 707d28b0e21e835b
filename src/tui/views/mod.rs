//! Drawing: every function here reads the `App` and draws; none changes state or does I/O.

pub mod compose;
pub mod detail;
pub mod field;
pub mod footer;
pub mod header;
pub mod help;
pub mod history;
pub mod overlays;
pub mod preview;
pub mod tasks;

use ratatui::Frame;

use super::app::{App, Overlay, Screen};
use super::layout;

pub fn draw(frame: &mut Frame, app: &App) {
    let a = layout::areas(frame.area(), app.form());
    header::draw(frame, a.header, app);
    if app.screen() == Screen::History {
        let h = layout::history(frame.area(), app.history().grid());
        history::draw(frame, h.filters.union(h.below), app);
    } else {
        compose::draw(frame, &a, app);
        tasks::draw(frame, a.table, app);
        detail::draw(frame, a.detail, app);
    }
    footer::draw(frame, a.status, a.footer, app);
    match app.overlay() {
        Some(Overlay::Help(h)) => help::draw(frame, h),
        Some(Overlay::Picker { kind, cursor }) => overlays::picker(frame, app, *kind, *cursor),
        Some(Overlay::Media(m)) => overlays::media(frame, app, m),
        Some(Overlay::Confirm(q)) => overlays::confirm(frame, app, q),
        None => {}
    }
}
