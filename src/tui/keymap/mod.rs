//! Every key binding, as data: the event handling, the footer and the help overlay all read
//! this one table, and the config's `[keys]` rebinds it by command name.

pub mod actions;
mod defaults;
mod key;

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};
use strum::IntoEnumIterator;
use thiserror::Error;

pub use actions::{ActionError, Placeholder, fill_command};
pub use key::{Key, KeyError};

use crate::config::Settings;
/// A user-defined action from the config: a key, a name, a command with placeholders.
pub use crate::config::UserAction;

/// What a key does. The names `[keys]` in the config uses are the variants' own, in snake case
/// unless renamed here; configs in the wild use them, so a name never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumIter, strum::EnumString, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Cmd {
    Quit,
    ForceQuit,
    Help,
    #[strum(serialize = "close")]
    CloseOverlay,
    NextFocus,
    PrevFocus,
    Submit,
    #[strum(serialize = "editor")]
    EditInEditor,
    #[strum(serialize = "to_tasks")]
    LeaveForm,
    NewPrompt,
    Suspend,
    FieldUp,
    FieldDown,
    ValuePrev,
    ValueNext,
    Toggle,
    Choose,
    MediaAdd,
    MediaRemove,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Mark,
    Sort,
    Filter,
    Search,
    #[strum(serialize = "clear")]
    ClearSelection,
    Open,
    CopyPath,
    CopyUrl,
    #[strum(serialize = "again")]
    Resubmit,
    Vary,
    Download,
    Recheck,
    /// The n-th action of the config's `[[actions]]`; it has no name of its own.
    #[strum(disabled)]
    UserAction(usize),
    #[strum(serialize = "history")]
    ShowHistory,
    #[strum(serialize = "ledger")]
    ToggleLedger,
    #[strum(serialize = "model")]
    CycleModel,
    #[strum(serialize = "dates")]
    CycleSpan,
    CopyPrompt,
    Reveal,
    Delete,
    Yes,
    YesWithFile,
    No,
    Undo,
    Redo,
    /// Delete to the start of the line (a shell's Ctrl-U).
    ClearLine,
    /// Play the selected video inline in the detail pane (or stop it).
    Play,
    PlayPause,
    PlayStop,
    /// The history as a list or a grid of posters.
    #[strum(serialize = "grid")]
    ToggleGrid,
    /// Hide the form pane (or bring it back): the tasks and detail take the whole width.
    Zoom,
}

impl Cmd {
    /// The command's name in the config, if it can be rebound there.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Cmd::UserAction(_) => None,
            cmd => Some(cmd.into()),
        }
    }

    fn by_name(name: &str) -> Option<Cmd> {
        name.parse().ok()
    }

    /// Every name `[keys]` takes, in the enum's order.
    fn names() -> Vec<&'static str> {
        Cmd::iter().filter_map(Cmd::name).collect()
    }
}

/// Where a binding applies. Global bindings apply everywhere unless a narrower one takes the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Global,
    /// The prompt and negative prompt text areas: every other key is typed.
    Text,
    /// One-line inputs (seconds, copies, grid): other keys are typed.
    Line,
    /// Pickers and toggles of the form.
    Form,
    Table,
    /// Typing a search in the table.
    Searching,
    /// The detail pane, focused to scroll (dashboard and history).
    Detail,
    HelpView,
    /// Typing a filter in the help.
    HelpFilter,
    /// A list to choose from: models, state groups.
    Picker,
    MediaEditor,
    History,
    /// Typing a search in the history.
    HistorySearch,
    /// A question (deleting a record, the daily budget, sending again, quitting).
    Confirm,
    /// A video playing in the detail pane: its keys come before the pane's own.
    Playing,
}

impl Scope {
    pub const ALL: [Scope; 15] = [
        Scope::Global,
        Scope::Text,
        Scope::Line,
        Scope::Form,
        Scope::Table,
        Scope::Searching,
        Scope::Detail,
        Scope::HelpView,
        Scope::HelpFilter,
        Scope::Picker,
        Scope::MediaEditor,
        Scope::History,
        Scope::HistorySearch,
        Scope::Confirm,
        Scope::Playing,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Text => "Prompt fields",
            Scope::Line => "Number and grid fields",
            Scope::Form => "Form choices",
            Scope::Table => "Task table",
            Scope::Searching => "Task search",
            Scope::Detail => "Detail pane",
            Scope::HelpView => "Help",
            Scope::HelpFilter => "Help filter",
            Scope::Picker => "Lists (models, states)",
            Scope::MediaEditor => "Media item",
            Scope::History => "History and ledger",
            Scope::HistorySearch => "History search",
            Scope::Confirm => "Questions",
            Scope::Playing => "Playing a preview",
        }
    }

    /// The scope's name in the config (`[keys] "table.open" = "Enter"`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Text => "text",
            Scope::Line => "line",
            Scope::Form => "form",
            Scope::Table => "table",
            Scope::Searching => "search",
            Scope::Detail => "detail",
            Scope::HelpView => "help",
            Scope::HelpFilter => "help_filter",
            Scope::Picker => "picker",
            Scope::MediaEditor => "media",
            Scope::History => "history",
            Scope::HistorySearch => "history_search",
            Scope::Confirm => "question",
            Scope::Playing => "playing",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub scope: Scope,
    pub key: Key,
    pub cmd: Cmd,
    pub help: String,
    /// The footer's word for it, when it is shown in the footer of its scope.
    pub footer: Option<String>,
    /// The config's `[keys]` entry that put it here: it wins over a built-in binding of the
    /// same key.
    pub entry: Option<String>,
}

/// Why the config's `[keys]` or `[[actions]]` cannot be used; each message names the entry and
/// the fix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeymapError {
    #[error("[keys] \"{entry}\": no such command; the commands are {known}")]
    UnknownCommand { entry: String, known: String },
    #[error("[keys] \"{entry}\": no part of the screen is called \"{scope}\"; the parts are {known}")]
    UnknownScope { entry: String, scope: String, known: String },
    #[error("[keys] \"{entry}\": {source}")]
    BadKey { entry: String, source: KeyError },
    #[error("[keys] \"{entry}\": {cmd} has no key in {scope} to rebind; {elsewhere}")]
    NotBound { entry: String, cmd: String, scope: String, elsewhere: String },
    #[error(
        "[keys] \"{entry}\": {key} is typed in {place}, so it cannot mean {cmd} there; give a key with Ctrl or an \
         F key{hint}"
    )]
    Typed { entry: String, key: String, place: String, cmd: String, hint: String },
    #[error("[keys] \"{first}\" and \"{second}\" both put {key} in {scope}; give one of them another key")]
    Clash { first: String, second: String, key: String, scope: String },
    #[error(
        "[[actions]] \"{action}\": {key} is already {cmd} in the task table; give the action another key, or move \
         {cmd} with [keys] \"table.{cmd}\""
    )]
    ActionKeyTaken { action: String, key: String, cmd: String },
    #[error("[[actions]] \"{action}\": {key} is already the key of \"{first}\"; give one of them another key")]
    ActionKeyTwice { action: String, first: String, key: String },
    #[error(transparent)]
    Action(#[from] ActionError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

fn cmd_label(cmd: Cmd) -> String {
    cmd.name().map_or_else(|| format!("{cmd:?}"), str::to_string)
}

/// Whether `key` is typed (or moves the cursor) where `scope`'s bindings apply, so that binding
/// it there would take it from the text. Keys for everywhere apply in the prompt fields too.
fn typed_in(scope: Scope, key: Key) -> bool {
    if !key.mods.is_empty() {
        return false;
    }
    let typed = matches!(key.code, KeyCode::Char(_) | KeyCode::Backspace);
    let cursor = matches!(
        key.code,
        KeyCode::Enter
            | KeyCode::Delete
            | KeyCode::Left
            | KeyCode::Right
            | KeyCode::Up
            | KeyCode::Down
            | KeyCode::Home
            | KeyCode::End
    );
    match scope {
        Scope::Global | Scope::Text => typed || cursor,
        Scope::Line | Scope::Searching | Scope::HistorySearch | Scope::HelpFilter | Scope::MediaEditor => typed,
        _ => false,
    }
}

/// The config's bindings: none on a key that is typed where it applies, no two entries on one
/// key in one place (a swap is fine: this runs once everything is rebound).
fn check_chosen(chosen: &[Binding]) -> Result<(), KeymapError> {
    for (i, a) in chosen.iter().enumerate() {
        let entry = a.entry.clone().unwrap_or_default();
        if typed_in(a.scope, a.key) {
            let cmd = cmd_label(a.cmd);
            let (place, hint) = match a.scope {
                Scope::Global => (
                    "the prompt fields (keys for everywhere apply there too)",
                    format!(", or name one part, as in \"table.{cmd}\""),
                ),
                scope => (scope.title(), String::new()),
            };
            return Err(KeymapError::Typed { entry, key: a.key.label(), place: place.to_string(), cmd, hint });
        }
        if let Some(b) = chosen[i + 1..].iter().find(|b| b.scope == a.scope && b.key == a.key && b.cmd != a.cmd) {
            return Err(KeymapError::Clash {
                first: entry,
                second: b.entry.clone().unwrap_or_default(),
                key: a.key.label(),
                scope: a.scope.title().to_string(),
            });
        }
    }
    Ok(())
}

/// Checks the config's `[keys]` and `[[actions]]` the way the dashboard would use them, so
/// that every command (the dashboard and the headless ones alike) refuses a mistake there.
pub fn check_config(settings: &Settings) -> Result<(), KeymapError> {
    Keymap::with_keys(&settings.actions, &settings.keys).map(drop)
}

impl Keymap {
    /// The default keys, with the config's actions on the task table keys left free.
    pub fn new(actions: &[UserAction]) -> Keymap {
        let mut k = Keymap { bindings: defaults::bindings() };
        k.add_actions(actions);
        k
    }

    /// The default keys rebound by the config's `[keys]`: `open = "Enter"` rebinds a command
    /// wherever it has a key, `"history.open" = "Enter"` only there (and wins there over
    /// `open`, whatever the order in the file); a list gives several keys, an empty one none.
    /// A key the config gives takes it from the built-in command that had it there (so a
    /// config written before a new built-in key keeps working). Refused: two entries putting
    /// one key in one place, a key that is typed where it would apply, and actions whose key
    /// is taken or whose command can never run.
    pub fn with_keys(actions: &[UserAction], keys: &BTreeMap<String, Vec<String>>) -> Result<Keymap, KeymapError> {
        let mut k = Keymap { bindings: defaults::bindings() };
        // Scoped entries last, so that they win in their part over an entry for everywhere
        // (the file's order is lost, and "history.quit" sorts before "quit").
        let (everywhere, scoped): (Vec<_>, Vec<_>) = keys.iter().partition(|(name, _)| !name.contains('.'));
        for (name, list) in everywhere.into_iter().chain(scoped) {
            k.rebind(name, list)?;
        }
        let chosen: Vec<Binding> = k.bindings.iter().filter(|b| b.entry.is_some()).cloned().collect();
        k.bindings.retain(|b| {
            b.entry.is_some() || !chosen.iter().any(|c| c.scope == b.scope && c.key == b.key && c.cmd != b.cmd)
        });
        check_chosen(&chosen)?;
        k.check_actions(actions)?;
        k.add_actions(actions);
        Ok(k)
    }

    fn rebind(&mut self, name: &str, list: &[String]) -> Result<(), KeymapError> {
        let (scope, cmd_name) = match name.split_once('.') {
            Some((s, c)) => {
                let scope =
                    Scope::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| KeymapError::UnknownScope {
                        entry: name.to_string(),
                        scope: s.to_string(),
                        known: Scope::ALL.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "),
                    })?;
                (Some(scope), c)
            }
            None => (None, name),
        };
        let cmd = Cmd::by_name(cmd_name)
            .ok_or_else(|| KeymapError::UnknownCommand { entry: name.to_string(), known: Cmd::names().join(", ") })?;
        let keys = list
            .iter()
            .map(|t| Key::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| KeymapError::BadKey { entry: name.to_string(), source })?;
        let bound: Vec<Scope> =
            Scope::ALL.into_iter().filter(|s| self.bindings.iter().any(|b| b.scope == *s && b.cmd == cmd)).collect();
        let scopes: Vec<Scope> = bound.iter().copied().filter(|s| scope.is_none_or(|only| only == *s)).collect();
        if scopes.is_empty() {
            let names: Vec<&str> = bound.iter().map(|s| s.name()).collect();
            let elsewhere = match names.first() {
                Some(first) => format!(
                    "it has keys in {} (write \"{cmd_name}\" for all of them, or \"{first}.{cmd_name}\")",
                    names.join(", ")
                ),
                None => "it has no key anywhere".to_string(),
            };
            return Err(KeymapError::NotBound {
                entry: name.to_string(),
                cmd: cmd_name.to_string(),
                scope: scope.map_or("any part of the screen", Scope::title).to_string(),
                elsewhere,
            });
        }
        for s in scopes {
            let Some(at) = self.bindings.iter().position(|b| b.scope == s && b.cmd == cmd) else { continue };
            let template = self.bindings[at].clone();
            self.bindings.retain(|b| !(b.scope == s && b.cmd == cmd));
            let fresh = keys.iter().enumerate().map(|(i, key)| Binding {
                key: *key,
                footer: if i == 0 { template.footer.clone() } else { None },
                entry: Some(name.to_string()),
                ..template.clone()
            });
            self.bindings.splice(at..at, fresh);
        }
        Ok(())
    }

    /// An action's key must be free in the task table once `[keys]` is applied, and its
    /// command able to run.
    fn check_actions(&self, actions: &[UserAction]) -> Result<(), KeymapError> {
        for (i, a) in actions.iter().enumerate() {
            actions::check(a)?;
            let key = Key::ch(a.key);
            if let Some(b) = self.bindings.iter().find(|b| b.scope == Scope::Table && b.key == key) {
                return Err(KeymapError::ActionKeyTaken {
                    action: a.name.clone(),
                    key: key.label(),
                    cmd: cmd_label(b.cmd),
                });
            }
            if let Some(first) = actions[..i].iter().find(|o| o.key == a.key) {
                return Err(KeymapError::ActionKeyTwice {
                    action: a.name.clone(),
                    first: first.name.clone(),
                    key: key.label(),
                });
            }
        }
        Ok(())
    }

    fn add_actions(&mut self, actions: &[UserAction]) {
        let taken: Vec<Key> = self.bindings.iter().filter(|b| b.scope == Scope::Table).map(|b| b.key).collect();
        for (i, a) in actions.iter().enumerate() {
            let key = Key::ch(a.key);
            if !taken.contains(&key) {
                let name = crate::text::excerpt(&a.name, 12);
                self.bindings.push(Binding {
                    scope: Scope::Table,
                    key,
                    cmd: Cmd::UserAction(i),
                    help: format!("run “{name}”"),
                    footer: None,
                    entry: None,
                });
            }
        }
    }

    /// The command of `ev` in `scope` itself, not falling back to the global keys.
    pub fn lookup_only(&self, scope: Scope, ev: &KeyEvent) -> Option<Cmd> {
        self.bindings.iter().find(|b| b.scope == scope && b.key.matches(ev)).map(|b| b.cmd)
    }

    /// The command for a key in a scope; global bindings apply where the scope has none.
    pub fn lookup(&self, scope: Scope, ev: &KeyEvent) -> Option<Cmd> {
        let find = |s: Scope| self.bindings.iter().find(|b| b.scope == s && b.key.matches(ev)).map(|b| b.cmd);
        find(scope).or_else(|| find(Scope::Global))
    }

    /// `key: what` pairs for the footer of a scope, its own first, then the global ones its
    /// own keys do not hide (none under an overlay: its own keys are what matters there).
    pub fn footer(&self, scope: Scope) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        let own = self.bindings.iter().filter(|b| b.scope == scope);
        let hidden: Vec<Key> = own.clone().map(|b| b.key).collect();
        let overlay =
            matches!(scope, Scope::HelpView | Scope::HelpFilter | Scope::Picker | Scope::MediaEditor | Scope::Confirm);
        let global = self.bindings.iter().filter(|b| b.scope == Scope::Global && !overlay && !hidden.contains(&b.key));
        for b in own.chain(global) {
            if let Some(word) = &b.footer
                && !seen.contains(&b.cmd)
            {
                seen.push(b.cmd);
                out.push((b.key.label(), word.clone()));
            }
        }
        out
    }

    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The first key that triggers a command in a scope (or everywhere), for messages like
    /// "press o to open".
    pub fn key_for(&self, scope: Scope, cmd: Cmd) -> Option<String> {
        let find = |s: Scope| self.bindings.iter().find(|b| b.scope == s && b.cmd == cmd).map(|b| b.key.label());
        find(scope).or_else(|| find(Scope::Global))
    }
}

#[cfg(test)]
mod tests {
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
                     clear_line play play_pause play_stop grid zoom";
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
            (vec![("opn", &["p"])], format!("[keys] \"opn\": no such command; the commands are {}", Cmd::names().join(", "))),
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
            (vec![("submit", &["Ctrl-M"])], "[keys] \"submit\": \"Ctrl-M\": terminals send it as Enter, so write Enter".into()),
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
        let readme = include_str!("../../../README.md");
        let example = readme
            .split("```toml\n")
            .filter_map(|b| b.split("```").next())
            .find(|b| b.contains("[keys]"))
            .expect("the README shows [keys]");
        let file = crate::config::parse_file(std::path::Path::new("README.md"), example).expect("parses");
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
}
