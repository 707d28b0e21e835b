//! Every key binding, as data: the event handling, the footer and the help overlay all read
//! this one table.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    HelpView,
    Picker,
    MediaEditor,
    History,
    /// Typing a search in the history.
    HistorySearch,
    /// A yes/no question (deleting a record, going past the daily budget).
    Confirm,
}

impl Scope {
    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Text => "Prompt fields",
            Scope::Line => "Number and grid fields",
            Scope::Form => "Form choices",
            Scope::Table => "Task table",
            Scope::Searching => "Search",
            Scope::HelpView => "Help",
            Scope::Picker => "Model list",
            Scope::MediaEditor => "Media item",
            Scope::History => "History",
            Scope::HistorySearch => "History search",
            Scope::Confirm => "Questions",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key { code, mods: KeyModifiers::NONE }
    }

    pub const fn ctrl(c: char) -> Key {
        Key { code: KeyCode::Char(c), mods: KeyModifiers::CONTROL }
    }

    pub const fn ch(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    /// How the footer and the help write the key.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::F(n) => format!("F{n}"),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Delete => "Del".into(),
            KeyCode::Backspace => "Backspace".into(),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) { format!("Ctrl-{}", base.to_uppercase()) } else { base }
    }

    /// Whether a terminal key event is this key. Shift is ignored for characters (the
    /// character already says it) and for BackTab.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        let mods = match ev.code {
            KeyCode::Char(_) | KeyCode::BackTab => ev.modifiers - KeyModifiers::SHIFT,
            _ => ev.modifiers,
        };
        let code = match ev.code {
            KeyCode::Char(c) if ev.modifiers.contains(KeyModifiers::CONTROL) => KeyCode::Char(c.to_ascii_lowercase()),
            c => c,
        };
        code == self.code && mods == self.mods
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

fn b(scope: Scope, key: Key, cmd: Cmd, help: &str, footer: Option<&str>) -> Binding {
    Binding { scope, key, cmd, help: help.to_string(), footer: footer.map(str::to_string) }
}

impl Keymap {
    pub fn new(actions: &[UserAction]) -> Keymap {
        use Cmd::*;
        use KeyCode as K;
        use Scope::*;
        let mut bindings = vec![
            b(Global, Key::ctrl('c'), ForceQuit, "quit now (tasks continue at the next start)", None),
            b(Global, Key::plain(K::F(1)), Help, "this help", Some("help")),
            b(Global, Key::plain(K::Tab), NextFocus, "next field or pane", Some("next")),
            b(Global, Key::plain(K::BackTab), PrevFocus, "previous field or pane", None),
            b(Global, Key::ctrl('s'), Submit, "submit the form (copies or grid as set)", Some("submit")),
            b(Global, Key::ctrl('z'), Suspend, "suspend to the shell (fg to come back)", None),
            b(Text, Key::plain(K::Esc), LeaveForm, "leave the form for the task table", Some("tasks")),
            b(Text, Key::ctrl('e'), EditInEditor, "edit the text in $EDITOR", Some("$EDITOR")),
            b(Line, Key::plain(K::Esc), LeaveForm, "leave the form for the task table", Some("tasks")),
            b(Line, Key::plain(K::Up), FieldUp, "previous field", None),
            b(Line, Key::plain(K::Down), FieldDown, "next field", None),
            b(Form, Key::plain(K::Esc), LeaveForm, "leave the form for the task table", Some("tasks")),
            b(Form, Key::plain(K::Up), FieldUp, "previous field (or media item)", None),
            b(Form, Key::plain(K::Down), FieldDown, "next field (or media item)", None),
            b(Form, Key::plain(K::Left), ValuePrev, "previous choice", Some("change")),
            b(Form, Key::plain(K::Right), ValueNext, "next choice", None),
            b(Form, Key::ch(' '), Toggle, "toggle watermark", None),
            b(Form, Key::plain(K::Enter), Choose, "open the model list / edit the media item", Some("choose")),
            b(Form, Key::ch('a'), MediaAdd, "add a media item", None),
            b(Form, Key::ch('x'), MediaRemove, "remove the media item", None),
            b(Form, Key::ch('?'), Help, "this help", None),
            b(Table, Key::ch('q'), Quit, "quit", Some("quit")),
            b(Table, Key::ch('?'), Help, "this help", None),
            b(Table, Key::ch('n'), NewPrompt, "write a new prompt", Some("new")),
            b(Table, Key::plain(K::Up), Up, "previous task", None),
            b(Table, Key::ch('k'), Up, "previous task", None),
            b(Table, Key::plain(K::Down), Down, "next task", None),
            b(Table, Key::ch('j'), Down, "next task", None),
            b(Table, Key::plain(K::PageUp), PageUp, "a page up", None),
            b(Table, Key::plain(K::PageDown), PageDown, "a page down", None),
            b(Table, Key::plain(K::Home), Top, "first task", None),
            b(Table, Key::plain(K::End), Bottom, "last task", None),
            b(Table, Key::ch(' '), Mark, "mark or unmark (actions apply to marked tasks)", Some("mark")),
            b(Table, Key::ch('s'), Sort, "change the sort order", Some("sort")),
            b(Table, Key::ch('f'), Filter, "filter by state", Some("filter")),
            b(Table, Key::ch('/'), Search, "search prompts as you type", Some("search")),
            b(Table, Key::plain(K::Esc), ClearSelection, "clear marks and search", None),
            b(Table, Key::ch('o'), Open, "open the video in the player", Some("open")),
            b(Table, Key::ch('y'), CopyPath, "copy the file path", None),
            b(Table, Key::ch('Y'), CopyUrl, "copy the video URL", None),
            b(Table, Key::ch('r'), Resubmit, "submit again as is (or resend an unknown one)", Some("again")),
            b(Table, Key::ch('e'), Vary, "copy into the form to vary it", Some("vary")),
            b(Table, Key::ch('d'), Download, "download the file again", None),
            b(Table, Key::ch('c'), Recheck, "check a stalled, expired, lost or failed download again", None),
            b(Table, Key::ch('H'), ShowHistory, "history of every task", Some("history")),
            b(History, Key::ch('H'), ShowHistory, "back to the dashboard", Some("back")),
            b(History, Key::plain(K::Esc), ShowHistory, "back to the dashboard", None),
            b(History, Key::ch('q'), Quit, "quit", Some("quit")),
            b(History, Key::ch('?'), Help, "this help", None),
            b(History, Key::plain(K::Up), Up, "previous task", None),
            b(History, Key::ch('k'), Up, "previous task", None),
            b(History, Key::plain(K::Down), Down, "next task", None),
            b(History, Key::ch('j'), Down, "next task", None),
            b(History, Key::plain(K::PageUp), PageUp, "a page up", None),
            b(History, Key::plain(K::PageDown), PageDown, "a page down", None),
            b(History, Key::plain(K::Home), Top, "first task", None),
            b(History, Key::plain(K::End), Bottom, "last loaded task", None),
            b(History, Key::ch('/'), Search, "search prompts (words match by prefix)", Some("search")),
            b(History, Key::ch('m'), CycleModel, "filter by model", Some("model")),
            b(History, Key::ch('f'), Filter, "filter by state", Some("state")),
            b(History, Key::ch('t'), CycleSpan, "date range: all, today, 7 days, 30 days", Some("dates")),
            b(History, Key::ch('s'), Sort, "newest or oldest first", None),
            b(History, Key::ch('L'), ToggleLedger, "the cost and time ledger", Some("ledger")),
            b(History, Key::ch('o'), Open, "open the video", None),
            b(History, Key::ch('v'), Reveal, "reveal the video's folder", None),
            b(History, Key::ch('y'), CopyPrompt, "copy the prompt", None),
            b(History, Key::ch('r'), Resubmit, "run it again as is", Some("again")),
            b(History, Key::ch('e'), Vary, "copy into the form to vary it", Some("vary")),
            b(History, Key::ch('d'), Download, "download the file again", None),
            b(History, Key::ch('x'), Delete, "delete the record (asks first)", None),
            b(HistorySearch, Key::plain(K::Enter), CloseOverlay, "keep the search", Some("keep")),
            b(HistorySearch, Key::plain(K::Esc), ClearSelection, "drop the search", Some("drop")),
            b(Confirm, Key::ch('y'), Yes, "yes", Some("yes")),
            b(Confirm, Key::ch('f'), YesWithFile, "delete the record and the file", None),
            b(Confirm, Key::ch('n'), No, "no", Some("no")),
            b(Confirm, Key::plain(K::Esc), No, "no", None),
            b(Searching, Key::plain(K::Enter), CloseOverlay, "keep the search", Some("keep")),
            b(Searching, Key::plain(K::Esc), ClearSelection, "drop the search", Some("drop")),
            b(HelpView, Key::plain(K::Esc), CloseOverlay, "close the help", Some("close")),
            b(HelpView, Key::ch('q'), CloseOverlay, "close the help", None),
            b(HelpView, Key::ch('?'), CloseOverlay, "close the help", None),
            b(HelpView, Key::plain(K::F(1)), CloseOverlay, "close the help", None),
            b(HelpView, Key::plain(K::Up), Up, "scroll", None),
            b(HelpView, Key::plain(K::Down), Down, "scroll", None),
            b(Picker, Key::plain(K::Up), Up, "previous model", None),
            b(Picker, Key::plain(K::Down), Down, "next model", None),
            b(Picker, Key::plain(K::Enter), Choose, "use this model", Some("use")),
            b(Picker, Key::plain(K::Esc), CloseOverlay, "keep the model", Some("cancel")),
            b(MediaEditor, Key::plain(K::Enter), Choose, "save the item", Some("save")),
            b(MediaEditor, Key::plain(K::Esc), CloseOverlay, "cancel", Some("cancel")),
            b(MediaEditor, Key::plain(K::Left), ValuePrev, "previous type", None),
            b(MediaEditor, Key::plain(K::Right), ValueNext, "next type", None),
            b(MediaEditor, Key::plain(K::Up), FieldUp, "previous part", None),
            b(MediaEditor, Key::plain(K::Down), FieldDown, "next part", None),
        ];
        let taken: Vec<Key> = bindings.iter().filter(|b| b.scope == Table).map(|b| b.key).collect();
        for (i, a) in actions.iter().enumerate() {
            let key = Key::ch(a.key);
            if !taken.contains(&key) {
                let name = crate::text::excerpt(&a.name, 12);
                bindings.push(b(Table, key, UserAction(i), &format!("run “{name}”"), Some(&name)));
            }
        }
        Keymap { bindings }
    }

    /// The command for a key in a scope; global bindings apply where the scope has none.
    pub fn lookup(&self, scope: Scope, ev: &KeyEvent) -> Option<Cmd> {
        let find = |s: Scope| self.bindings.iter().find(|b| b.scope == s && b.key.matches(ev)).map(|b| b.cmd);
        find(scope).or_else(|| find(Scope::Global))
    }

    /// `key: what` pairs for the footer of a scope, its own first.
    pub fn footer(&self, scope: Scope) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        let own = self.bindings.iter().filter(|b| b.scope == scope);
        let global = self.bindings.iter().filter(|b| b.scope == Scope::Global);
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

    /// The keys that trigger a command in a scope, for messages like "press o to open".
    pub fn keys_for(&self, scope: Scope, cmd: Cmd) -> Option<String> {
        self.bindings.iter().find(|b| b.scope == scope && b.cmd == cmd).map(|b| b.key.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn scopes_win_over_global_and_text_keeps_letters() {
        let k = Keymap::new(&[]);
        assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::Char('q'), KeyModifiers::NONE)), Some(Cmd::Quit));
        assert_eq!(k.lookup(Scope::Text, &ev(KeyCode::Char('q'), KeyModifiers::NONE)), None, "typed");
        assert_eq!(k.lookup(Scope::Text, &ev(KeyCode::Char('s'), KeyModifiers::CONTROL)), Some(Cmd::Submit));
        assert_eq!(
            k.lookup(Scope::Text, &ev(KeyCode::Char('C'), KeyModifiers::CONTROL | KeyModifiers::SHIFT)),
            Some(Cmd::ForceQuit)
        );
        assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::Char('Y'), KeyModifiers::SHIFT)), Some(Cmd::CopyUrl));
        assert_eq!(k.lookup(Scope::Form, &ev(KeyCode::F(1), KeyModifiers::NONE)), Some(Cmd::Help));
        assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Cmd::PrevFocus));
    }

    #[test]
    fn user_actions_get_free_keys_only() {
        let actions = vec![
            UserAction { key: 'm', name: "mpv".into(), command: vec!["mpv".into(), "{path}".into()] },
            UserAction { key: 'q', name: "clash".into(), command: vec!["true".into()] },
        ];
        let k = Keymap::new(&actions);
        assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::Char('m'), KeyModifiers::NONE)), Some(Cmd::UserAction(0)));
        assert_eq!(k.lookup(Scope::Table, &ev(KeyCode::Char('q'), KeyModifiers::NONE)), Some(Cmd::Quit));
    }

    #[test]
    fn footers_come_from_the_same_table() {
        let k = Keymap::new(&[]);
        let table = k.footer(Scope::Table);
        assert_eq!(table[0], ("q".to_string(), "quit".to_string()));
        assert!(table.iter().any(|(key, _)| key == "F1"), "global keys follow: {table:?}");
        assert!(k.footer(Scope::Text).iter().any(|(key, what)| key == "Ctrl-E" && what == "$EDITOR"));
        assert_eq!(Key::ctrl('s').label(), "Ctrl-S");
    }
}
