use strum::IntoEnumIterator;

use super::*;
use crossterm::event::{KeyCode, KeyModifiers};

fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, mods)
}

fn plain(c: char) -> KeyEvent {
    ev(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn scopes_win_over_global_and_text_keeps_letters() {
    let k = Keymap::new(&[]);
    assert_eq!(k.lookup(Scope::Table, &plain('q')), Some(Cmd::Quit));
    assert_eq!(k.lookup(Scope::Text, &plain('q')), None, "typed");
    assert_eq!(k.lookup(Scope::Text, &ev(KeyCode::Char('s'), KeyModifiers::CONTROL)), Some(Cmd::Submit));
    assert_eq!(
        k.lookup(Scope::Text, &ev(KeyCode::Char('C'), KeyModifiers::CONTROL | KeyModifiers::SHIFT)),
        Some(Cmd::ForceQuit)
    );
    assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::Char('Y'), KeyModifiers::SHIFT)), Some(Cmd::CopyUrl));
    assert_eq!(k.lookup(Scope::Form, &ev(KeyCode::F(1), KeyModifiers::NONE)), Some(Cmd::Help));
    assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Cmd::PrevFocus));
    let ctrl = |c| ev(KeyCode::Char(c), KeyModifiers::CONTROL);
    assert_eq!(k.lookup(Scope::Text, &ctrl('z')), Some(Cmd::Undo), "undo in text");
    assert_eq!(k.lookup(Scope::Table, &ctrl('z')), Some(Cmd::Suspend), "suspend elsewhere");
    assert_eq!(k.lookup(Scope::Text, &ctrl('u')), Some(Cmd::ClearLine), "a shell's Ctrl-U");
    assert_eq!(k.lookup(Scope::Line, &ctrl('u')), Some(Cmd::ClearLine));
}

#[test]
fn user_actions_get_free_keys_only() {
    let actions = vec![
        UserAction { key: 'm', name: "mpv".into(), command: vec!["mpv".into(), "{path}".into()] },
        UserAction { key: 'q', name: "clash".into(), command: vec!["true".into()] },
    ];
    let k = Keymap::new(&actions);
    assert_eq!(k.lookup(Scope::Table, &plain('m')), Some(Cmd::UserAction(0)));
    assert_eq!(k.lookup(Scope::Table, &plain('q')), Some(Cmd::Quit));
}

#[test]
fn footers_come_from_the_same_table() {
    let k = Keymap::new(&[]);
    let table = k.footer(Scope::Table);
    assert_eq!(table[0], ("o".to_string(), "open".to_string()));
    assert!(table.iter().any(|(key, what)| key == "?" && what == "help"), "{table:?}");
    assert!(!table.iter().any(|(key, _)| key == "F1"), "one help key is enough: {table:?}");
    assert!(k.footer(Scope::Text).iter().any(|(key, what)| key == "Ctrl-E" && what == "$EDITOR"));
    assert!(k.footer(Scope::Text).iter().any(|(key, what)| key == "F1" && what == "help"));
    assert_eq!(Key::ctrl('s').label(), "Ctrl-S");
}

/// `[keys]` entries as written: a name and its keys.
type Entries<'a> = Vec<(&'a str, &'a [&'a str])>;

fn keys(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
}

#[test]
fn the_config_rebinds_by_command_and_the_help_and_footer_follow() {
    let k = Keymap::with_keys(&[], &keys(&[("open", &["O"]), ("history.delete", &["Del", "X"])])).expect("ok");
    for scope in [Scope::Table, Scope::History] {
        assert_eq!(k.lookup(scope, &plain('O')), Some(Cmd::Open), "{scope:?}");
        assert_eq!(k.lookup(scope, &plain('o')), None, "{scope:?}: the old key is free");
    }
    assert_eq!(k.footer(Scope::Table)[0], ("O".to_string(), "open".to_string()), "same place in the footer");
    assert_eq!(k.lookup(Scope::History, &ev(KeyCode::Delete, KeyModifiers::NONE)), Some(Cmd::Delete));
    assert_eq!(k.lookup(Scope::History, &plain('X')), Some(Cmd::Delete));
    assert_eq!(k.lookup(Scope::History, &plain('x')), None);
    assert_eq!(k.key_for(Scope::History, Cmd::Delete).as_deref(), Some("Del"));
    // A swap is fine: clashes are looked for once everything is rebound.
    let k = Keymap::with_keys(&[], &keys(&[("open", &["q"]), ("quit", &["o"])])).expect("a swap");
    assert_eq!(k.lookup(Scope::Table, &plain('q')), Some(Cmd::Open));
    // A key the config gives wins over the built-in command that had it (a config written
    // before `p` played videos keeps opening them with p).
    let k = Keymap::with_keys(&[], &keys(&[("open", &["p"])])).expect("the config's key wins");
    assert_eq!(k.lookup(Scope::Table, &plain('p')), Some(Cmd::Open));
    assert_eq!(k.lookup(Scope::History, &plain('p')), Some(Cmd::Open));
    assert_eq!(k.key_for(Scope::Table, Cmd::Play), None, "play has no key left there");
    let none = Keymap::with_keys(&[], &keys(&[("delete", &[])])).expect("unbound");
    assert_eq!(none.lookup(Scope::History, &plain('x')), None);
}

#[test]
fn a_part_named_in_the_entry_wins_there_whatever_the_order() {
    // "history.quit" sorts before "quit": read in the file's order it lost to "quit", and
    // x went on deleting in the history.
    let k = Keymap::with_keys(&[], &keys(&[("history.quit", &["x"]), ("quit", &["Q"])])).expect("valid");
    assert_eq!(k.lookup(Scope::History, &plain('x')), Some(Cmd::Quit), "x quits in the history");
    assert_eq!(k.lookup(Scope::History, &plain('Q')), None, "the entry for everywhere lost there");
    assert_eq!(k.key_for(Scope::History, Cmd::Delete), None, "delete gave its key up");
    assert_eq!(k.lookup(Scope::Table, &plain('Q')), Some(Cmd::Quit), "and applies elsewhere");
    assert_eq!(k.lookup(Scope::Table, &plain('x')), None);
    let alone = Keymap::with_keys(&[], &keys(&[("history.quit", &["x"])])).expect("valid");
    assert_eq!(alone.lookup(Scope::History, &plain('x')), Some(Cmd::Quit));
    assert_eq!(alone.lookup(Scope::Table, &plain('q')), Some(Cmd::Quit), "only the history changed");
}

#[test]
fn every_command_but_user_actions_round_trips_through_its_name() {
    for cmd in Cmd::iter() {
        match cmd {
            Cmd::UserAction(_) => assert_eq!(cmd.name(), None),
            cmd => assert_eq!(cmd.name().and_then(Cmd::by_name), Some(cmd), "{cmd:?}"),
        }
    }
    assert_eq!(Cmd::by_name("user_action"), None);
    assert_eq!(Cmd::by_name("Quit"), None, "names are written in lowercase");
    // The names configs in the wild use: none may change.
    let names = "quit force_quit help close next_focus prev_focus submit editor to_tasks new_prompt suspend \
                 field_up field_down value_prev value_next toggle choose media_add media_remove up down page_up \
                 page_down top bottom mark sort filter search clear open copy_path copy_url again vary download \
                 recheck history ledger model dates copy_prompt reveal delete yes yes_with_file no undo redo \
                 clear_line play play_pause play_stop grid zoom load_batch complete_path rate_up rate_down pick tag compare blind pick_take \
                 rate_1 rate_2 rate_3 rate_4 rate_5";
    assert_eq!(Cmd::names(), names.split(' ').collect::<Vec<_>>());
}

#[test]
fn the_defaults_pass_every_check_and_every_command_has_a_key() {
    let k = Keymap::with_keys(&[], &BTreeMap::new()).expect("the defaults are valid");
    assert_eq!(k, Keymap::new(&[]));
    for cmd in Cmd::iter().filter(|c| c.name().is_some()) {
        assert!(k.bindings().iter().any(|b| b.cmd == cmd), "{cmd:?} has no key, so [keys] cannot give it one");
    }
}

#[test]
fn config_mistakes_name_the_entry_and_the_fix() {
    let scopes = "global, text, line, form, table, search, detail, help, help_filter, picker, media, history, \
                  history_search, question, playing";
    let ctrl_or_f = "give a key with Ctrl or an F key";
    let cases: Vec<(Entries, String)> = vec![
        (
            vec![("opn", &["p"])],
            format!("[keys] \"opn\": no such command; the commands are {}", Cmd::names().join(", ")),
        ),
        (vec![("history.opn", &["p"])], "[keys] \"history.opn\": no such command; the commands are quit,".into()),
        (
            vec![("tabel.open", &["p"])],
            format!("[keys] \"tabel.open\": no part of the screen is called \"tabel\"; the parts are {scopes}"),
        ),
        (
            vec![("open", &["p", "Hyper"])],
            "[keys] \"open\": \"Hyper\" is not a key reel knows (a character, Ctrl-<letter>, F1-F12, Enter, Esc, \
             Tab, Space, arrows, PgUp, PgDn, Home, End)"
                .into(),
        ),
        (
            vec![("submit", &["Ctrl-M"])],
            "[keys] \"submit\": \"Ctrl-M\": terminals send it as Enter, so write Enter".into(),
        ),
        (
            vec![("text.open", &["p"])],
            "[keys] \"text.open\": open has no key in Prompt fields to rebind; it has keys in table, history \
             (write \"open\" for all of them, or \"table.open\")"
                .into(),
        ),
        (
            vec![("question.quit", &["x"])],
            "[keys] \"question.quit\": quit has no key in Questions to rebind; it has keys in table, detail, \
             history (write \"quit\" for all of them, or \"table.quit\")"
                .into(),
        ),
        (
            vec![("open", &["q"]), ("quit", &["q"])],
            "[keys] \"open\" and \"quit\" both put q in Task table; give one of them another key".into(),
        ),
        (
            vec![("history.delete", &["Del"]), ("open", &["Del"])],
            "[keys] \"open\" and \"history.delete\" both put Del in History and ledger; give one of them another key"
                .into(),
        ),
        (
            vec![("help", &["h"])],
            format!(
                "[keys] \"help\": h is typed in the prompt fields (keys for everywhere apply there too), so it \
                 cannot mean help there; {ctrl_or_f}, or name one part, as in \"table.help\""
            ),
        ),
        (
            vec![("next_focus", &["Right"])],
            format!(
                "[keys] \"next_focus\": → is typed in the prompt fields (keys for everywhere apply there too), so \
                 it cannot mean next_focus there; {ctrl_or_f}, or name one part, as in \"table.next_focus\""
            ),
        ),
        (
            vec![("text.undo", &["u"])],
            format!("[keys] \"text.undo\": u is typed in Prompt fields, so it cannot mean undo there; {ctrl_or_f}"),
        ),
        (
            vec![("value_next", &["l", "Right"])],
            format!("[keys] \"value_next\": l is typed in Media item, so it cannot mean value_next there; {ctrl_or_f}"),
        ),
        (
            vec![("search.clear", &["Backspace"])],
            format!(
                "[keys] \"search.clear\": Backspace is typed in Task search, so it cannot mean clear there; {ctrl_or_f}"
            ),
        ),
    ];
    for (pairs, want) in cases {
        let got = Keymap::with_keys(&[], &keys(&pairs)).expect_err("refused").to_string();
        assert!(got.starts_with(&want), "{pairs:?}:\n got: {got}\nwant: {want}");
    }
}

#[test]
fn the_readme_example_passes_the_checks() {
    let readme = include_str!("../../../../README.md");
    let example = readme
        .split("```toml\n")
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("[keys]"))
        .expect("the README shows [keys]");
    let file = reel_engine::config::parse_file(std::path::Path::new("README.md"), example).expect("parses");
    let keys = file.keys.iter().map(|(name, list)| (name.clone(), list.keys())).collect();
    let k = Keymap::with_keys(&file.actions, &keys).expect("the README's example is valid");
    assert_eq!(k.lookup(Scope::Table, &plain('m')), Some(Cmd::UserAction(0)));
}

#[test]
fn actions_that_cannot_take_effect_are_refused_naming_the_action() {
    let action = |key: char, name: &str, command: &[&str]| UserAction {
        key,
        name: name.into(),
        command: command.iter().map(|s| s.to_string()).collect(),
    };
    let mpv = action('m', "mpv", &["mpv", "{path}"]);
    let cases: Vec<(Vec<UserAction>, Entries, &str)> = vec![
        (
            vec![action('q', "mpv", &["mpv", "{path}"])],
            vec![],
            "[[actions]] \"mpv\": q is already quit in the task table; give the action another key, or move quit \
             with [keys] \"table.quit\"",
        ),
        (
            vec![mpv.clone()],
            vec![("open", &["m"])],
            "[[actions]] \"mpv\": m is already open in the task table; give the action another key, or move open \
             with [keys] \"table.open\"",
        ),
        (
            vec![mpv.clone(), action('m', "vlc", &["vlc", "{path}"])],
            vec![],
            "[[actions]] \"vlc\": m is already the key of \"mpv\"; give one of them another key",
        ),
        (
            vec![action('m', "mpv", &["mpv", "{file}"])],
            vec![],
            "[[actions]] \"mpv\": {file} is not a placeholder; the placeholders are {id} (reel's task id), \
             {remote_id} (the service's), {path}, {url} and {prompt}",
        ),
    ];
    for (actions, pairs, want) in cases {
        let got = Keymap::with_keys(&actions, &keys(&pairs)).expect_err("refused").to_string();
        assert_eq!(got, want, "{pairs:?}");
    }
    // Moving the table's key away frees it for an action.
    let k = Keymap::with_keys(&[action('q', "mpv", &["mpv", "{path}"])], &keys(&[("table.quit", &["Q"])]))
        .expect("q is free in the table now");
    assert_eq!(k.lookup(Scope::Table, &plain('q')), Some(Cmd::UserAction(0)));
    assert_eq!(k.lookup(Scope::History, &plain('q')), Some(Cmd::Quit), "actions are for the task table");
}
