//! Text for the terminal: strings from servers and files lose their control characters (no
//! escape sequence a server sends can reach the terminal), and long ones are cut to fit.

/// Control characters (C0, DEL, C1) become spaces; runs of whitespace fold to one space.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if c.is_whitespace() {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// At most `max` characters of `clean(text)`, ending in `…` when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    let clean = clean(text);
    if clean.chars().count() <= max {
        return clean;
    }
    let mut out: String = clean.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
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

/// Seconds as `1:05` or `1:02:05`.
pub fn clock(seconds: i64) -> String {
    let s = seconds.max(0);
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The start (Unix ms) of the local day that `ms` falls in.
pub fn local_day_start(ms: i64) -> i64 {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(jiff::tz::TimeZone::system()).start_of_day().map_or(ms, |d| d.timestamp().as_millisecond())
}

/// A Unix-ms time as local `HH:MM:SS`.
pub fn local_clock(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(jiff::tz::TimeZone::system()).strftime("%H:%M:%S").to_string()
}

/// A Unix-ms time as local `YYYY-MM-DD HH:MM:SS`.
pub fn local_time(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(jiff::tz::TimeZone::system()).strftime("%Y-%m-%d %H:%M:%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
