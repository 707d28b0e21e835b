//! The help overlay's model: every key from the keymap, the screen you are on first, filtered
//! by what you type after `/`, and scrolled. The lines are made when the help opens or the
//! filter changes, not on every frame. `view` draws it.

pub mod view;

use crate::keymap::{Keymap, Scope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpLine {
    Title(String),
    Key { keys: String, what: String },
    Blank,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HelpState {
    /// Where the help was opened from: its keys come first.
    origin: Scope,
    /// The screen's name, for the title ("task table", "history", "ledger", "form").
    screen: &'static str,
    lines: Vec<HelpLine>,
    /// The first line shown.
    scroll: usize,
    filter: String,
    typing: bool,
}

/// The scopes in the order the help lists them: the screen's own first, then everywhere, then
/// the rest, the help's own keys last.
pub fn order(origin: Scope) -> Vec<Scope> {
    let first: &[Scope] = match origin {
        Scope::Table | Scope::Searching | Scope::Detail | Scope::Tagging => {
            &[Scope::Table, Scope::Detail, Scope::Searching, Scope::Tagging]
        }
        Scope::Text | Scope::Line | Scope::Form | Scope::Picker | Scope::MediaEditor => {
            &[origin, Scope::Text, Scope::Line, Scope::Form, Scope::Picker, Scope::MediaEditor]
        }
        Scope::History | Scope::HistorySearch => &[Scope::History, Scope::HistorySearch, Scope::Detail],
        Scope::Comparing => &[Scope::Comparing, Scope::Playing],
        _ => &[],
    };
    let last = [Scope::HelpView, Scope::HelpFilter];
    let rest = Scope::ALL.into_iter().filter(|s| !last.contains(s));
    let mut out: Vec<Scope> = Vec::new();
    for s in first.iter().copied().chain([Scope::Global]).chain(rest).chain(last) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The help's lines for keys opened from `origin`, keeping the keys whose label or
/// description contains `filter` (case ignored).
pub fn lines(keymap: &Keymap, origin: Scope, filter: &str) -> Vec<HelpLine> {
    let filter = filter.trim().to_lowercase();
    let mut out = Vec::new();
    for scope in order(origin) {
        let mut section = Vec::new();
        let mut seen = Vec::new();
        for b in keymap.bindings().iter().filter(|b| b.scope == scope) {
            if seen.contains(&b.cmd) {
                continue;
            }
            seen.push(b.cmd);
            let keys: Vec<String> = keymap
                .bindings()
                .iter()
                .filter(|o| o.scope == scope && o.cmd == b.cmd)
                .map(|o| o.key.label())
                .collect();
            let keys = keys.join(" ");
            if filter.is_empty() || keys.to_lowercase().contains(&filter) || b.help.to_lowercase().contains(&filter) {
                section.push(HelpLine::Key { keys, what: b.help.clone() });
            }
        }
        if !section.is_empty() {
            out.push(HelpLine::Title(scope.title().to_string()));
            out.append(&mut section);
            out.push(HelpLine::Blank);
        }
    }
    if out.is_empty() {
        out.push(HelpLine::Title(format!("No key matches \"{}\"", reel_rules::text::clean(&filter))));
    }
    out
}

impl HelpState {
    pub fn new(keymap: &Keymap, origin: Scope, screen: &'static str) -> HelpState {
        HelpState { origin, screen, lines: lines(keymap, origin, ""), scroll: 0, filter: String::new(), typing: false }
    }

    pub fn screen(&self) -> &'static str {
        self.screen
    }

    pub fn lines(&self) -> &[HelpLine] {
        &self.lines
    }

    /// The first line shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// Whether the filter is being typed.
    pub fn typing(&self) -> bool {
        self.typing
    }

    pub fn set_typing(&mut self, typing: bool) {
        self.typing = typing;
    }

    /// Edits the filter (at most 40 characters); the lines are made again.
    pub fn edit_filter(&mut self, keymap: &Keymap, edit: impl FnOnce(&mut String)) {
        edit(&mut self.filter);
        self.filter.truncate(40);
        self.refilter(keymap);
    }

    /// The filter changed: the lines are made again, from the top.
    fn refilter(&mut self, keymap: &Keymap) {
        self.lines = lines(keymap, self.origin, &self.filter);
        self.scroll = 0;
    }

    /// Scrolls by `delta` lines with `visible` lines on screen, never past the end.
    pub fn scroll_by(&mut self, delta: isize, visible: usize) {
        let last = self.lines.len().saturating_sub(visible.max(1)) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, last.max(0)) as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(lines: &[HelpLine]) -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| match l {
                HelpLine::Title(t) => Some(t.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_screen_you_are_on_comes_first_and_every_scope_is_listed_once() {
        let k = Keymap::new(&[]);
        let cases = [
            (Scope::Table, "Task table"),
            (Scope::Detail, "Task table"),
            (Scope::History, "History and ledger"),
            (Scope::Line, "Number and grid fields"),
            (Scope::Text, "Prompt fields"),
        ];
        for (origin, first) in cases {
            let t = titles(&lines(&k, origin, ""));
            assert_eq!(t[0], first, "{origin:?}");
            assert_eq!(t.len(), Scope::ALL.len(), "{origin:?}: {t:?}");
            assert_eq!(t.last().map(String::as_str), Some("Help filter"), "{origin:?}");
        }
    }

    #[test]
    fn a_filter_keeps_matching_keys_under_their_titles() {
        let k = Keymap::new(&[]);
        let l = lines(&k, Scope::Table, "ledger");
        assert_eq!(titles(&l), vec!["History and ledger"]);
        assert!(l.contains(&HelpLine::Key { keys: "L".into(), what: "the cost and time ledger".into() }));
        let l = lines(&k, Scope::Table, "CTRL-S");
        assert!(l.iter().any(|x| matches!(x, HelpLine::Key { keys, .. } if keys == "Ctrl-S")), "{l:?}");
        assert_eq!(lines(&k, Scope::Table, "zzz"), vec![HelpLine::Title("No key matches \"zzz\"".into())]);
    }

    #[test]
    fn scrolling_stops_at_both_ends() {
        let k = Keymap::new(&[]);
        let mut h = HelpState::new(&k, Scope::Table, "task table");
        let n = h.lines.len();
        h.scroll_by(-5, 20);
        assert_eq!(h.scroll, 0);
        h.scroll_by(isize::MAX / 2, 20);
        assert_eq!(h.scroll, n - 20, "the last line at the bottom");
        h.filter = "quit".into();
        h.refilter(&k);
        assert_eq!(h.scroll, 0);
        h.scroll_by(10, 200);
        assert_eq!(h.scroll, 0, "everything fits");
    }
}
