//! Every key binding, as data: the event handling, the footer and the help overlay all read
//! this one table, and the config's `[keys]` rebinds it by command name.

mod cmd;
pub mod config_actions;
mod defaults;
mod key;
mod scope;

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};
use thiserror::Error;

pub use cmd::Cmd;
pub use config_actions::{ActionError, Placeholder, fill_command};
pub use key::{Key, KeyError};
pub use scope::Scope;

use reel_engine::config::Settings;
/// A user-defined action from the config: a key, a name, a command with placeholders.
pub use reel_engine::config::UserAction;

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
        Scope::Line
        | Scope::Searching
        | Scope::HistorySearch
        | Scope::HelpFilter
        | Scope::MediaEditor
        | Scope::Path
        | Scope::Tagging => typed,
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
            config_actions::check(a)?;
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
                let name = reel_rules::text::excerpt(&a.name, 12);
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
        let overlay = matches!(
            scope,
            Scope::HelpView
                | Scope::HelpFilter
                | Scope::Picker
                | Scope::MediaEditor
                | Scope::Confirm
                | Scope::Path
                | Scope::Tagging
                | Scope::Comparing
        );
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
mod tests;
