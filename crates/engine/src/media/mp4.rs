//! Duration from an MP4/MOV header (ISO base media): `moov/mvhd`, else the longest
//! `moov/trak/mdia/mdhd`. It reads a window of the file (one ranged GET) and, when the `moov`
//! lies beyond the window (files written with their index last), says where to read next.

/// What a window of a file says about its duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scan {
    /// Seconds, from the movie header (or the longest track's media header).
    Seconds(f64),
    /// No `moov` in the window: the next top-level box starts at this file offset.
    ReadAt(u64),
    /// Not an MP4, a damaged one, or one whose header gives no duration.
    Unknown,
}

/// One box header: its type, where its content starts and how long the content is (`None`:
/// to the end of the file).
struct Header {
    kind: [u8; 4],
    content: usize,
    len: Option<u64>,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at.checked_add(4)?).map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(be32(b, at)?) << 32 | u64::from(be32(b, at + 4)?))
}

fn header(b: &[u8], at: usize) -> Option<Header> {
    let size = be32(b, at)?;
    let kind: [u8; 4] = b.get(at + 4..at + 8)?.try_into().ok()?;
    match size {
        0 => Some(Header { kind, content: at + 8, len: None }),
        1 => {
            let large = be64(b, at + 8)?;
            Some(Header { kind, content: at + 16, len: Some(large.checked_sub(16)?) })
        }
        2..=7 => None,
        n => Some(Header { kind, content: at + 8, len: Some(u64::from(n) - 8) }),
    }
}

/// The children of a box's content (`b`), cut at the end of what was read.
fn children(b: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let h = header(b, at)?;
        let end = match h.len {
            Some(len) => usize::try_from(len).ok().and_then(|l| h.content.checked_add(l))?,
            None => b.len(),
        };
        let content = b.get(h.content..end.min(b.len()))?;
        at = if end >= b.len() { b.len() } else { end };
        Some((h.kind, content))
    })
}

/// The duration of a `mvhd` or `mdhd` full box's content (both share the layout up to it).
pub(crate) fn timed(content: &[u8]) -> Option<f64> {
    let (scale, duration) = match content.first()? {
        0 => (be32(content, 12)?, be32(content, 16).filter(|d| *d != u32::MAX).map(u64::from)?),
        1 => (be32(content, 20)?, be64(content, 24).filter(|d| *d != u64::MAX)?),
        _ => return None,
    };
    let seconds = duration as f64 / f64::from(scale);
    (scale > 0 && seconds.is_finite() && seconds > 0.0).then_some(seconds)
}

fn moov_seconds(moov: &[u8]) -> Option<f64> {
    let mut longest_track: Option<f64> = None;
    for (kind, content) in children(moov) {
        match &kind {
            b"mvhd" => {
                if let Some(s) = timed(content) {
                    return Some(s);
                }
            }
            b"trak" => {
                let mdhd = children(content)
                    .filter(|(k, _)| k == b"mdia")
                    .flat_map(|(_, mdia)| children(mdia))
                    .find(|(k, _)| k == b"mdhd")
                    .and_then(|(_, c)| timed(c));
                longest_track = match (longest_track, mdhd) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
            _ => {}
        }
    }
    longest_track
}

/// The file offset `offset + at`, or unknown past what a file can be.
fn read_at(offset: u64, at: u64) -> Scan {
    offset.checked_add(at).map_or(Scan::Unknown, Scan::ReadAt)
}

/// Scans `window`, the bytes of a file from offset `offset`, which must be where a top-level
/// box starts (0 for the first read, then a [`Scan::ReadAt`]).
pub fn scan(window: &[u8], offset: u64) -> Scan {
    let mut at = 0usize;
    loop {
        if at >= window.len() {
            return if at == 0 { Scan::Unknown } else { read_at(offset, at as u64) };
        }
        let Some(h) = header(window, at) else {
            // A header cut by the end of the window: read again from it, unless nothing was read.
            return if window.len() - at < 16 && at > 0 { read_at(offset, at as u64) } else { Scan::Unknown };
        };
        // Anything else read as boxes would send us to random offsets.
        let plausible = if offset == 0 && at == 0 {
            matches!(&h.kind, b"ftyp" | b"moov" | b"mdat" | b"free" | b"skip" | b"wide")
        } else {
            h.kind.iter().all(|c| c.is_ascii_graphic() || *c == b' ' || *c == 0xa9)
        };
        if !plausible {
            return Scan::Unknown;
        }
        if &h.kind == b"moov" {
            let end = h.len.and_then(|l| usize::try_from(l).ok()).map_or(window.len(), |l| h.content.saturating_add(l));
            let content = &window[h.content.min(window.len())..end.min(window.len())];
            return match moov_seconds(content) {
                Some(s) => Scan::Seconds(s),
                // Cut short before its headers: read it whole from its start.
                None if end > window.len() && at > 0 => read_at(offset, at as u64),
                None => Scan::Unknown,
            };
        }
        let Some(len) = h.len else { return Scan::Unknown };
        let next = (h.content as u64).checked_add(len);
        match next.and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n < window.len() => at = n,
            _ => return next.map_or(Scan::Unknown, |n| read_at(offset, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(kind: &[u8; 4], content: &[u8]) -> Vec<u8> {
        [&((content.len() + 8) as u32).to_be_bytes()[..], kind, content].concat()
    }

    fn mvhd_v0(scale: u32, duration: u32) -> Vec<u8> {
        let mut c = vec![0u8; 4 + 8];
        c.extend_from_slice(&scale.to_be_bytes());
        c.extend_from_slice(&duration.to_be_bytes());
        c.resize(100, 0);
        c
    }

    fn mvhd_v1(scale: u32, duration: u64) -> Vec<u8> {
        let mut c = vec![1u8, 0, 0, 0];
        c.extend_from_slice(&[0; 16]);
        c.extend_from_slice(&scale.to_be_bytes());
        c.extend_from_slice(&duration.to_be_bytes());
        c.resize(112, 0);
        c
    }

    fn trak(scale: u32, duration: u32) -> Vec<u8> {
        bx(b"trak", &bx(b"mdia", &bx(b"mdhd", &mvhd_v0(scale, duration))))
    }

    fn ftyp() -> Vec<u8> {
        bx(b"ftyp", b"isom\0\0\x02\0isomiso2")
    }

    #[test]
    fn durations_from_headers() {
        let moov_first = [ftyp(), bx(b"moov", &bx(b"mvhd", &mvhd_v0(1000, 8000))), bx(b"mdat", &[0; 64])].concat();
        let v1 = [ftyp(), bx(b"moov", &bx(b"mvhd", &mvhd_v1(600, 4500)))].concat();
        let tracks_only = [ftyp(), bx(b"moov", &[trak(90_000, 270_000), trak(44_100, 441_000)].concat())].concat();
        let zero_scale = [ftyp(), bx(b"moov", &[bx(b"mvhd", &mvhd_v0(0, 8000)), trak(25, 100)].concat())].concat();
        let unknown_duration = [ftyp(), bx(b"moov", &bx(b"mvhd", &mvhd_v0(1000, u32::MAX)))].concat();
        let mdat_big = [&ftyp()[..], &1_000_000u32.to_be_bytes(), b"mdat", &[0; 32]].concat();
        let large_size = [&ftyp()[..], &1u32.to_be_bytes(), b"mdat", &5_000_000_000u64.to_be_bytes()].concat();
        let cut_moov = [&ftyp()[..], &5_000u32.to_be_bytes(), b"moov", &[0; 20]].concat();
        let cases: Vec<(&str, Vec<u8>, u64, Scan)> = vec![
            ("moov first", moov_first, 0, Scan::Seconds(8.0)),
            ("version 1 mvhd", v1, 0, Scan::Seconds(7.5)),
            ("no mvhd: longest mdhd", tracks_only, 0, Scan::Seconds(10.0)),
            ("zero timescale: mdhd", zero_scale, 0, Scan::Seconds(4.0)),
            ("all-ones duration", unknown_duration, 0, Scan::Unknown),
            ("moov after a large mdat", mdat_big, 0, Scan::ReadAt(24 + 1_000_000)),
            ("64-bit box size", large_size, 0, Scan::ReadAt(24 + 5_000_000_000)),
            ("offsets add up", bx(b"free", &[0; 8]), 500, Scan::ReadAt(516)),
            ("offsets past any file", bx(b"free", &[0; 8]), u64::MAX - 4, Scan::Unknown),
            ("moov cut before mvhd", cut_moov, 0, Scan::ReadAt(24)),
            ("not an mp4", b"<html><body>nope</body></html>".to_vec(), 0, Scan::Unknown),
            (
                "garbage where a box should start",
                vec![0, 0, 0, 16, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0],
                900,
                Scan::Unknown,
            ),
            ("box smaller than a header", vec![0, 0, 0, 4, b'f', b't', b'y', b'p'], 0, Scan::Unknown),
            ("empty", vec![], 0, Scan::Unknown),
        ];
        for (name, bytes, offset, want) in cases {
            assert_eq!(scan(&bytes, offset), want, "{name}");
        }
    }

    #[test]
    fn the_simulators_video() {
        let spec = reel_sim::video::VideoSpec { width: 64, height: 64, seconds: 3, seed: 0, label: "t".into() };
        let file = reel_sim::video::render_mp4(&spec);
        assert_eq!(scan(&file, 0), Scan::Seconds(3.0));
    }
}
