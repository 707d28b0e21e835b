//! The dispatch table: which part handles a command, in each state, as `dispatch.rs` says.

use crossterm::event::KeyCode;

use super::testkit::*;
use super::*;
use crate::keymap::Cmd;
use reel_store::LocalState;

/// The states the table is tried in.
#[derive(Debug, Clone, Copy)]
enum State {
    Form,
    Table,
    Detail,
    History,
    HistoryGrid,
    Help,
    Question,
    Playing,
    Comparing,
}

fn in_state(state: State) -> App {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    match state {
        State::Form => {}
        State::Table => select(&mut a, 1),
        State::Detail => a.focus = Focus::Detail,
        State::History | State::HistoryGrid => {
            select(&mut a, 1);
            ch(&mut a, 'H');
            if matches!(state, State::HistoryGrid) {
                ch(&mut a, 'g');
            }
        }
        State::Help => {
            select(&mut a, 1);
            ch(&mut a, '?');
        }
        State::Question => {
            select(&mut a, 1);
            a.overlay = Some(Overlay::Confirm(Question::Delete(1)));
        }
        State::Playing => {
            select(&mut a, 1);
            a.previews.play(1, "sha".into(), "/videos/1.mp4".into());
        }
        State::Comparing => {
            task(&mut a, 2, LocalState::Downloaded);
            a.compare_takes(vec![1, 2]);
        }
    }
    a
}

#[test]
fn the_routes_are_asked_in_the_documented_order() {
    use Route::*;
    assert_eq!(ROUTES, [Question, Help, Compare, Player, DetailScroll, Review, History, Dashboard]);
}

#[test]
fn each_command_reaches_the_part_the_table_names() {
    use Route as R;
    use State as S;
    let cases = [
        (S::Form, Cmd::Submit, R::Dashboard),
        (S::Form, Cmd::Down, R::Dashboard),
        (S::Table, Cmd::Down, R::Dashboard),
        (S::Table, Cmd::Play, R::Player),
        (S::Table, Cmd::PlayPause, R::Dashboard),
        (S::Playing, Cmd::PlayPause, R::Player),
        (S::Detail, Cmd::Down, R::DetailScroll),
        (S::Detail, Cmd::Mark, R::Dashboard),
        (S::History, Cmd::Down, R::History),
        (S::History, Cmd::Delete, R::History),
        (S::History, Cmd::ValueNext, R::Dashboard),
        (S::HistoryGrid, Cmd::ValueNext, R::History),
        (S::HistoryGrid, Cmd::ToggleGrid, R::Player),
        (S::History, Cmd::Quit, R::Dashboard),
        (S::Help, Cmd::Down, R::Help),
        (S::Help, Cmd::Help, R::Help),
        (S::Help, Cmd::Quit, R::Dashboard),
        (S::Question, Cmd::Down, R::Question),
        (S::Question, Cmd::Yes, R::Question),
        (S::Question, Cmd::Quit, R::Question),
        (S::Table, Cmd::RateUp, R::Review),
        (S::Table, Cmd::TogglePick, R::Review),
        (S::History, Cmd::EditTags, R::Review),
        (S::History, Cmd::RateDown, R::Review),
        (S::Help, Cmd::RateUp, R::Dashboard),
        (S::Question, Cmd::TogglePick, R::Question),
        (S::Table, Cmd::Choose, R::Dashboard),
        (S::Table, Cmd::Compare, R::Compare),
        (S::History, Cmd::Compare, R::Compare),
        (S::Comparing, Cmd::Play, R::Compare),
        (S::Comparing, Cmd::PlayPause, R::Compare),
        (S::Comparing, Cmd::ValueNext, R::Compare),
        (S::Comparing, Cmd::Down, R::Compare),
        (S::Comparing, Cmd::Rate3, R::Compare),
        (S::Comparing, Cmd::Help, R::Dashboard),
        (S::Comparing, Cmd::ForceQuit, R::Dashboard),
        (S::Table, Cmd::Rate3, R::Dashboard),
    ];
    for (state, cmd, want) in cases {
        let a = in_state(state);
        assert_eq!(a.route(cmd), want, "{state:?} {cmd:?}");
    }
}

#[test]
fn the_route_is_what_the_key_does() {
    // Down in the detail pane scrolls it; in the history it moves the selection.
    let mut a = in_state(State::History);
    let before = a.history.selected();
    key(&mut a, KeyCode::Down);
    assert_eq!(a.history.selected(), before, "one row: nothing below");
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.route(Cmd::Down), Route::DetailScroll);
    // A question open over the history answers, whatever the key.
    let mut a = in_state(State::Question);
    ch(&mut a, 'q');
    assert!(matches!(a.overlay, Some(Overlay::Confirm(Question::Delete(1)))), "q does not quit past a question");
}

#[test]
fn ctrl_u_clears_every_search_field() {
    let mut a = in_state(State::History);
    ch(&mut a, '/');
    typed(&mut a, "owl");
    ctrl(&mut a, 'u');
    assert_eq!(a.history.filters().text, "", "the history's search");
    assert_eq!(a.scope(), crate::keymap::Scope::HistorySearch, "still typing");
    let mut a = in_state(State::Help);
    ch(&mut a, '/');
    typed(&mut a, "que");
    ctrl(&mut a, 'u');
    assert!(matches!(&a.overlay, Some(Overlay::Help(h)) if h.filter().is_empty()), "the help's filter");
}
