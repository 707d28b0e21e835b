//! The form pane hidden or shown (zoom), and what the layout needs to know from the app: the
//! pane with the keys is given room first, and the form comes back whenever it has them.

use ratatui::layout::Rect;

use super::{App, Focus, Level, Screen};
use crate::keymap::{Cmd, Scope};
use crate::layout::{self, Areas, Focused, Show};

/// Choices about what is on screen that belong to no part: kept by the app for the views.
#[derive(Debug, Default)]
pub(crate) struct OnScreen {
    /// The user hid the form pane so the tasks and the detail take the whole width.
    pub(crate) zoomed: bool,
    /// What was typed into the open picker to narrow its list.
    pub(crate) picker_filter: String,
}

impl App {
    /// What the layout is asked to show now.
    pub fn show(&self) -> Show {
        let focus = match self.focus {
            Focus::Form(f) => Focused::Form(f),
            Focus::Table => Focused::Tasks,
            Focus::Detail => Focused::Detail,
        };
        Show { focus, zoomed: self.on_screen.zoomed }
    }

    /// Where everything goes on the terminal as it is now: the mouse and `update` ask this,
    /// and the view arranges the frame it is given the same way.
    pub fn areas(&self) -> Areas {
        layout::arrange(Rect::new(0, 0, self.size.0, self.size.1), &self.form, self.show())
    }

    /// Hides the form pane, or brings it back.
    pub(crate) fn toggle_zoom(&mut self) {
        if self.screen != Screen::Dashboard {
            return;
        }
        self.on_screen.zoomed = !self.on_screen.zoomed;
        let zoom = self.keymap.key_for(Scope::Table, Cmd::Zoom).unwrap_or_default();
        let new = self.keymap.key_for(Scope::Table, Cmd::NewPrompt).unwrap_or_default();
        let text = if self.on_screen.zoomed {
            format!("The form is hidden: {zoom} brings it back, {new} writes a new prompt")
        } else if layout::side_by_side(self.size.0) {
            "The form is back beside the tasks".to_string()
        } else {
            format!("The terminal is too narrow for the form beside the tasks: {new} moves to it")
        };
        self.say(Level::Info, text);
    }
}
