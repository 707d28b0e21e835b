//! What the text of a prompt may hold: a bounded number of characters, and no character that
//! acts on a terminal, a log or a form where the prompt is shown again.

use std::fmt;

/// The longest prompt and negative prompt accepted, in characters (`char`s, not bytes, so that
/// accented or CJK text is not held to a third of the bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextBounds {
    pub prompt_chars: usize,
    pub negative_chars: usize,
}

impl TextBounds {
    /// Four times the longest prompt limit found in video models' documentation (Kling: 2,500
    /// characters; Wan 2.5: 2,000, its negative prompt 500; Runway: 1,000), so that no real
    /// prompt is refused here: the bound stops accidents (a whole file pasted or piped in), and each
    /// service still applies its own limit.
    pub const DEFAULT: TextBounds = TextBounds { prompt_chars: 10_000, negative_chars: 10_000 };
}

impl Default for TextBounds {
    fn default() -> Self {
        TextBounds::DEFAULT
    }
}

/// A character a prompt may not hold, as the message names it: `U+001B (a control character)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forbidden(pub char);

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.0 {
            '\r' => "a carriage return without a newline after it",
            '\u{7f}' => "DEL",
            '\u{80}'..='\u{9f}' => "a C1 control character",
            '\u{202a}'..='\u{202e}' => "a bidi embedding or override",
            '\u{2066}'..='\u{2069}' => "a bidi isolate",
            _ => "a control character",
        };
        write!(f, "U+{:04X} ({kind})", u32::from(self.0))
    }
}

/// The first character of `text` that a prompt may not hold, with its position (1-based, in
/// characters): what `crate::text::is_unsafe` keeps off a terminal (C0 controls but newline
/// and tab, DEL, C1 controls, bidi overrides and isolates), except a carriage return right
/// before a newline, which is only a Windows line end.
pub fn first_forbidden(text: &str) -> Option<(usize, Forbidden)> {
    let mut chars = text.chars().peekable();
    let mut at = 0;
    while let Some(c) = chars.next() {
        at += 1;
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if crate::text::is_unsafe(c) {
            return Some((at, Forbidden(c)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_of_control_character_is_found_where_it_is() {
        // (case, text, the character refused and where)
        type Case = (&'static str, &'static str, Option<(usize, char)>);
        let cases: [Case; 22] = [
            ("plain", "a red fox", None),
            ("newline", "a red fox\nin snow", None),
            ("tab", "a\tred fox", None),
            ("windows line end", "a red fox\r\nin snow\r\n", None),
            ("unicode", "日本語のプロンプト 🎬 café", None),
            ("bidi marks", "שלום\u{200f}!\u{200e}", None),
            ("empty", "", None),
            ("NUL", "a\0b", Some((2, '\0'))),
            ("BEL", "bell\u{7}", Some((5, '\u{7}'))),
            ("backspace", "\u{8}x", Some((1, '\u{8}'))),
            ("ESC", "a fox\u{1b}[31m", Some((6, '\u{1b}'))),
            ("vertical tab", "a\u{b}b", Some((2, '\u{b}'))),
            ("form feed", "a\u{c}b", Some((2, '\u{c}'))),
            ("lone CR", "100%\rdone", Some((5, '\r'))),
            ("CR at the end", "done\r", Some((5, '\r'))),
            ("unit separator", "a\u{1f}", Some((2, '\u{1f}'))),
            ("DEL", "a\u{7f}", Some((2, '\u{7f}'))),
            ("C1 CSI", "é\u{9b}31m", Some((2, '\u{9b}'))),
            ("C1 NEL", "\u{85}", Some((1, '\u{85}'))),
            ("bidi override", "abc\u{202e}fdp.exe", Some((4, '\u{202e}'))),
            ("bidi embedding", "\u{202a}x", Some((1, '\u{202a}'))),
            ("bidi isolate", "x\u{2066}y\u{2069}", Some((2, '\u{2066}'))),
        ];
        for (name, text, want) in cases {
            assert_eq!(first_forbidden(text), want.map(|(at, c)| (at, Forbidden(c))), "{name}");
        }
    }

    #[test]
    fn the_character_is_named_by_code_point_and_kind() {
        let cases = [
            ('\u{1b}', "U+001B (a control character)"),
            ('\r', "U+000D (a carriage return without a newline after it)"),
            ('\u{7f}', "U+007F (DEL)"),
            ('\u{9b}', "U+009B (a C1 control character)"),
            ('\u{202e}', "U+202E (a bidi embedding or override)"),
            ('\u{2069}', "U+2069 (a bidi isolate)"),
        ];
        for (c, want) in cases {
            assert_eq!(Forbidden(c).to_string(), want);
        }
    }
}
