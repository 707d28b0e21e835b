//! Drawing: every function here reads the `App` and draws; none changes state or does I/O.

pub mod compose;
pub mod detail;
pub mod footer;
pub mod header;
pub mod help;
pub mod history;
pub mod overlays;
pub mod tasks;

use ratatui::Frame;

use super::app::{App, Overlay, Screen};
use super::layout;

pub fn draw(frame: &mut Frame, app: &App) {
    let a = layout::areas(frame.area(), &app.form);
    header::draw(frame, a.header, app);
    if app.screen == Screen::History {
        let top = a.header.y + 1;
        let body = ratatui::layout::Rect { y: top, height: a.status.y.saturating_sub(top), ..frame.area() };
        history::draw(frame, body, app);
    } else {
        compose::draw(frame, &a, app);
        tasks::draw(frame, a.table, app);
        detail::draw(frame, a.detail, app);
    }
    footer::draw(frame, a.status, a.footer, app);
    match &app.overlay {
        Some(Overlay::Help { scroll }) => help::draw(frame, app, *scroll),
        Some(Overlay::Picker { cursor }) => overlays::picker(frame, app, *cursor),
        Some(Overlay::Media(m)) => overlays::media(frame, m),
        Some(Overlay::Confirm(q)) => overlays::confirm(frame, app, q),
        None => {}
    }
}
