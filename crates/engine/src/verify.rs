//! What a downloaded file must be before it is called saved: no larger than a video of its
//! length and resolution can be, and a complete MP4 (ISO base media) whose duration is near the
//! seconds the task asked for. Pure over plain data and a reader; `download` calls it on the
//! `.part` file before the rename.

use std::io::{Read, Seek, SeekFrom};

use thiserror::Error;

use crate::media::sniff::{Sort, sniff};
use reel_rules::{Catalog, Resolution};
use reel_store::TaskRecord;

/// Sizes in messages and in `[engine] max_file_mb` are decimal megabytes.
pub const MB: u64 = 1_000_000;

/// `[engine] max_file_mb` unless configured: above what any video the spec allows can be (a
/// 150 s 1080P render is bounded at 1.2 GB), well below a disk an endless answer would fill.
pub const DEFAULT_MAX_FILE_MB: u64 = 2000;

/// Bits per second past any real encode at this resolution: two to four times what services
/// send (1080P renders come at 8–16 Mbit/s).
fn ceiling_bitrate(r: Resolution) -> u64 {
    match r {
        Resolution::P480 => 8_000_000,
        Resolution::P720 => 16_000_000,
        Resolution::P1080 => 32_000_000,
    }
}

/// Room over the bitrate for audio tracks and the container, and a floor for short clips.
const FACTOR: u64 = 2;
const SLACK: u64 = 2 * MB;

/// The largest file a task's video can be, and in words what says so.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeBound {
    pub bytes: u64,
    /// "a 10 s 1080P video can be", "[engine] max_file_mb allows".
    pub limit: String,
}

/// "12 MB", or "1.5 MB" below ten.
pub fn mb(bytes: u64) -> String {
    if bytes >= 10 * MB { format!("{} MB", bytes / MB) } else { format!("{:.1} MB", bytes as f64 / MB as f64) }
}

impl SizeBound {
    /// Only the configured ceiling: what a task of unknown length or resolution gets.
    pub fn ceiling(bytes: u64) -> SizeBound {
        SizeBound { bytes, limit: "[engine] max_file_mb allows".into() }
    }

    /// Why a file of `size` bytes is refused: `announced` by the server before any byte, or
    /// passed while arriving (the transfer is cut there).
    pub fn refusal(&self, size: u64, announced: bool) -> String {
        if announced {
            format!("the server announced {}, more than {} ({}); not downloaded", mb(size), self.limit, mb(self.bytes))
        } else {
            format!("the file passed {}, the most {}; the transfer was cut at {size} bytes", mb(self.bytes), self.limit)
        }
    }
}

/// The bound for a task of `seconds` (`-1`: automatic, up to `longest`, the model's longest)
/// at `resolution`, never above `ceiling`. What is unknown gets the ceiling.
pub fn size_bound(seconds: i64, longest: Option<i64>, resolution: &str, ceiling: u64) -> SizeBound {
    let Some(res) = Resolution::parse(resolution) else {
        return SizeBound::ceiling(ceiling);
    };
    let (secs, what) = match (seconds, longest) {
        (s, _) if s > 0 => (s, format!("a {s} s {res} video")),
        (_, Some(l)) if l > 0 => (l, format!("an automatic-length {res} video (up to {l} s)")),
        _ => return SizeBound::ceiling(ceiling),
    };
    let bytes = (ceiling_bitrate(res) / 8).saturating_mul(secs as u64).saturating_mul(FACTOR).saturating_add(SLACK);
    if bytes >= ceiling {
        return SizeBound::ceiling(ceiling);
    }
    SizeBound { bytes, limit: format!("{what} can be") }
}

/// What a task's file must be.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    pub bound: SizeBound,
    /// Seconds asked for; `None` (automatic, unknown) accepts any duration.
    pub seconds: Option<f64>,
}

impl Expect {
    /// Anything up to `ceiling` bytes, of any duration.
    pub fn any(ceiling: u64) -> Expect {
        Expect { bound: SizeBound::ceiling(ceiling), seconds: None }
    }

    pub fn of(r: &TaskRecord, catalog: &Catalog, ceiling: u64) -> Expect {
        let longest = Some(catalog.duration_rule(&r.model).0.max);
        Expect {
            bound: size_bound(r.seconds, longest, &r.resolution, ceiling),
            seconds: (r.seconds > 0).then_some(r.seconds as f64),
        }
    }
}

/// Whether a video of `got` seconds is the one asked for: within 25 % or 1.5 s, the larger.
/// Services round and trim (a 5 s request may come back 5.04 s or 4.9 s), never by a quarter.
pub fn duration_fits(got: f64, asked: Option<f64>) -> bool {
    asked.is_none_or(|asked| (got - asked).abs() <= (asked * 0.25).max(1.5))
}

/// Largest `moov` read into memory: the index of a 150 s video is well under a megabyte.
pub const MAX_MOOV: u64 = 64 << 20;

/// What a whole file is, by its boxes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Container {
    /// An ISO base media file whose top-level boxes parse exactly to its end, with a `moov`
    /// holding an `mvhd` and with media data: its duration.
    Mp4 { seconds: f64 },
    /// Its first bytes are not an ISO base media box.
    Other,
}

/// Why an ISO base media file is not a complete one.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Damage {
    #[error("it ends at byte {len} inside its `{kind}` box, which runs to byte {end}: the file is cut short")]
    Cut { kind: String, end: u64, len: u64 },
    #[error("it ends at byte {len} inside the header of the box at byte {at}: the file is cut short")]
    CutHeader { at: u64, len: u64 },
    #[error("its box at byte {at} claims {size} bytes, fewer than its own header")]
    BadSize { at: u64, size: u64 },
    #[error("what should be a box at byte {at} is not one")]
    NotABox { at: u64 },
    #[error("it has no `moov` box (the index a player needs)")]
    NoMoov,
    #[error("its `moov` box has no movie header (`mvhd`) with a duration")]
    NoMvhd,
    #[error("it has no media data (`mdat`)")]
    NoMdat,
    #[error("its `moov` box is {size} bytes, more than the {MAX_MOOV} reel reads")]
    HugeMoov { size: u64 },
    #[error("it could not be read: {0}")]
    Read(String),
}

fn be32(b: &[u8]) -> u64 {
    u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn be64(b: &[u8]) -> u64 {
    be32(&b[..4]) << 32 | be32(&b[4..8])
}

fn kind_text(kind: &[u8]) -> String {
    kind.iter().map(|c| if c.is_ascii_graphic() || *c == b' ' { *c as char } else { '?' }).collect()
}

/// Box types an ISO base media file starts with.
const FIRST: [&[u8; 4]; 8] = [b"ftyp", b"styp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pdin"];

/// The duration in the `mvhd` among the children of a `moov`'s content.
fn mvhd_seconds(moov: &[u8]) -> Option<f64> {
    let mut at = 0usize;
    while moov.len().saturating_sub(at) >= 8 {
        let size = be32(&moov[at..]) as usize;
        let (header, size) = match size {
            1 => (16, usize::try_from(be64(moov.get(at + 8..at + 16)?)).ok()?),
            0 => (8, moov.len() - at),
            s => (8, s),
        };
        let end = at.checked_add(size).filter(|e| size >= header && *e <= moov.len())?;
        if &moov[at + 4..at + 8] == b"mvhd" {
            return crate::media::mp4::timed(&moov[at + header..end]);
        }
        at = end;
    }
    None
}

/// Walks the top-level boxes of a `len`-byte file: they must tile it exactly (64-bit sizes and
/// a last box of size 0, "to the end", are ISO base media too), with a `moov` holding an `mvhd`
/// and an `mdat`. Reads the box headers and the `moov` only.
pub fn check_container<R: Read + Seek>(mut r: R, len: u64) -> Result<Container, Damage> {
    let read = |e: std::io::Error| Damage::Read(e.to_string());
    let (mut at, mut seconds, mut media) = (0u64, None, false);
    while at < len {
        let mut head = [0u8; 16];
        let n = (len - at).min(16) as usize;
        r.seek(SeekFrom::Start(at)).map_err(read)?;
        r.read_exact(&mut head[..n]).map_err(read)?;
        if at == 0 && (n < 8 || !FIRST.iter().any(|k| head[4..8] == k[..])) {
            return Ok(Container::Other);
        }
        if n < 8 {
            return Err(Damage::CutHeader { at, len });
        }
        let kind = &head[4..8];
        if !kind.iter().all(|c| c.is_ascii_graphic() || *c == b' ' || *c == 0xa9) {
            return Err(Damage::NotABox { at });
        }
        let (header, size) = match be32(&head) {
            0 => (8, len - at),
            1 if n < 16 => return Err(Damage::CutHeader { at, len }),
            1 => (16, be64(&head[8..16])),
            s => (8, s),
        };
        if size < header {
            return Err(Damage::BadSize { at, size });
        }
        let end = at.saturating_add(size);
        if end > len {
            return Err(Damage::Cut { kind: kind_text(kind), end, len });
        }
        match kind {
            b"moov" => {
                let content = size - header;
                if content > MAX_MOOV {
                    return Err(Damage::HugeMoov { size });
                }
                let mut moov = vec![0u8; content as usize];
                r.seek(SeekFrom::Start(at + header)).map_err(read)?;
                r.read_exact(&mut moov).map_err(read)?;
                seconds = Some(mvhd_seconds(&moov).ok_or(Damage::NoMvhd)?);
            }
            b"mdat" | b"moof" => media = true,
            _ => {}
        }
        at = end;
    }
    match (len, seconds, media) {
        (0, ..) => Ok(Container::Other),
        (_, None, _) => Err(Damage::NoMoov),
        (_, _, false) => Err(Damage::NoMdat),
        (_, Some(seconds), true) => Ok(Container::Mp4 { seconds }),
    }
}

/// What becomes of a file that is not called saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Keep the `.part`: the server gave no length, so the end seen may be a cut that a resume
    /// completes.
    Resume,
    /// Remove the `.part` and try again whole (another copy may be sound); attempts count.
    Again,
    /// Remove the `.part`; fetching this URL again cannot give another answer.
    Never,
}

/// A file refused, with why in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub remedy: Remedy,
    pub why: String,
}

/// Judges a whole file: `container` as [`check_container`] found it, `head` its first bytes,
/// `framed` whether the server gave its length and all of it arrived. The duration when known.
///
/// A file that is not ISO base media is kept only when it is a video container reel knows
/// (WebM, Ogg: the spec says MP4, but a CDN may transcode) and HTTP proved it complete: reel
/// cannot check those containers itself, so the server's length is the only evidence. Anything
/// else (an HTML or JSON page, an image, unknown bytes) is not a video, whatever the framing.
pub fn judge(
    container: Result<Container, Damage>,
    head: &[u8],
    framed: bool,
    asked: Option<f64>,
) -> Result<Option<f64>, Refusal> {
    let refuse = |remedy, why: String| Err(Refusal { remedy, why });
    match container {
        Ok(Container::Mp4 { seconds }) if duration_fits(seconds, asked) => Ok(Some(seconds)),
        Ok(Container::Mp4 { seconds }) => refuse(
            Remedy::Never,
            format!(
                "the video is {seconds:.1} s long, far from the {} s asked for; not the video of this task",
                asked.unwrap_or_default()
            ),
        ),
        Ok(Container::Other) => match sniff(head) {
            Some(s) if s.holds(Sort::Video) && framed => Ok(None),
            Some(s) if s.holds(Sort::Video) => refuse(
                Remedy::Never,
                format!("the server sent {} without its length; reel cannot tell it is complete", s.name),
            ),
            Some(s) => refuse(Remedy::Never, format!("the server sent {}, not a video", s.name)),
            None => {
                let start: String = String::from_utf8_lossy(&head[..head.len().min(24)]).chars().collect();
                refuse(
                    Remedy::Never,
                    format!("the server sent no video (the file starts with {:?})", reel_rules::text::safe(&start)),
                )
            }
        },
        Err(damage) => {
            let remedy = if framed { Remedy::Again } else { Remedy::Resume };
            refuse(remedy, format!("the file is not a complete MP4: {damage}"))
        }
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
