//! Hostile behaviours: answers in the right shapes with adversarial content, each off by default.
//!
//! Request-level behaviours carry a [`Trigger`] counted per behaviour over the requests it could
//! apply to (counts restart whenever the configuration is replaced); task-level content (status,
//! id, url, progress, strings) is chosen at submission for the tasks that `tasks` selects.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde_json::{Value, json};
use thiserror::Error;

/// When a behaviour applies. Occurrences are counted per behaviour, so `Every` and `First` are
/// exact; `Chance` draws from the simulator's seeded generator.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Trigger {
    #[default]
    Never,
    Always,
    /// The first n occurrences only: a fault that a retry gets past.
    First(u64),
    /// Occurrences n, 2n, 3n, ...
    Every(u64),
    /// Each occurrence independently with this probability.
    Chance(f64),
}

impl Trigger {
    /// Whether occurrence `n` (counted from 1) is hit; `roll` gives a number in 0..1 for `Chance`.
    pub fn hits(self, n: u64, roll: impl FnOnce() -> f64) -> bool {
        match self {
            Trigger::Never => false,
            Trigger::Always => true,
            Trigger::First(k) => n <= k,
            Trigger::Every(k) => k > 0 && n.is_multiple_of(k),
            Trigger::Chance(p) => p > 0.0 && roll() < p,
        }
    }
}

/// A command-line value the simulator does not take.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BadValue {
    #[error("\"{0}\" is not a trigger: use never, always, first:N, every:N or 0..1")]
    Trigger(String),
    #[error("\"{text}\" is not one of: {names}")]
    Name { text: String, names: String },
}

impl FromStr for Trigger {
    type Err = BadValue;

    fn from_str(text: &str) -> Result<Self, BadValue> {
        let count = |n: &str| n.parse::<u64>().ok().filter(|n| *n > 0);
        let t = text.trim();
        let parsed = match t {
            "never" | "off" | "0" => Some(Trigger::Never),
            "always" | "all" | "1" => Some(Trigger::Always),
            _ => match t.split_once(':') {
                Some(("first", n)) => count(n).map(Trigger::First),
                Some(("every", n)) => count(n).map(Trigger::Every),
                _ => t.parse::<f64>().ok().filter(|p| (0.0..=1.0).contains(p)).map(Trigger::Chance),
            },
        };
        parsed.ok_or_else(|| BadValue::Trigger(text.to_string()))
    }
}

/// Values with a fixed list of names, for the command line.
pub trait Named: Sized + Copy + 'static {
    const NAMES: &'static [(&'static str, Self)];

    fn parse_name(text: &str) -> Result<Self, BadValue> {
        by_name(Self::NAMES, text)
    }
}

/// The value `text` names in `names`, or which names there are.
pub fn by_name<T: Copy>(names: &[(&str, T)], text: &str) -> Result<T, BadValue> {
    names.iter().find(|(n, _)| *n == text).map(|(_, v)| *v).ok_or_else(|| BadValue::Name {
        text: text.to_string(),
        names: names.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
    })
}

/// A status the spec does not name, sent once the task is done (with a `url`: the trap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostileStatus {
    /// `" Completed "`
    Padded,
    /// `"SUCCEEDED"`
    Succeeded,
    /// `"done"`
    Done,
    /// `"COMPLETED"`
    Upper,
    /// The number 3.
    Number,
    /// `null`
    Null,
    /// No `status` field at all.
    Missing,
    /// `"completed"` followed by a screen-clearing escape sequence.
    Escape,
}

impl Named for HostileStatus {
    const NAMES: &'static [(&'static str, Self)] = &[
        ("padded", HostileStatus::Padded),
        ("succeeded", HostileStatus::Succeeded),
        ("done", HostileStatus::Done),
        ("upper", HostileStatus::Upper),
        ("number", HostileStatus::Number),
        ("null", HostileStatus::Null),
        ("missing", HostileStatus::Missing),
        ("escape", HostileStatus::Escape),
    ];
}

impl HostileStatus {
    /// The `status` value to send; `None` leaves the field out.
    pub fn value(self) -> Option<Value> {
        match self {
            HostileStatus::Padded => Some(json!(" Completed ")),
            HostileStatus::Succeeded => Some(json!("SUCCEEDED")),
            HostileStatus::Done => Some(json!("done")),
            HostileStatus::Upper => Some(json!("COMPLETED")),
            HostileStatus::Number => Some(json!(3)),
            HostileStatus::Null => Some(Value::Null),
            HostileStatus::Missing => None,
            HostileStatus::Escape => Some(json!("completed\x1b[2J")),
        }
    }
}

/// A task id the service hands out that a client must not trust as a path or a display string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostileId {
    Empty,
    Dot,
    DotDot,
    /// `"a/b"`
    Slash,
    /// `"%2e%2e"`, literally.
    EncodedDotDot,
    /// 100,000 characters.
    Huge,
    /// The usual id with escape sequences and C1 controls inside.
    Control,
    /// The id of the task submitted just before (two tasks, one id).
    Duplicate,
}

/// Length of [`HostileId::Huge`] ids.
pub const HUGE_ID_LEN: usize = 100_000;

impl Named for HostileId {
    const NAMES: &'static [(&'static str, Self)] = &[
        ("empty", HostileId::Empty),
        ("dot", HostileId::Dot),
        ("dotdot", HostileId::DotDot),
        ("slash", HostileId::Slash),
        ("encoded-dotdot", HostileId::EncodedDotDot),
        ("huge", HostileId::Huge),
        ("control", HostileId::Control),
        ("duplicate", HostileId::Duplicate),
    ];
}

impl HostileId {
    /// The id to hand out instead of `normal`; `previous` is the id of the last task created.
    pub fn make(self, normal: &str, previous: Option<&str>) -> String {
        match self {
            HostileId::Empty => String::new(),
            HostileId::Dot => ".".into(),
            HostileId::DotDot => "..".into(),
            HostileId::Slash => "a/b".into(),
            HostileId::EncodedDotDot => "%2e%2e".into(),
            HostileId::Huge => {
                let mut id = normal.to_string();
                id.extend(std::iter::repeat_n('x', HUGE_ID_LEN.saturating_sub(normal.len())));
                id
            }
            HostileId::Control => format!("{normal}\x1b[2J\x1b]0;pwned\x07\u{9b}31m\r\n"),
            HostileId::Duplicate => previous.unwrap_or(normal).to_string(),
        }
    }
}

/// A completed task's `url` with a scheme other than http or https.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostileUrl {
    Ftp,
    File,
    Javascript,
}

impl Named for HostileUrl {
    const NAMES: &'static [(&'static str, Self)] =
        &[("ftp", HostileUrl::Ftp), ("file", HostileUrl::File), ("javascript", HostileUrl::Javascript)];
}

impl HostileUrl {
    pub fn url(self) -> &'static str {
        match self {
            HostileUrl::Ftp => "ftp://127.0.0.1/files/video.mp4",
            HostileUrl::File => "file:///etc/passwd",
            HostileUrl::Javascript => "javascript:alert(document.cookie)",
        }
    }
}

/// A `progress` that is not a percent from 0 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostileProgress {
    /// -25
    Negative,
    /// 250
    Over,
    /// The string `"NaN"`.
    NaN,
    /// The string `"50%"`.
    Text,
}

impl Named for HostileProgress {
    const NAMES: &'static [(&'static str, Self)] = &[
        ("negative", HostileProgress::Negative),
        ("over", HostileProgress::Over),
        ("nan", HostileProgress::NaN),
        ("text", HostileProgress::Text),
    ];
}

impl HostileProgress {
    pub fn value(self) -> Value {
        match self {
            HostileProgress::Negative => json!(-25),
            HostileProgress::Over => json!(250),
            HostileProgress::NaN => json!("NaN"),
            HostileProgress::Text => json!("50%"),
        }
    }
}

macro_rules! display_by_name {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let name = <$t as Named>::NAMES.iter().find(|(_, v)| v == self).map_or("?", |(n, _)| *n);
                f.write_str(name)
            }
        }
    )*};
}
display_by_name!(HostileStatus, HostileId, HostileUrl, HostileProgress);

/// Terminal control sequences of every kind a server could smuggle into a string: OSC 52
/// (clipboard write), OSC 0 (window title), CSI 2J (clear), OSC 8 (hyperlink), the C1 CSI, and a
/// right-to-left override.
pub const POISON: &str = "\x1b]52;c;cmVlbCB3YXMgaGVyZQ==\x07\x1b]0;pwned\x07\x1b[2J\
                          \x1b]8;;http://127.0.0.1:9/\x07click\x1b]8;;\x07\u{9b}31m\u{202e}4pm.exe";

/// A 429 storm: every request is refused for `lasting`, starting `after` from when the
/// configuration is applied (start, or `SimHandle::set_hostile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Storm {
    pub after: Duration,
    pub lasting: Duration,
}

/// The hostile part of the configuration. Everything is off by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hostile {
    // Result files.
    /// A download that sends `trickle_head` bytes, then one byte every `trickle_every` (or
    /// nothing more when `None`, until the client gives up).
    pub trickle: Trigger,
    pub trickle_head: u64,
    pub trickle_every: Option<Duration>,
    /// A request with `Range` answered 200 with the whole file.
    pub range_ignored: Trigger,
    /// A request with `Range: bytes=N-` (N > 0) answered 206 claiming N- but carrying bytes from 0.
    pub range_lying: Trigger,
    /// A request with `Range` answered 206 with another range than the one asked (honestly labelled).
    pub range_mismatch: Trigger,
    /// The file changes (new bytes, ETag and Last-Modified) just before the answer.
    pub file_changes: Trigger,
    /// The answer carries more bytes than its `Content-Length` (written raw on the socket).
    pub overlong: Trigger,
    pub file_403: Trigger,
    pub file_410: Trigger,
    /// 302 to the same file with `hop=1` toggled: A → B → A → ...
    pub file_redirect_loop: Trigger,
    /// 302 to the same file under `/mirror/files/` (same origin, another path).
    pub file_redirect_path: Trigger,
    /// 302 to the same file on the second listener (another port on 127.0.0.1).
    pub file_redirect_origin: Trigger,
    /// 302 to `file:///etc/passwd`: a redirect to another scheme.
    pub file_redirect_scheme: Trigger,
    /// A file answer with no `Content-Length` that never ends: the file, then zeros, chunked.
    pub file_endless: Trigger,
    /// A file answer with no `Content-Length`: half the bytes, then a clean close (written raw,
    /// close-delimited), so that HTTP cannot show the cut; only the file can.
    pub file_cut_clean: Trigger,

    // API answers (task GETs only, so that submissions go through).
    /// A 200 JSON answer that never ends: `[[[[...`.
    pub endless: Trigger,
    /// A 200 JSON answer that never ends: spaces.
    pub endless_spaces: Trigger,
    /// A valid JSON task of `huge_bytes` bytes (a long `padding` field).
    pub huge: Trigger,
    pub huge_bytes: u64,
    /// Headers and body one byte every `slow_bytes_every` (written raw on the socket).
    pub slow_bytes: Trigger,
    pub slow_bytes_every: Duration,
    /// POSTs and GETs answered `api_redirect_status` to the same path on the second listener.
    pub api_redirect_origin: Trigger,
    /// POSTs and GETs answered `api_redirect_status` to the same path with `hop=1` (same origin).
    pub api_redirect_same: Trigger,
    /// 307 or 308.
    pub api_redirect_status: u16,
    /// Every API and file request answered 429 during a window.
    pub storm: Option<Storm>,
    /// `Retry-After` (of 429 faults, storms and `unavailable`) as an HTTP date instead of seconds.
    pub retry_after_date: bool,
    /// API requests answered 503 with `Retry-After` of the faults' `retry_after` (a gateway in
    /// maintenance; some send a date in the year 9999).
    pub unavailable: Trigger,

    // Task content, decided at submission for the tasks `tasks` selects.
    pub tasks: Trigger,
    pub task_status: Option<HostileStatus>,
    pub task_id: Option<HostileId>,
    pub task_url: Option<HostileUrl>,
    pub task_progress: Option<HostileProgress>,
    /// [`POISON`] in the error code and message, the `model` and the `object`.
    pub task_strings: bool,

    // Media for preflight checks (`/media/...`).
    pub media_head_405: bool,
    pub media_wrong_type: bool,
    /// Serve media as `application/octet-stream` (clients decide by the first bytes).
    pub media_octet_stream: bool,
    /// Serve media without a Content-Type.
    pub media_untyped: bool,
    /// Serve MP4 media with the `moov` (its index, with the duration) after the media data.
    pub media_moov_last: bool,
    /// Answer media one byte every `slow_bytes_every`, headers included.
    pub media_slow: bool,
}

impl Default for Hostile {
    fn default() -> Self {
        Hostile {
            trickle: Trigger::Never,
            trickle_head: 1024,
            trickle_every: None,
            range_ignored: Trigger::Never,
            range_lying: Trigger::Never,
            range_mismatch: Trigger::Never,
            file_changes: Trigger::Never,
            overlong: Trigger::Never,
            file_403: Trigger::Never,
            file_410: Trigger::Never,
            file_redirect_loop: Trigger::Never,
            file_redirect_path: Trigger::Never,
            file_redirect_origin: Trigger::Never,
            file_redirect_scheme: Trigger::Never,
            file_endless: Trigger::Never,
            file_cut_clean: Trigger::Never,
            endless: Trigger::Never,
            endless_spaces: Trigger::Never,
            huge: Trigger::Never,
            huge_bytes: 50 * 1024 * 1024,
            slow_bytes: Trigger::Never,
            slow_bytes_every: Duration::from_millis(100),
            api_redirect_origin: Trigger::Never,
            api_redirect_same: Trigger::Never,
            api_redirect_status: 307,
            storm: None,
            retry_after_date: false,
            unavailable: Trigger::Never,
            tasks: Trigger::Always,
            task_status: None,
            task_id: None,
            task_url: None,
            task_progress: None,
            task_strings: false,
            media_head_405: false,
            media_wrong_type: false,
            media_octet_stream: false,
            media_untyped: false,
            media_moov_last: false,
            media_slow: false,
        }
    }
}

/// The hostile content one task was given at submission.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TaskHostility {
    pub status: Option<HostileStatus>,
    pub url: Option<HostileUrl>,
    pub progress: Option<HostileProgress>,
    pub strings: bool,
}

impl Hostile {
    /// Whether any task-level content is configured (only then are tasks counted for `tasks`).
    pub fn shapes_tasks(&self) -> bool {
        self.task_status.is_some()
            || self.task_id.is_some()
            || self.task_url.is_some()
            || self.task_progress.is_some()
            || self.task_strings
    }

    pub fn task_hostility(&self) -> TaskHostility {
        TaskHostility {
            status: self.task_status,
            url: self.task_url,
            progress: self.task_progress,
            strings: self.task_strings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_parse() {
        let cases = [
            ("never", Some(Trigger::Never)),
            ("0", Some(Trigger::Never)),
            ("all", Some(Trigger::Always)),
            ("1", Some(Trigger::Always)),
            ("first:2", Some(Trigger::First(2))),
            ("every:3", Some(Trigger::Every(3))),
            ("0.25", Some(Trigger::Chance(0.25))),
            ("every:0", None),
            ("first:x", None),
            ("1.5", None),
            ("sometimes", None),
        ];
        for (text, want) in cases {
            assert_eq!(text.parse::<Trigger>().ok(), want, "{text}");
        }
    }

    #[test]
    fn triggers_hit_the_counted_occurrences() {
        let hits = |t: Trigger| (1..=6).filter(|n| t.hits(*n, || 0.5)).collect::<Vec<u64>>();
        assert_eq!(hits(Trigger::Never), [0; 0]);
        assert_eq!(hits(Trigger::Always), [1, 2, 3, 4, 5, 6]);
        assert_eq!(hits(Trigger::First(2)), [1, 2]);
        assert_eq!(hits(Trigger::Every(3)), [3, 6]);
        assert_eq!(hits(Trigger::Chance(0.6)), [1, 2, 3, 4, 5, 6]);
        assert_eq!(hits(Trigger::Chance(0.4)), [0; 0]);
    }

    #[test]
    fn names_round_trip() {
        for (name, v) in HostileStatus::NAMES {
            assert_eq!(HostileStatus::parse_name(name), Ok(*v));
            assert_eq!(v.to_string(), *name);
        }
        for (name, v) in HostileId::NAMES {
            assert_eq!(HostileId::parse_name(name), Ok(*v));
        }
        let unknown = HostileUrl::parse_name("gopher").expect_err("not a name");
        assert!(unknown.to_string().starts_with("\"gopher\" is not one of: ftp, file, javascript"), "{unknown}");
        let not_a_trigger = "sometimes".parse::<Trigger>().expect_err("not a trigger");
        assert_eq!(
            not_a_trigger.to_string(),
            "\"sometimes\" is not a trigger: use never, always, first:N, every:N or 0..1"
        );
    }

    #[test]
    fn hostile_ids() {
        let cases = [
            (HostileId::Empty, ""),
            (HostileId::Dot, "."),
            (HostileId::DotDot, ".."),
            (HostileId::Slash, "a/b"),
            (HostileId::EncodedDotDot, "%2e%2e"),
            (HostileId::Duplicate, "task_prev"),
        ];
        for (kind, want) in cases {
            assert_eq!(kind.make("task_new", Some("task_prev")), want, "{kind}");
        }
        assert_eq!(HostileId::Duplicate.make("task_new", None), "task_new");
        let huge = HostileId::Huge.make("task_new", None);
        assert!(huge.starts_with("task_new") && huge.len() == HUGE_ID_LEN);
        let control = HostileId::Control.make("task_new", None);
        assert!(control.starts_with("task_new") && control.contains('\x1b') && control.contains('\u{9b}'));
    }

    #[test]
    fn statuses_and_progress_are_off_spec() {
        let spec = ["queued", "in_progress", "completed", "failed"];
        for (_, s) in HostileStatus::NAMES {
            let v = s.value();
            assert!(v.as_ref().and_then(Value::as_str).is_none_or(|s| !spec.contains(&s)), "{v:?}");
        }
        for (_, p) in HostileProgress::NAMES {
            let v = p.value();
            assert!(v.as_f64().is_none_or(|p| !(0.0..=100.0).contains(&p)), "{v}");
        }
    }

    #[test]
    fn defaults_are_harmless() {
        let h = Hostile::default();
        assert!(!h.shapes_tasks());
        assert_eq!(h.storm, None);
        assert_eq!(h.task_hostility(), TaskHostility::default());
    }
}
