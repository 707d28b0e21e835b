//! One key as the keymap holds it: how it is written (footer, help, config) and read back from
//! the config, and whether a terminal key event is it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use thiserror::Error;

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

/// Why a key written in the config cannot be used; each message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    #[error("\"{0}\": Ctrl goes with one letter or digit, as in Ctrl-S")]
    CtrlWithout(String),
    #[error("\"{text}\": terminals send it as {sent}, so write {sent}")]
    SentAs { text: String, sent: &'static str },
    #[error(
        "\"{0}\": terminals send no Ctrl with this digit (only Ctrl-4 to Ctrl-7 arrive); use a letter, as in Ctrl-S"
    )]
    CtrlDigit(String),
    #[error("\"{0}\" is not a key; write Space, Tab or Enter by name")]
    Blank(String),
    #[error(
        "\"{0}\" is not a key reel knows (a character, Ctrl-<letter>, F1-F12, Enter, Esc, Tab, Space, arrows, PgUp, PgDn, Home, End)"
    )]
    Unknown(String),
}

/// Ctrl with `c` as a terminal delivers it (crossterm's reading of the bytes): Ctrl-I is the
/// Tab byte and Ctrl-M the Enter byte, and of the digits only 4 to 7 have a byte of their own.
fn ctrl_as_sent(text: &str, c: char) -> Result<Key, KeyError> {
    let sent_as = |sent| Err(KeyError::SentAs { text: text.to_string(), sent });
    match c {
        'i' => sent_as("Tab"),
        'm' => sent_as("Enter"),
        '4'..='7' => Ok(Key::ctrl(c)),
        '0'..='9' => Err(KeyError::CtrlDigit(text.to_string())),
        _ => Ok(Key::ctrl(c)),
    }
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
            code => NAMED.iter().find(|(_, c)| *c == code).map_or_else(|| format!("{code:?}"), |(n, _)| n.to_string()),
        };
        if self.mods.contains(KeyModifiers::CONTROL) { format!("Ctrl-{}", base.to_uppercase()) } else { base }
    }

    /// Reads a key as the config writes it: `q`, `Q`, `?`, `Ctrl-S`, `F1`, `Enter`, `PgDn`, `Up`.
    /// A key no terminal sends (such as Ctrl-M, which arrives as Enter) is refused too.
    pub fn parse(text: &str) -> Result<Key, KeyError> {
        let t = text.trim();
        if t.is_empty() && !text.is_empty() {
            return Err(KeyError::Blank(text.escape_debug().to_string()));
        }
        let lower = t.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("ctrl+")) {
            let mut chars = rest.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphanumeric() => ctrl_as_sent(t, c),
                _ => Err(KeyError::CtrlWithout(t.to_string())),
            };
        }
        if let Some((_, code)) = NAMED.iter().find(|(name, _)| *name == t) {
            return Ok(Key::plain(*code));
        }
        let mut chars = t.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return if c.is_control() || c == ' ' {
                Err(KeyError::Blank(t.escape_debug().to_string()))
            } else {
                Ok(Key::ch(c))
            };
        }
        if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()).filter(|n| (1..=12).contains(n)) {
            return Ok(Key::plain(KeyCode::F(n)));
        }
        NAMED
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(t))
            .map(|(_, code)| Key::plain(*code))
            .ok_or_else(|| KeyError::Unknown(t.to_string()))
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
            ("q", Key::ch('q')),
            ("Q", Key::ch('Q')),
            ("?", Key::ch('?')),
            ("Ctrl-S", Key::ctrl('s')),
            ("ctrl+x", Key::ctrl('x')),
            ("Ctrl-5", Key::ctrl('5')),
            ("F1", Key::plain(KeyCode::F(1))),
            ("f12", Key::plain(KeyCode::F(12))),
            ("Enter", Key::plain(KeyCode::Enter)),
            ("pgdn", Key::plain(KeyCode::PageDown)),
            ("Up", Key::plain(KeyCode::Up)),
            ("Space", Key::ch(' ')),
            ("Shift-Tab", Key::plain(KeyCode::BackTab)),
        ];
        for (text, want) in cases {
            assert_eq!(Key::parse(text), Ok(want), "{text}");
        }
        for key in [Key::ctrl('s'), Key::ch(' '), Key::plain(KeyCode::PageDown), Key::plain(KeyCode::Up)] {
            assert_eq!(Key::parse(&key.label()), Ok(key), "the label reads back");
        }
    }

    #[test]
    fn keys_that_cannot_be_read_or_never_arrive_say_what_to_write() {
        let known = "(a character, Ctrl-<letter>, F1-F12, Enter, Esc, Tab, Space, arrows, PgUp, PgDn, Home, End)";
        let cases = [
            ("Ctrl-", "\"Ctrl-\": Ctrl goes with one letter or digit, as in Ctrl-S".to_string()),
            ("Ctrl-Tab", "\"Ctrl-Tab\": Ctrl goes with one letter or digit, as in Ctrl-S".to_string()),
            ("Ctrl-M", "\"Ctrl-M\": terminals send it as Enter, so write Enter".to_string()),
            ("ctrl-i", "\"ctrl-i\": terminals send it as Tab, so write Tab".to_string()),
            (
                "Ctrl-1",
                "\"Ctrl-1\": terminals send no Ctrl with this digit (only Ctrl-4 to Ctrl-7 arrive); use a letter, \
                 as in Ctrl-S"
                    .to_string(),
            ),
            ("F13", format!("\"F13\" is not a key reel knows {known}")),
            ("Hyper", format!("\"Hyper\" is not a key reel knows {known}")),
            ("", format!("\"\" is not a key reel knows {known}")),
            (" ", "\" \" is not a key; write Space, Tab or Enter by name".to_string()),
            ("\t", "\"\\t\" is not a key; write Space, Tab or Enter by name".to_string()),
            ("\u{1}", "\"\\u{1}\" is not a key; write Space, Tab or Enter by name".to_string()),
        ];
        for (text, want) in cases {
            assert_eq!(Key::parse(text).map_err(|e| e.to_string()), Err(want), "{text:?}");
        }
    }
}
