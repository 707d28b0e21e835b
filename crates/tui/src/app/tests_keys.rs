//! Update tests for help and keys: the help overlay (the screen's keys first, scroll, filter),
//! rebound keys, line editing, the form's messages and the state picker.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::testkit::*;
use super::*;
use crate::compose::Field;
use crate::help::HelpLine;
use crate::keymap::{Keymap, Scope};
use crate::labels::{Filter, count};
use reel_engine::query::HistoryRow;
use reel_rules::MediaKind;
use reel_store::LocalState;

fn help(a: &App) -> &crate::help::HelpState {
    match &a.overlay {
        Some(Overlay::Help(h)) => h,
        other => panic!("no help: {other:?}"),
    }
}

fn first_title(a: &App) -> String {
    match help(a).lines().first() {
        Some(HelpLine::Title(t)) => t.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn help_shows_the_screen_you_are_on_first() {
    let mut a = app();
    key(&mut a, KeyCode::F(1));
    assert_eq!((first_title(&a), help(&a).screen()), ("Prompt fields".to_string(), "form"));
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Esc);
    ch(&mut a, '?');
    assert_eq!((first_title(&a), help(&a).screen()), ("Task table".to_string(), "task table"));
    key(&mut a, KeyCode::Esc);
    ch(&mut a, 'H');
    ch(&mut a, '?');
    assert_eq!((first_title(&a), help(&a).screen()), ("History and ledger".to_string(), "history"));
    key(&mut a, KeyCode::Esc);
    ch(&mut a, 'L');
    ch(&mut a, '?');
    assert_eq!(help(&a).screen(), "ledger");
}

#[test]
fn help_scrolls_to_its_end_and_back_and_never_past_it() {
    let mut a = app();
    a.size = (80, 24);
    key(&mut a, KeyCode::F(1));
    let visible = 24 - 2 - 2;
    let n = help(&a).lines().len();
    assert!(n > visible, "the help is longer than an 80x24 screen");
    key(&mut a, KeyCode::End);
    assert_eq!(help(&a).scroll(), n - visible, "the last line at the bottom");
    key(&mut a, KeyCode::Down);
    ch(&mut a, 'j');
    assert_eq!(help(&a).scroll(), n - visible, "not past the end");
    key(&mut a, KeyCode::PageUp);
    assert_eq!(help(&a).scroll(), n - visible - (visible - 1));
    ch(&mut a, 'k');
    key(&mut a, KeyCode::Up);
    assert_eq!(help(&a).scroll(), n - visible - (visible - 1) - 2);
    key(&mut a, KeyCode::Home);
    assert_eq!(help(&a).scroll(), 0);
    key(&mut a, KeyCode::PageDown);
    assert_eq!(help(&a).scroll(), visible - 1);
}

#[test]
fn slash_filters_the_help() {
    let mut a = app();
    key(&mut a, KeyCode::Esc);
    ch(&mut a, '?');
    ch(&mut a, '/');
    assert_eq!(a.scope(), Scope::HelpFilter);
    for c in "ledger".chars() {
        ch(&mut a, c);
    }
    assert!(help(&a).lines().contains(&HelpLine::Key { keys: "L".into(), what: "the cost and time ledger".into() }));
    assert!(help(&a).lines().len() < 6, "{:?}", help(&a).lines());
    key(&mut a, KeyCode::Enter);
    assert_eq!((a.scope(), help(&a).filter()), (Scope::HelpView, "ledger"), "Enter keeps the filter");
    ch(&mut a, 'q');
    assert_eq!(a.overlay, None, "q closes the help, it does not quit");
    assert!(!a.quit);
    ch(&mut a, '?');
    ch(&mut a, '/');
    ch(&mut a, 'x');
    key(&mut a, KeyCode::Esc);
    assert_eq!((a.scope(), help(&a).filter()), (Scope::HelpView, ""), "Esc drops the filter");
}

#[test]
fn rebound_keys_work_and_the_help_shows_them() {
    let mut a = app();
    let keys: BTreeMap<String, Vec<String>> = [("open".to_string(), vec!["O".to_string()])].into_iter().collect();
    a.keymap = Keymap::with_keys(&[], &keys).expect("valid");
    task(&mut a, 1, LocalState::Downloaded);
    select(&mut a, 1);
    assert_eq!(acts(ch(&mut a, 'O')), vec![Effect::Open { path: "/videos/1.mp4".into(), sha256: None }]);
    assert!(acts(ch(&mut a, 'o')).is_empty(), "o is free now");
    ch(&mut a, '?');
    assert!(
        help(&a).lines().contains(&HelpLine::Key { keys: "O".into(), what: "open the video in the player".into() })
    );
    assert_eq!(a.keymap.footer(Scope::Table)[0], ("O".to_string(), "open".to_string()));
}

#[test]
fn ctrl_u_clears_the_line_as_in_a_shell_and_ctrl_z_undoes() {
    let mut a = app();
    typed(&mut a, "first line");
    key(&mut a, KeyCode::Enter);
    typed(&mut a, "a red fox");
    ctrl(&mut a, 'u');
    assert_eq!(a.form.prompt_text(), "first line\n", "only the line before the cursor");
    ctrl(&mut a, 'z');
    assert_eq!(a.form.prompt_text(), "first line\na red fox", "undone");
    assert!(!acts(ctrl(&mut a, 'z')).contains(&Effect::Suspend), "Ctrl-Z undoes in text, it does not suspend");
    a.focus = Focus::Form(Field::Grid);
    a.form.edit_line(Field::Grid, |l| *l = "16:9 5".into());
    ctrl(&mut a, 'u');
    assert_eq!(a.form.grid(), "");
    a.focus = Focus::Table;
    assert_eq!(acts(ctrl(&mut a, 'z')), vec![Effect::Suspend], "outside text Ctrl-Z suspends");
}

#[test]
fn the_seconds_field_says_what_it_did_not_take() {
    let mut a = app();
    a.focus = Focus::Form(Field::Seconds);
    a.form.edit_line(Field::Seconds, String::clear);
    typed(&mut a, "4.5");
    assert_eq!(a.form.seconds(), "45");
    assert_eq!(status(&a), "Seconds are whole numbers (or -1 for automatic): \".\" was not typed");
    assert_eq!(a.status.as_ref().map(|s| s.level), Some(Level::Warn));
}

#[test]
fn the_grid_names_every_bad_token() {
    let mut a = app();
    typed(&mut a, "a fox");
    a.form.edit_line(Field::Grid, |l| *l = "16:9 wide 4.5".into());
    let p = a.form.check().first_problem(Field::Grid).unwrap_or_default().to_string();
    assert!(p.contains("\"wide\" and \"4.5\""), "{p}");
}

#[test]
fn the_media_dialog_starts_on_the_type_the_model_needs_and_arrows_change_it_anywhere() {
    let mut a = app();
    a.form.set_model(a.form.models().iter().position(|m| m.ends_with("/image-to-video")).unwrap_or(1));
    a.focus = Focus::Form(Field::Media);
    ch(&mut a, 'a');
    let kind = |a: &App| match &a.overlay {
        Some(Overlay::Media(m)) => (m.kind(), m.part()),
        other => panic!("{other:?}"),
    };
    assert_eq!(kind(&a), (MediaKind::FirstFrame, 0));
    key(&mut a, KeyCode::Down);
    typed(&mut a, "https://x.org/a.png");
    key(&mut a, KeyCode::Right);
    assert_ne!(kind(&a).0, MediaKind::FirstFrame, "→ changes the type from the URL part too");
    key(&mut a, KeyCode::Left);
    assert_eq!(kind(&a), (MediaKind::FirstFrame, 1));
    ctrl(&mut a, 'u');
    assert!(matches!(&a.overlay, Some(Overlay::Media(m)) if m.url().is_empty()), "Ctrl-U clears the part");
}

#[test]
fn the_history_filters_by_the_same_groups_with_a_picker() {
    let mut a = app();
    a.focus = Focus::Table;
    ch(&mut a, 'H');
    let g = a.history.ticket();
    let rows = (1..=3).map(|i| HistoryRow { record: rec(i, LocalState::Downloaded), file_present: None }).collect();
    a.update(Action::HistoryPage(g, Ok(rows)), NOW);
    assert!(ch(&mut a, 'f').is_empty(), "nothing runs until a group is picked");
    assert_eq!(a.overlay, Some(Overlay::Picker { kind: PickerKind::States, cursor: 0 }));
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    let e = key(&mut a, KeyCode::Enter);
    assert_eq!(a.history.filters().group, Filter::Problems);
    let query = e.iter().find_map(|x| match x {
        Effect::HistoryPage { query, .. } => Some(query.clone()),
        _ => None,
    });
    let states = query.map(|q| q.states).unwrap_or_default();
    assert!(states.contains(&LocalState::Failed) && states.contains(&LocalState::Lost), "{states:?}");
    assert!(!states.contains(&LocalState::Downloaded) && !states.contains(&LocalState::Queued));
    assert!(e.iter().any(|x| matches!(x, Effect::SavePrefs(p) if p.history.group == Filter::Problems)));
}

#[test]
fn the_detail_pane_takes_the_focus_and_scrolls_within_its_text() {
    let mut a = app();
    a.size = (80, 24);
    let mut r = rec(1, LocalState::Failed);
    r.prompt = "a very long prompt ".repeat(30);
    r.error = Some(serde_json::json!({"message": "flagged ".repeat(40)}));
    put(&mut a, r);
    select(&mut a, 1);
    key(&mut a, KeyCode::Tab);
    assert_eq!((a.focus, a.scope()), (Focus::Detail, Scope::Detail));
    key(&mut a, KeyCode::Down);
    ch(&mut a, 'j');
    assert_eq!(a.detail_scroll, 2);
    key(&mut a, KeyCode::End);
    let end = a.detail_scroll;
    assert!(end > 5, "{end}");
    key(&mut a, KeyCode::PageDown);
    assert_eq!(a.detail_scroll, end, "never past the last line");
    key(&mut a, KeyCode::Home);
    assert_eq!(a.detail_scroll, 0);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.focus, Focus::Table);
    // On the history screen Tab moves between the list and the detail.
    ch(&mut a, 'H');
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.scope(), Scope::Detail);
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.scope(), Scope::History);
}

#[test]
fn messages_are_cleared_when_the_screen_changes() {
    let mut a = app();
    a.focus = Focus::Table;
    ch(&mut a, 's');
    assert!(!status(&a).is_empty());
    ch(&mut a, 'H');
    assert_eq!(a.status, None);
    a.status = Some(Status { text: "x".into(), level: Level::Info });
    key(&mut a, KeyCode::Esc);
    assert_eq!((a.screen, a.status.clone()), (Screen::Dashboard, None));
}

#[test]
fn plurals_in_every_message() {
    assert_eq!(
        (count(1, "task"), count(2, "task"), count(0, "item")),
        ("1 task".into(), "2 tasks".into(), "0 items".into())
    );
    let mut a = app();
    typed(&mut a, "a fox");
    ctrl(&mut a, 's');
    assert_eq!(status(&a), "Sending 1 task…");
    let ev = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
    a.form.edit_line(Field::Copies, |l| *l = "3".into());
    a.update(Action::Key(ev), NOW);
    assert_eq!(status(&a), "Sending 3 tasks…");
}
