//! Key dispatch, in one place. A key goes through two tables, in this order:
//!
//! 1. The keymap (`keymap/defaults.rs`, rebound by `[keys]`) turns the key into a command
//!    in the scope that has the keys ([`App::scope`]). Beside the inline player's pane (the
//!    task table, the detail pane, the history list) the player's scope is asked first, so
//!    Space and Esc reach a playing video. A key with no command in a scope that takes text
//!    (the history search, the help's filter, a picker's filter, a form field) is typed there.
//! 2. [`ROUTES`] hands the command to the first part that takes it.

use super::{App, Effect, Overlay, Screen};
use crate::keymap::Cmd;

/// A part of the dashboard that handles commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// An open question takes every command: an answer, or it stays open.
    Question,
    /// The open help: scrolling, its filter, closing it.
    Help,
    /// The compare view (`C` opens it): its takes, ratings, pick, blind mode and playing
    /// them together; the help, suspending and Ctrl-C stay the dashboard's.
    Compare,
    /// The inline player (`p`, Space, Esc) and the history's grid of posters (`g`).
    Player,
    /// The detail pane with the keys: the movement keys scroll it.
    DetailScroll,
    /// Rating, picking and tagging the selected task, and the tag line (`review.rs`).
    Review,
    /// The history screen's own commands, with no overlay open.
    History,
    /// Everything else: the form, the pickers, the media editor, the task table, quitting.
    Dashboard,
}

/// The routes in the order they are asked; the first that takes a command handles it.
pub const ROUTES: [Route; 8] = [
    Route::Question,
    Route::Help,
    Route::Compare,
    Route::Player,
    Route::DetailScroll,
    Route::Review,
    Route::History,
    Route::Dashboard,
];

fn moves(cmd: Cmd) -> bool {
    matches!(cmd, Cmd::Up | Cmd::Down | Cmd::PageUp | Cmd::PageDown | Cmd::Top | Cmd::Bottom)
}

impl App {
    /// Whether `route` takes `cmd` in the state the app is in.
    pub(crate) fn takes(&self, route: Route, cmd: Cmd) -> bool {
        let history = self.screen == Screen::History;
        match route {
            Route::Question => matches!(self.overlay, Some(Overlay::Confirm(_))),
            Route::Help => {
                matches!(self.overlay, Some(Overlay::Help(_)))
                    && (moves(cmd)
                        || matches!(
                            cmd,
                            Cmd::Search | Cmd::CloseOverlay | Cmd::ClearSelection | Cmd::ClearLine | Cmd::Help
                        ))
            }
            Route::Compare => {
                cmd == Cmd::Compare
                    || (self.compare.is_some()
                        && self.overlay.is_none()
                        && !matches!(cmd, Cmd::Help | Cmd::ForceQuit | Cmd::Suspend))
            }
            Route::Player => match cmd {
                Cmd::Play | Cmd::PlayStop => true,
                Cmd::PlayPause => self.previews.playing().is_some(),
                Cmd::ToggleGrid => history,
                _ => false,
            },
            Route::DetailScroll => self.detail_focused() && moves(cmd),
            Route::Review => self.takes_review(cmd),
            Route::History => {
                history
                    && self.overlay.is_none()
                    && (moves(cmd)
                        || matches!(
                            cmd,
                            Cmd::ShowHistory
                                | Cmd::NextFocus
                                | Cmd::PrevFocus
                                | Cmd::Search
                                | Cmd::CloseOverlay
                                | Cmd::ClearSelection
                                | Cmd::ClearLine
                                | Cmd::CycleModel
                                | Cmd::Filter
                                | Cmd::CycleSpan
                                | Cmd::Sort
                                | Cmd::ToggleLedger
                                | Cmd::Open
                                | Cmd::Reveal
                                | Cmd::CopyPrompt
                                | Cmd::Resubmit
                                | Cmd::Vary
                                | Cmd::Download
                                | Cmd::Delete
                        )
                        || (matches!(cmd, Cmd::ValuePrev | Cmd::ValueNext) && self.history.grid()))
            }
            Route::Dashboard => true,
        }
    }

    /// The part that handles `cmd` now: the first of [`ROUTES`] that takes it.
    pub fn route(&self, cmd: Cmd) -> Route {
        ROUTES.into_iter().find(|r| self.takes(*r, cmd)).unwrap_or(Route::Dashboard)
    }

    /// Hands a command to its part.
    pub(crate) fn command(&mut self, cmd: Cmd) -> Vec<Effect> {
        if matches!(self.overlay, Some(Overlay::Picker { .. })) && !(moves(cmd) || cmd == Cmd::Choose) {
            // Whatever else a key does in a picker (Esc, the help, quitting) leaves its filter
            // behind: a picker opened again starts with its whole list.
            self.on_screen.picker_filter.clear();
        }
        match self.route(cmd) {
            Route::Question => self.answer(cmd),
            Route::Help => self.help_command(cmd).unwrap_or_default(),
            Route::Compare => self.compare_command(cmd),
            Route::Player => self.preview_command(cmd).unwrap_or_default(),
            Route::DetailScroll => {
                self.scroll_detail(cmd);
                Vec::new()
            }
            Route::Review => self.review_command(cmd),
            Route::History => self.history_command(cmd).unwrap_or_default(),
            Route::Dashboard => self.dashboard_command(cmd),
        }
    }
}
