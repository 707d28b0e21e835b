//! The pure core of the preflight: from what was observed of one media item (status, content
//! type, length, first bytes, duration) to a verdict, ok or a reason a user can act on.

use std::fmt;

use thiserror::Error;

use super::sniff::{Sort, sniff};
use reel_rules::MediaKind;
use reel_rules::text;

/// One media item to check, as the submission holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Position in the submission's media list (0-based; messages count from 1).
    pub index: usize,
    pub kind: MediaKind,
    pub url: String,
    /// The duration the user stated (`@SECONDS`), if any.
    pub stated: Option<f64>,
}

/// How a duration was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Ffprobe,
    Mp4Header,
    WavHeader,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Ffprobe => "ffprobe",
            Source::Mp4Header => "MP4 header",
            Source::WavHeader => "WAV header",
        })
    }
}

/// What was seen of one item over HTTP (the last answer: HEAD, or the ranged GET after it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    pub status: u16,
    pub content_type: Option<String>,
    /// Of the whole file (Content-Length of a HEAD or 200, the total of a Content-Range).
    pub length: Option<u64>,
    /// The file's first bytes, when a ranged GET read them.
    pub first_bytes: Vec<u8>,
    pub duration: Option<(f64, Source)>,
}

/// An item that passed.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub item: Item,
    /// The content type the server gave, or the format its first bytes showed.
    pub format: String,
    pub size: Option<u64>,
    /// Seconds of a reference video or audio, when they could be read; never 0.
    pub duration: Option<f64>,
    pub source: Option<Source>,
}

/// How far a measured duration may be from the stated one before the user is told.
pub const DISAGREEMENT: f64 = 0.5;

impl Checked {
    /// Whether the measured duration and the stated one disagree by more than half a second.
    pub fn disagrees(&self) -> bool {
        matches!((self.duration, self.item.stated), (Some(m), Some(s)) if (m - s).abs() > DISAGREEMENT)
    }
}

/// "media item 2 (reference video): video/mp4, 120.0 KB, 8 s (ffprobe; stated 5 s, the measured one counts)".
impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.size.map_or_else(|| "size unknown".to_string(), text::size);
        write!(
            f,
            "media item {} ({}): {}, {size}",
            self.item.index + 1,
            words(self.item.kind),
            text::safe(&self.format)
        )?;
        if self.item.kind.max_total_seconds().is_none() {
            return Ok(());
        }
        let mut notes = Vec::new();
        notes.extend(self.source.map(|s| s.to_string()));
        match (self.item.stated, self.duration) {
            (Some(s), Some(_)) if self.disagrees() => {
                notes.push(format!("stated {} s, the measured one counts", secs(s)))
            }
            (Some(s), None) => notes.push(format!("the stated {} s counts", secs(s))),
            (None, None) if self.item.kind == MediaKind::ReferenceVideo => {
                notes.push("so the billed seconds are unknown".into())
            }
            _ => {}
        }
        match self.duration {
            Some(d) => write!(f, ", {} s", secs(d))?,
            None => write!(f, ", duration unknown")?,
        }
        if notes.is_empty() { Ok(()) } else { write!(f, " ({})", notes.join("; ")) }
    }
}

fn secs(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") }
}

/// "reference video", "first frame".
pub fn words(kind: MediaKind) -> String {
    kind.as_str().replace('_', " ")
}

/// What an item type must be.
pub fn sort(kind: MediaKind) -> Sort {
    match kind {
        MediaKind::ReferenceImage | MediaKind::FirstFrame => Sort::Image,
        MediaKind::ReferenceVideo => Sort::Video,
        MediaKind::ReferenceAudio => Sort::Audio,
    }
}

/// Why an item cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Reason {
    #[error("cannot be reached: {0}")]
    Unreachable(String),
    #[error("did not answer within {0} s")]
    TimedOut(u64),
    #[error("the server says there is no such file ({0})")]
    NotFound(u16),
    #[error("the server answered {0} instead of the file")]
    Status(String),
    #[error("the server says it is {got}, not {}", want.words())]
    WrongType { got: String, want: Sort },
    #[error("the server gives {given} and the first bytes are {got}, not {}", want.words())]
    WrongContent { given: String, got: &'static str, want: Sort },
    #[error("the server gives {given} and the first bytes are not a known image, video or audio format")]
    Unrecognized { given: String },
}

/// An item that failed its check: names the item and the reason.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("media item {} ({}) {}: {reason}", item.index + 1, words(item.kind), text::safe(&item.url))]
pub struct PreflightError {
    pub item: Item,
    pub reason: Reason,
}

/// The type and subtype of a Content-Type, lowercased, without parameters.
fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// Content types that say nothing about what a file holds: its first bytes decide.
fn says_nothing(essence: &str) -> bool {
    matches!(
        essence,
        "" | "application/octet-stream"
            | "binary/octet-stream"
            | "application/binary"
            | "application/mp4"
            | "application/ogg"
    )
}

/// Whether a content type leaves the decision to the first bytes (so a ranged GET is needed).
pub fn needs_first_bytes(content_type: Option<&str>) -> bool {
    content_type.is_none_or(|c| says_nothing(&essence(c)))
}

fn type_sort(essence: &str) -> Option<Sort> {
    match essence.split_once('/')?.0 {
        "image" => Some(Sort::Image),
        "video" => Some(Sort::Video),
        "audio" => Some(Sort::Audio),
        _ => None,
    }
}

/// The verdict on one item.
pub fn verdict(item: &Item, seen: &Observed) -> Result<Checked, PreflightError> {
    let fail = |reason| Err(PreflightError { item: item.clone(), reason });
    match seen.status {
        200..=203 | 206 => {}
        404 | 410 => return fail(Reason::NotFound(seen.status)),
        code => {
            let name = reqwest::StatusCode::from_u16(code).ok().and_then(|s| s.canonical_reason());
            return fail(Reason::Status(name.map_or_else(|| code.to_string(), |n| format!("{code} {n}"))));
        }
    }
    let want = sort(item.kind);
    let given = seen.content_type.as_deref().map(essence).unwrap_or_default();
    let format = if says_nothing(&given) {
        let given = if given.is_empty() { "no content type".to_string() } else { text::safe(&given).into_owned() };
        match sniff(&seen.first_bytes) {
            None => return fail(Reason::Unrecognized { given }),
            Some(s) if !s.holds(want) => return fail(Reason::WrongContent { given, got: s.name, want }),
            Some(s) => format!("{given}, by its first bytes {}", s.name),
        }
    } else {
        if type_sort(&given) != Some(want) {
            return fail(Reason::WrongType { got: text::safe(&given).into_owned(), want });
        }
        given
    };
    let duration = seen.duration.filter(|(d, _)| item.kind.max_total_seconds().is_some() && d.is_finite() && *d > 0.0);
    Ok(Checked {
        item: item.clone(),
        format,
        size: seen.length,
        duration: duration.map(|(d, _)| d),
        source: duration.map(|(_, s)| s),
    })
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
