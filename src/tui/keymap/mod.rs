//! Every key binding, as data: the event handling, the footer and the help overlay all read
//! this one table, and the config's `[keys]` rebinds it by command name.

mod defaults;
mod key;

use std::collections::BTreeMap;

use crossterm::event::KeyEvent;
use thiserror::Error;

pub use key::Key;

/// A user-defined action from the config: a key, a name, a command with placeholders.
pub use crate::config::UserAction;

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmd {
    Quit,
    ForceQuit,
    Help,
    CloseOverlay,
    NextFocus,
    PrevFocus,
    Submit,
    EditInEditor,
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
    ClearSelection,
    Open,
    CopyPath,
    CopyUrl,
    Resubmit,
    Vary,
    Download,
    Recheck,
    /// The n-th action of the config's `[[actions]]`.
    UserAction(usize),
    ShowHistory,
    ToggleLedger,
    CycleModel,
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
    ToggleGrid,
    /// Hide the form pane (or bring it back): the tasks and detail take the whole width.
    Zoom,
}

/// The names `[keys]` in the config uses for commands.
const CMD_NAMES: &[(Cmd, &str)] = &[
    (Cmd::Quit, "quit"),
    (Cmd::ForceQuit, "force_quit"),
    (Cmd::Help, "help"),
    (Cmd::CloseOverlay, "close"),
    (Cmd::NextFocus, "next_focus"),
    (Cmd::PrevFocus, "prev_focus"),
    (Cmd::Submit, "submit"),
    (Cmd::EditInEditor, "editor"),
    (Cmd::LeaveForm, "to_tasks"),
    (Cmd::NewPrompt, "new_prompt"),
    (Cmd::Suspend, "suspend"),
    (Cmd::FieldUp, "field_up"),
    (Cmd::FieldDown, "field_down"),
    (Cmd::ValuePrev, "value_prev"),
    (Cmd::ValueNext, "value_next"),
    (Cmd::Toggle, "toggle"),
    (Cmd::Choose, "choose"),
    (Cmd::MediaAdd, "media_add"),
    (Cmd::MediaRemove, "media_remove"),
    (Cmd::Up, "up"),
    (Cmd::Down, "down"),
    (Cmd::PageUp, "page_up"),
    (Cmd::PageDown, "page_down"),
    (Cmd::Top, "top"),
    (Cmd::Bottom, "bottom"),
    (Cmd::Mark, "mark"),
    (Cmd::Sort, "sort"),
    (Cmd::Filter, "filter"),
    (Cmd::Search, "search"),
    (Cmd::ClearSelection, "clear"),
    (Cmd::Open, "open"),
    (Cmd::CopyPath, "copy_path"),
    (Cmd::CopyUrl, "copy_url"),
    (Cmd::Resubmit, "again"),
    (Cmd::Vary, "vary"),
    (Cmd::Download, "download"),
    (Cmd::Recheck, "recheck"),
    (Cmd::ShowHistory, "history"),
    (Cmd::ToggleLedger, "ledger"),
    (Cmd::CycleModel, "model"),
    (Cmd::CycleSpan, "dates"),
    (Cmd::CopyPrompt, "copy_prompt"),
    (Cmd::Reveal, "reveal"),
    (Cmd::Delete, "delete"),
    (Cmd::Yes, "yes"),
    (Cmd::YesWithFile, "yes_with_file"),
    (Cmd::No, "no"),
    (Cmd::Undo, "undo"),
    (Cmd::Redo, "redo"),
    (Cmd::ClearLine, "clear_line"),
    (Cmd::Play, "play"),
    (Cmd::PlayPause, "play_pause"),
    (Cmd::PlayStop, "play_stop"),
    (Cmd::ToggleGrid, "grid"),
    (Cmd::Zoom, "zoom"),
];

impl Cmd {
    /// The command's name in the config, if it can be rebound there.
    pub fn name(self) -> Option<&'static str> {
        CMD_NAMES.iter().find(|(c, _)| *c == self).map(|(_, n)| *n)
    }

    fn by_name(name: &str) -> Option<Cmd> {
        CMD_NAMES.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
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
    /// Set by the config's `[keys]`: it wins over a built-in binding of the same key.
    pub chosen: bool,
}

/// Why the config's `[keys]` cannot be used; each message names the entry and the fix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeymapError {
    #[error("[keys] {name}: no such command; the commands are {known}")]
    UnknownCommand { name: String, known: String },
    #[error("[keys] {name}: no such part of the screen \"{scope}\"; the parts are {known}")]
    UnknownScope { name: String, scope: String, known: String },
    #[error("[keys] {name}: {why}")]
    BadKey { name: String, why: String },
    #[error("[keys] {name}: that command has no key in {scope} to rebind")]
    NotBound { name: String, scope: String },
    #[error("[keys]: {key} would mean both {first} and {second} in {scope}; give one of them another key")]
    Clash { key: String, scope: String, first: String, second: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

fn cmd_label(cmd: Cmd) -> String {
    cmd.name().map_or_else(|| format!("{cmd:?}"), str::to_string)
}

impl Keymap {
    /// The default keys, with the config's actions on the task table keys left free.
    pub fn new(actions: &[UserAction]) -> Keymap {
        let mut k = Keymap { bindings: defaults::bindings() };
        k.add_actions(actions);
        k
    }

    /// The default keys rebound by the config's `[keys]`: `open = "Enter"` rebinds a command
    /// wherever it has a key, `"history.open" = "Enter"` only there; a list gives several keys,
    /// an empty one none. A key the config gives takes it from the built-in command that had
    /// it there (so a config written before a new built-in key keeps working); two commands
    /// the config puts on one key in one place are refused.
    pub fn with_keys(actions: &[UserAction], keys: &BTreeMap<String, Vec<String>>) -> Result<Keymap, KeymapError> {
        let mut k = Keymap { bindings: defaults::bindings() };
        for (name, list) in keys {
            k.rebind(name, list)?;
        }
        let chosen: Vec<(Scope, Key, Cmd)> =
            k.bindings.iter().filter(|b| b.chosen).map(|b| (b.scope, b.key, b.cmd)).collect();
        k.bindings
            .retain(|b| b.chosen || !chosen.iter().any(|(s, key, c)| *s == b.scope && *key == b.key && *c != b.cmd));
        k.check_clashes()?;
        k.add_actions(actions);
        Ok(k)
    }

    fn rebind(&mut self, name: &str, list: &[String]) -> Result<(), KeymapError> {
        let (scope, cmd_name) = match name.split_once('.') {
            Some((s, c)) => {
                let scope =
                    Scope::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| KeymapError::UnknownScope {
                        name: name.to_string(),
                        scope: s.to_string(),
                        known: Scope::ALL.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "),
                    })?;
                (Some(scope), c)
            }
            None => (None, name),
        };
        let cmd = Cmd::by_name(cmd_name).ok_or_else(|| KeymapError::UnknownCommand {
            name: name.to_string(),
            known: CMD_NAMES.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", "),
        })?;
        let keys = list
            .iter()
            .map(|t| Key::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| KeymapError::BadKey { name: name.to_string(), why })?;
        let scopes: Vec<Scope> = Scope::ALL
            .into_iter()
            .filter(|s| scope.is_none_or(|only| only == *s))
            .filter(|s| self.bindings.iter().any(|b| b.scope == *s && b.cmd == cmd))
            .collect();
        if scopes.is_empty() {
            let scope = scope.map_or("any part of the screen", Scope::title).to_string();
            return Err(KeymapError::NotBound { name: name.to_string(), scope });
        }
        for s in scopes {
            let Some(at) = self.bindings.iter().position(|b| b.scope == s && b.cmd == cmd) else { continue };
            let template = self.bindings[at].clone();
            self.bindings.retain(|b| !(b.scope == s && b.cmd == cmd));
            let fresh = keys.iter().enumerate().map(|(i, key)| Binding {
                key: *key,
                footer: if i == 0 { template.footer.clone() } else { None },
                chosen: true,
                ..template.clone()
            });
            self.bindings.splice(at..at, fresh);
        }
        Ok(())
    }

    fn check_clashes(&self) -> Result<(), KeymapError> {
        for (i, a) in self.bindings.iter().enumerate() {
            if let Some(b) =
                self.bindings[i + 1..].iter().find(|b| b.scope == a.scope && b.key == a.key && b.cmd != a.cmd)
            {
                return Err(KeymapError::Clash {
                    key: a.key.label(),
                    scope: a.scope.title().to_string(),
                    first: cmd_label(a.cmd),
                    second: cmd_label(b.cmd),
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
                    chosen: false,
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
    fn config_mistakes_name_the_entry_and_the_fix() {
        let err = |pairs: &[(&str, &[&str])]| Keymap::with_keys(&[], &keys(pairs)).expect_err("refused").to_string();
        assert!(err(&[("opn", &["p"])]).starts_with("[keys] opn: no such command; the commands are quit,"));
        assert!(err(&[("tabel.open", &["p"])]).contains("no such part of the screen \"tabel\""));
        assert!(err(&[("open", &["Hyper"])]).contains("\"Hyper\" is not a key"));
        assert_eq!(
            err(&[("text.open", &["p"])]),
            "[keys] text.open: that command has no key in Prompt fields to rebind"
        );
        assert_eq!(
            err(&[("open", &["q"]), ("quit", &["q"])]),
            "[keys]: q would mean both open and quit in Task table; give one of them another key"
        );
    }
}
