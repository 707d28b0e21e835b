//! What the service says it rendered, beside what was asked: its `size`, `seconds` and `usage`
//! read in the shapes services send them, and the one comparison every view shows ("asked 720P
//! 1:1, rendered 1920x1080").

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::size::{Frame, frame, matches};

/// The service's own account of a task's output, as far as it gave one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rendered {
    /// The frame size it names (`1920x1080`, or a resolution such as `720P`), normalised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// The output's length in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Its `usage` object as it came (tokens, a duration: whatever it counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
}

/// Longest `size` text kept when it is no size reel can read: enough to show, never a flood.
const MAX_SIZE_TEXT: usize = 40;
/// Longest `usage` kept, as JSON text: a service that sends more sends no usage.
const MAX_USAGE_BYTES: usize = 2000;

/// Seconds from a number or a numeric string (`5`, `"5.0"`, `"5s"`).
pub fn seconds_of(v: &Value) -> Option<f64> {
    let n = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().trim_end_matches(['s', 'S']).trim().parse().ok()?,
        _ => return None,
    };
    (n.is_finite() && n > 0.0 && n < 86_400.0).then_some(n)
}

fn size_text(v: &Value) -> Option<String> {
    let text = match v {
        Value::String(s) => s.trim(),
        _ => return None,
    };
    match frame(text) {
        Some(f) => Some(f.text()),
        None if !text.is_empty() => Some(text.chars().filter(|c| !c.is_control()).take(MAX_SIZE_TEXT).collect()),
        None => None,
    }
}

impl Rendered {
    /// From a task answer: the top-level `size` and `seconds` (OpenAI's Videos API, new-api),
    /// else what `usage` says (`duration_seconds`, DashScope's `video_duration` and
    /// `video_ratio`).
    pub fn from_answer(obj: &Map<String, Value>) -> Rendered {
        let usage = obj.get("usage").filter(|u| u.is_object() && u.to_string().len() <= MAX_USAGE_BYTES);
        let in_usage = |keys: &[&str]| usage.and_then(|u| keys.iter().find_map(|k| u.get(*k)));
        let size =
            obj.get("size").and_then(size_text).or_else(|| in_usage(&["size", "video_ratio"]).and_then(size_text));
        let seconds = obj
            .get("seconds")
            .and_then(seconds_of)
            .or_else(|| in_usage(&["duration_seconds", "video_duration", "seconds", "duration"]).and_then(seconds_of));
        Rendered { size, seconds, usage: usage.cloned() }
    }

    pub fn is_empty(&self) -> bool {
        self.size.is_none() && self.seconds.is_none() && self.usage.is_none()
    }
}

/// What a task asked for, as recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Asked<'a> {
    pub resolution: &'a str,
    pub ratio: &'a str,
    /// `-1`: automatic.
    pub seconds: i64,
}

/// Where the output differs from what was asked: the size it was rendered at, the seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub size: Option<Frame>,
    pub seconds: Option<f64>,
}

/// Seconds closer than this are the same (a service writes 5 as `"5.0"` or 5.04).
const SECONDS_TOLERANCE: f64 = 0.25;

/// How the output differs from what was asked, if the service said and it does. An automatic
/// duration is never a difference; a size reel cannot read is not compared.
pub fn difference(asked: Asked<'_>, rendered: &Rendered) -> Option<Difference> {
    let size = rendered.size.as_deref().and_then(frame).filter(|f| !matches(asked.resolution, asked.ratio, *f));
    let seconds =
        rendered.seconds.filter(|s| asked.seconds >= 0 && (s - asked.seconds as f64).abs() > SECONDS_TOLERANCE);
    (size.is_some() || seconds.is_some()).then_some(Difference { size, seconds })
}

/// What the table's cells show where the output differs (seconds, ratio, resolution): what
/// was rendered, each `None` where it is what was asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cells {
    pub seconds: Option<String>,
    pub ratio: Option<String>,
    pub resolution: Option<String>,
}

pub fn cells(asked: Asked<'_>, rendered: &Rendered) -> Cells {
    let Some(d) = difference(asked, rendered) else { return Cells::default() };
    let ratio = d.size.and_then(Frame::ratio).filter(|r| r != asked.ratio);
    let resolution = d.size.map(Frame::resolution).filter(|r| r != asked.resolution);
    Cells { seconds: d.seconds.map(|s| format!("{} s", crate::billing::secs(s))), ratio, resolution }
}

/// `asked 720P 1:1, rendered 1920x1080 (landscape)`, `asked 5 s, rendered 4 s`, both in one:
/// what every view (the table, the detail, `--json`, the ledger) says when they differ.
pub fn said(asked: Asked<'_>, rendered: &Rendered) -> Option<String> {
    let d = difference(asked, rendered)?;
    let secs = |s: f64| crate::billing::secs(s);
    let mut asked_parts = Vec::new();
    let mut rendered_parts = Vec::new();
    if let Some(f) = d.size {
        asked_parts.push(format!("{} {}", asked.resolution, asked.ratio));
        // Named only when it turned: portrait asked, landscape rendered, or the other way.
        let wanted = super::size::size_of(asked.resolution, asked.ratio).as_deref().and_then(frame);
        let shape = match (f.orientation(), wanted.and_then(Frame::orientation)) {
            (Some(o), Some(w)) if o != w && o != "square" && w != "square" => format!(" ({o})"),
            _ => String::new(),
        };
        rendered_parts.push(format!("{}{shape}", f.text()));
    }
    if let Some(s) = d.seconds {
        asked_parts.push(format!("{} s", asked.seconds));
        rendered_parts.push(format!("{} s", secs(s)));
    }
    Some(format!("asked {}, rendered {}", asked_parts.join(" "), rendered_parts.join(" ")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(v: Value) -> Rendered {
        Rendered::from_answer(v.as_object().expect("an object"))
    }

    #[test]
    fn reads_size_seconds_and_usage_in_every_shape() {
        type Case = (Value, Option<&'static str>, Option<f64>);
        let cases: Vec<Case> = vec![
            (json!({"size": "1920x1080", "seconds": "5.0"}), Some("1920x1080"), Some(5.0)),
            (json!({"size": "1280*720", "seconds": 8}), Some("1280x720"), Some(8.0)),
            (json!({"size": "720P", "seconds": "5"}), Some("720P"), Some(5.0)),
            (json!({"seconds": "4s"}), None, Some(4.0)),
            (json!({"usage": {"duration_seconds": 6}}), None, Some(6.0)),
            (json!({"usage": {"video_duration": 5, "video_ratio": "1920*1080"}}), Some("1920x1080"), Some(5.0)),
            (json!({"size": "", "seconds": ""}), None, None),
            (json!({"size": 1080, "seconds": null}), None, None),
            (json!({"seconds": "-3"}), None, None),
            (json!({"seconds": "NaN"}), None, None),
            (json!({"size": "wide\u{1b}[2J"}), Some("wide[2J"), None),
            (json!({}), None, None),
        ];
        for (body, size, seconds) in cases {
            let r = read(body.clone());
            assert_eq!((r.size.as_deref(), r.seconds), (size, seconds), "{body}");
        }
        let r = read(json!({"usage": {"prompt_tokens": 10, "completion_tokens": 20}}));
        assert_eq!(r.usage, Some(json!({"prompt_tokens": 10, "completion_tokens": 20})), "usage is kept as it came");
        assert!(!r.is_empty());
        assert!(read(json!({"usage": "lots"})).usage.is_none(), "a usage that is no object is not kept");
        assert!(read(json!({"usage": {"x": "y".repeat(5000)}})).usage.is_none(), "nor a huge one");
        assert!(read(json!({})).is_empty());
    }

    #[test]
    fn says_what_differs_from_what_was_asked() {
        let asked = |resolution, ratio, seconds| Asked { resolution, ratio, seconds };
        let got =
            |size: Option<&str>, seconds: Option<f64>| Rendered { size: size.map(String::from), seconds, usage: None };
        let cases = [
            (asked("720P", "1:1", 5), got(Some("1920x1080"), Some(5.0)), Some("asked 720P 1:1, rendered 1920x1080")),
            (
                asked("720P", "16:9", 5),
                got(Some("720x1280"), None),
                Some("asked 720P 16:9, rendered 720x1280 (portrait)"),
            ),
            (asked("720P", "16:9", 5), got(Some("1280x720"), Some(5.0)), None),
            (asked("720P", "16:9", 5), got(Some("1280x720"), Some(5.04)), None),
            (asked("720P", "16:9", 5), got(None, Some(4.0)), Some("asked 5 s, rendered 4 s")),
            (
                asked("720P", "16:9", 5),
                got(Some("1920x1080"), Some(8.0)),
                Some("asked 720P 16:9 5 s, rendered 1920x1080 8 s"),
            ),
            (asked("720P", "16:9", -1), got(None, Some(8.0)), None),
            (asked("720P", "16:9", 5), got(Some("huge"), None), None),
            (asked("720P", "16:9", 5), got(None, None), None),
            (asked("720P", "1:1", 5), got(Some("960x960"), Some(5.0)), None),
        ];
        for (a, r, want) in cases {
            assert_eq!(said(a, &r).as_deref(), want, "{a:?} {r:?}");
        }
    }

    #[test]
    fn the_table_shows_what_was_rendered_where_it_differs() {
        let asked = Asked { resolution: "720P", ratio: "16:9", seconds: 5 };
        let got = |size: &str, seconds| Rendered { size: Some(size.into()), seconds, usage: None };
        let cell = |s: &str| Some(s.to_string());
        let cases = [
            (got("1920x1080", Some(5.0)), Cells { resolution: cell("1080P"), ..Cells::default() }),
            (got("720x1280", None), Cells { ratio: cell("9:16"), ..Cells::default() }),
            (got("1280x720", Some(8.0)), Cells { seconds: cell("8 s"), ..Cells::default() }),
            (got("1280x720", Some(5.0)), Cells::default()),
        ];
        for (r, want) in cases {
            assert_eq!(cells(asked, &r), want, "{r:?}");
        }
    }
}
