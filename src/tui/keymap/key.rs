//! One key as the keymap holds it: how it is written (footer, help, config) and read back from
//! the config, and whether a terminal key event is it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

/// Named keys, as the footer writes them and the config may spell them (case ignored).
const NAMED: &[(&str, KeyCode)] = &[
    ("Space", KeyCode::Char(' ')),
    ("Enter", KeyCode::Enter),
    ("Esc", KeyCode::Esc),
    ("Tab", KeyCode::Tab),
    ("Shift-Tab", KeyCode::BackTab),
    ("↑", KeyCode::Up),
    ("↓", KeyCode::Down),
    ("←", KeyCode::Left),
    ("→", KeyCode::Right),
    ("PgUp", KeyCode::PageUp),
    ("PgDn", KeyCode::PageDown),
    ("Home", KeyCode::Home),
    ("End", KeyCode::End),
    ("Del", KeyCode::Delete),
    ("Backspace", KeyCode::Backspace),
    // Spellings the config also accepts.
    ("Up", KeyCode::Up),
    ("Down", KeyCode::Down),
    ("Left", KeyCode::Left),
    ("Right", KeyCode::Right),
    ("PageUp", KeyCode::PageUp),
    ("PageDown", KeyCode::PageDown),
    ("Delete", KeyCode::Delete),
    ("Escape", KeyCode::Esc),
    ("Return", KeyCode::Enter),
    ("BackTab", KeyCode::BackTab),
];

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
            code => NAMED.iter().find(|(_, c)| *c == code).map_or_else(|| format!("{code:?}"), |(n, _)| n.to_string()),
        };
        if self.mods.contains(KeyModifiers::CONTROL) { format!("Ctrl-{}", base.to_uppercase()) } else { base }
    }

    /// Reads a key as the config writes it: `q`, `Q`, `?`, `Ctrl-S`, `F1`, `Enter`, `PgDn`, `Up`.
    pub fn parse(text: &str) -> Result<Key, String> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("ctrl+")) {
            let mut chars = rest.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphanumeric() => Ok(Key::ctrl(c)),
                _ => Err(format!("\"{t}\": Ctrl goes with one letter or digit, as in Ctrl-S")),
            };
        }
        if let Some((_, code)) = NAMED.iter().find(|(name, _)| *name == t) {
            return Ok(Key::plain(*code));
        }
        let mut chars = t.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return if c.is_control() || c == ' ' {
                Err(format!("\"{}\" is not a key; write Space, Tab or Enter by name", t.escape_debug()))
            } else {
                Ok(Key::ch(c))
            };
        }
        if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()).filter(|n| (1..=12).contains(n)) {
            return Ok(Key::plain(KeyCode::F(n)));
        }
        NAMED.iter().find(|(name, _)| name.eq_ignore_ascii_case(t)).map(|(_, code)| Key::plain(*code)).ok_or_else(|| {
            format!("\"{t}\" is not a key reel knows (a character, Ctrl-<letter>, F1-F12, Enter, Esc, Tab, Space, arrows, PgUp, PgDn, Home, End)")
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_as_they_are_written() {
        let cases = [
            ("q", Ok(Key::ch('q'))),
            ("Q", Ok(Key::ch('Q'))),
            ("?", Ok(Key::ch('?'))),
            ("Ctrl-S", Ok(Key::ctrl('s'))),
            ("ctrl+x", Ok(Key::ctrl('x'))),
            ("F1", Ok(Key::plain(KeyCode::F(1)))),
            ("f12", Ok(Key::plain(KeyCode::F(12)))),
            ("Enter", Ok(Key::plain(KeyCode::Enter))),
            ("pgdn", Ok(Key::plain(KeyCode::PageDown))),
            ("Up", Ok(Key::plain(KeyCode::Up))),
            ("Space", Ok(Key::ch(' '))),
            ("Shift-Tab", Ok(Key::plain(KeyCode::BackTab))),
            ("Ctrl-", Err(())),
            ("Ctrl-Tab", Err(())),
            ("F13", Err(())),
            ("Hyper", Err(())),
            (" ", Err(())),
        ];
        for (text, want) in cases {
            assert_eq!(Key::parse(text).map_err(|_| ()), want, "{text}");
        }
        for key in [Key::ctrl('s'), Key::ch(' '), Key::plain(KeyCode::PageDown), Key::plain(KeyCode::Up)] {
            assert_eq!(Key::parse(&key.label()), Ok(key), "the label reads back");
        }
    }
}
