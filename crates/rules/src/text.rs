//! Text for the terminal. Strings from servers and files may carry control sequences (OSC 52
//! clipboard writes, title changes, screen clears, hyperlinks, bidi overrides); none may reach a
//! terminal. `is_unsafe` is the one definition of what must not pass; `safe` is the one function
//! every headless output (plain lines, CSV, JSON) applies to it; `clean` is the dashboard's
//! one-line form. Long strings are cut to fit.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a character must not reach a terminal as it is: C0 controls other than newline and
/// tab (ESC starts every escape sequence, CR rewrites a line), DEL, C1 controls (U+009B is a
/// one-character CSI to some terminals) and the bidi embeddings, overrides and isolates that
/// reorder what is shown. Bidi marks (U+200E, U+200F) stay: right-to-left text needs them and
/// they cannot override an order.
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character written as a visible `\u001b`-style escape.
///
/// The escape is ASCII, so it survives any terminal, font and tool; it names the exact code
/// point (Unicode has no picture for C1 or bidi characters, and dropping them would hide that a
/// server sent them); and it is JSON's own escape, so inside a JSON string it decodes back to the
/// original character. Applying it twice changes nothing. Text without unsafe characters is
/// borrowed, not copied.
pub fn safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `value` with [`safe`] applied to every string in it, keys included: what a server sent,
/// made safe once where it comes in, so that the journal, the exports and a `jq -r` that decodes
/// the JSON carry no control sequence.
pub fn safe_value(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => match safe(&s) {
            Cow::Borrowed(_) => Value::String(s),
            Cow::Owned(o) => Value::String(o),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(safe_value).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (safe(&k).into_owned(), safe_value(v))).collect())
        }
        other => other,
    }
}

/// `safe(text)` on one line, for tables and fields: whitespace runs (newlines too) become one space.
pub fn one_line(text: &str) -> String {
    fold(safe(text).chars())
}

/// The dashboard's one line: unsafe characters become spaces, whitespace runs fold to one space.
pub fn clean(text: &str) -> String {
    fold(text.chars().map(|c| if is_unsafe(c) { ' ' } else { c }))
}

/// Whitespace runs folded to one space, ends trimmed.
fn fold(chars: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in chars {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// At most `max` characters of `text`, ending in `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// At most `max` characters of `one_line(text)`, ending in `…` when cut: a table cell.
pub fn fit(text: &str, max: usize) -> String {
    cut(&one_line(text), max)
}

/// At most `max` characters of `clean(text)`, ending in `…` when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    cut(&clean(text), max)
}

/// `text` (made one line) wrapped at words into at most `rows` lines of `width` characters;
/// the last line ends in `…` when words are left over, and a word longer than a line is cut.
pub fn wrap_lines(text: &str, width: usize, rows: usize) -> Vec<String> {
    let width = width.max(1);
    let len = |s: &str| s.chars().count();
    let (mut lines, mut line, mut rest) = (Vec::new(), String::new(), false);
    for word in one_line(text).split_whitespace() {
        let need = if line.is_empty() { len(word) } else { len(&line) + 1 + len(word) };
        if need <= width {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if lines.len() == rows {
            rest = true;
            break;
        }
        line = cut(word, width);
    }
    if !line.is_empty() {
        if lines.len() < rows {
            lines.push(line);
        } else {
            rest = true;
        }
    }
    if rest && let Some(last) = lines.last_mut() {
        let kept: String = last.chars().take(width - 1).collect();
        *last = format!("{}…", kept.trim_end());
    }
    lines
}

/// Bytes as lower-case hex (a sha256 as stored and shown).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// "1 task", "2 tasks": the noun with its number.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Bytes as a short human size: 512 B, 3.4 MB.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A count with its thousands marked, as people write it in prose: `10,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds as `1:05` or `1:02:05`.
pub fn clock(seconds: i64) -> String {
    let s = seconds.max(0);
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A zone pinned for the whole process in place of the system's; see [`pin_local_zone`].
static PINNED_ZONE: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();

/// Shows every local time in `tz` from now on, in this process: the snapshot tests pin UTC so a
/// screen does not depend on the machine's zone, without changing `TZ` under running threads.
/// The first pin wins.
pub fn pin_local_zone(tz: jiff::tz::TimeZone) {
    let _ = PINNED_ZONE.set(tz);
}

/// The zone local times are shown in: the system's (`TZ`, then `/etc/localtime`) unless pinned.
pub fn local_zone() -> jiff::tz::TimeZone {
    PINNED_ZONE.get().cloned().unwrap_or_else(jiff::tz::TimeZone::system)
}

/// The start (Unix ms) of the local day that `ms` falls in.
pub fn local_day_start(ms: i64) -> i64 {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(local_zone()).start_of_day().map_or(ms, |d| d.timestamp().as_millisecond())
}

/// A Unix-ms time as local `HH:MM:SS`.
pub fn local_clock(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(local_zone()).strftime("%H:%M:%S").to_string()
}

/// A Unix-ms time as local `YYYY-MM-DD HH:MM:SS`.
pub fn local_time(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(local_zone()).strftime("%Y-%m-%d %H:%M:%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_made_safe_in_every_string_and_key_once() {
        let v = serde_json::json!({
            "message": "\u{1b}]52;c;cm0=\u{7}done", "\u{1b}[2Jkey": ["\u{202e}abc", 5, null, {"deep": "\u{9b}x"}],
            "plain": "as it was",
        });
        let safe = safe_value(v);
        let text = safe.to_string();
        let decoded: serde_json::Value = serde_json::from_str(&text).expect("json");
        let mut strings = Vec::new();
        fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| {
                    out.push(k.clone());
                    walk(x, out)
                }),
                _ => {}
            }
        }
        walk(&decoded, &mut strings);
        assert!(strings.iter().all(|s| !s.chars().any(is_unsafe)), "decoded, still safe: {strings:?}");
        assert_eq!(safe["message"], "\\u001b]52;c;cm0=\\u0007done");
        assert_eq!(safe["plain"], "as it was");
        assert_eq!(safe_value(safe.clone()), safe, "twice changes nothing");
    }

    #[test]
    fn wrapping_into_a_few_lines() {
        let cases: [(&str, usize, usize, &[&str]); 6] = [
            ("a lighthouse at dusk", 20, 2, &["a lighthouse at dusk"]),
            ("a lighthouse at dusk, waves, take 30", 18, 2, &["a lighthouse at", "dusk, waves, take…"]),
            ("a lighthouse at dusk, waves", 18, 2, &["a lighthouse at", "dusk, waves"]),
            ("one two three four", 9, 1, &["one two…"]),
            ("supercalifragilistic word", 8, 2, &["superca…", "word"]),
            ("", 10, 2, &[]),
        ];
        for (text, width, rows, want) in cases {
            assert_eq!(wrap_lines(text, width, rows), want, "{text:?} in {rows} lines of {width}");
        }
    }

    #[test]
    fn thousands_are_marked() {
        let cases = [(0, "0"), (999, "999"), (1_000, "1,000"), (10_000, "10,000"), (1_048_576, "1,048,576")];
        for (n, want) in cases {
            assert_eq!(thousands(n), want, "{n}");
        }
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn control_characters_never_pass() {
        let cases = [
            ("plain", "plain"),
            ("\u{1b}[31mred\u{1b}[0m", "[31mred [0m"),
            ("a\r\nb\tc", "a b c"),
            ("bell\u{7}", "bell"),
            ("c1\u{9b}2J", "c1 2J"),
            ("  lead and trail  ", "lead and trail"),
        ];
        for (input, want) in cases {
            let got = clean(input);
            assert_eq!(got, want, "{input:?}");
            assert!(!got.chars().any(char::is_control));
        }
    }

    #[test]
    fn unsafe_characters_are_escaped_visibly_and_the_rest_is_untouched() {
        let cases = [
            ("OSC 52 clipboard", "\u{1b}]52;c;cm0gLXJmIH4=\u{7}", "\\u001b]52;c;cm0gLXJmIH4=\\u0007"),
            ("OSC 0 title", "\u{1b}]0;pwned\u{1b}\\", "\\u001b]0;pwned\\u001b\\"),
            ("CSI 2J clear", "\u{1b}[2J\u{1b}[Hdone", "\\u001b[2J\\u001b[Hdone"),
            (
                "OSC 8 hyperlink",
                "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
                "\\u001b]8;;https://evil.example\\u001b\\click\\u001b]8;;\\u001b\\",
            ),
            ("C1 CSI", "a\u{9b}31mred", "a\\u009b31mred"),
            ("C1 NEL and DEL", "a\u{85}b\u{7f}", "a\\u0085b\\u007f"),
            ("bidi override", "abc\u{202e}fdp.exe", "abc\\u202efdp.exe"),
            ("bidi isolates", "\u{2066}x\u{2069}\u{202a}", "\\u2066x\\u2069\\u202a"),
            ("bidi marks stay", "שלום\u{200f}!", "שלום\u{200f}!"),
            ("carriage return", "100%\rdone", "100%\\u000ddone"),
            ("newline and tab stay", "line one\nline\ttwo", "line one\nline\ttwo"),
            ("plain unicode", "日本語のテキスト 🎬 café", "日本語のテキスト 🎬 café"),
            ("empty", "", ""),
        ];
        for (name, input, want) in cases {
            let got = safe(input);
            assert_eq!(got, want, "{name}");
            assert!(!got.chars().any(is_unsafe), "{name}: nothing unsafe is left");
            assert_eq!(safe(&got), got, "{name}: escaping twice changes nothing");
        }
        assert!(matches!(safe("plain"), Cow::Borrowed(_)), "safe text is not copied");
    }

    #[test]
    fn escapes_are_json_escapes() {
        let hostile = "\u{1b}]52;c;x\u{7}\u{9b}2J\u{202e}\r\n";
        let quoted = format!("\"{}\"", safe(hostile).replace('\n', "\\n"));
        let back: String = serde_json::from_str(&quoted).expect("valid JSON");
        assert_eq!(back, hostile, "inside JSON the escape decodes to the original");
    }

    #[test]
    fn one_line_escapes_and_folds() {
        let cases = [
            ("a prompt\nwith lines", "a prompt with lines"),
            ("  \u{1b}[31mred\u{1b}[0m ", "\\u001b[31mred\\u001b[0m"),
            ("a\r\nb", "a\\u000d b"),
            ("x\u{202e}y", "x\\u202ey"),
        ];
        for (input, want) in cases {
            assert_eq!(one_line(input), want, "{input:?}");
        }
    }

    #[test]
    fn the_dashboard_drops_bidi_overrides_too() {
        assert_eq!(clean("abc\u{202e}fdp.exe\u{2066}"), "abc fdp.exe");
    }

    #[test]
    fn excerpts_sizes_and_clocks() {
        assert_eq!(excerpt("a red fox in snow", 9), "a red fo…");
        assert_eq!(excerpt("short", 9), "short");
        assert_eq!(excerpt("日本語のテキスト", 4), "日本語…");
        assert_eq!(
            (size(999), size(1_500), size(3_400_000), size(2_000_000_000)),
            ("999 B".into(), "1.5 KB".into(), "3.4 MB".into(), "2.0 GB".into())
        );
        assert_eq!((clock(65), clock(3725), clock(-3)), ("1:05".into(), "1:02:05".into(), "0:00".into()));
    }
}
