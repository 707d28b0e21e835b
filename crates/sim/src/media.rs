//! Reference media with known durations for preflight checks: `/media/NAME.mp4?seconds=7`,
//! `/media/NAME.png`, `/media/NAME.wav?seconds=3`, by GET or HEAD, no key needed.

use bytes::Bytes;
use hyper::header;
use hyper::{Method, StatusCode};

use super::hostile::Hostile;
use super::range::{self, RangeAnswer};
use super::reply::{Delivery, Reply};
use super::routes::{MediaKind, query_param};
use super::state::State;
use super::video::{self, VideoSpec};

/// Duration when the query names none.
const DEFAULT_SECONDS: u32 = 5;
/// Longest media served, so a query cannot make the simulator render for minutes.
const MAX_SECONDS: u32 = 600;

/// A 2×2 red PNG.
pub const PNG: [u8; 73] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a, 0x73, 0x00, 0x00, 0x00, 0x10, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x38, 0xa1, 0xa1, 0x01, 0x44, 0x0c, 0x10, 0x0a, 0x00, 0x21, 0x2e, 0x04, 0x61,
    0xf6, 0xe1, 0xc2, 0x4d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Samples per second of the WAV files: 8-bit mono, so one byte per sample.
pub const WAV_RATE: u32 = 8000;

/// A WAV file of `seconds` of silence (8 kHz, 8-bit, mono PCM).
pub fn wav(seconds: u32) -> Vec<u8> {
    let data = WAV_RATE * seconds;
    let mut out = Vec::with_capacity(44 + data as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&WAV_RATE.to_le_bytes());
    out.extend_from_slice(&WAV_RATE.to_le_bytes()); // bytes per second
    out.extend_from_slice(&1u16.to_le_bytes()); // block align
    out.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    out.resize(44 + data as usize, 0x80);
    out
}

/// The same MP4 with its `moov` after the `mdat`, as some writers leave it, its chunk offsets
/// moved with the media data. Files without a `moov` before their `mdat` come back as they are.
pub fn moov_last(file: &[u8]) -> Vec<u8> {
    let be32 = |b: &[u8], at: usize| b.get(at..at + 4).map_or(0, |s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]));
    let mut boxes = Vec::new();
    let mut at = 0;
    while at + 8 <= file.len() {
        let size = (be32(file, at) as usize).max(8).min(file.len() - at);
        boxes.push(&file[at..at + size]);
        at += size;
    }
    let Some(i) = boxes.iter().position(|b| &b[4..8] == b"moov") else { return file.to_vec() };
    let mut moov = boxes.remove(i).to_vec();
    let shift = moov.len() as u32;
    if let Some(stco) = moov.windows(4).position(|w| w == b"stco") {
        let count = be32(&moov, stco + 8) as usize;
        for n in 0..count {
            let entry = stco + 12 + 4 * n;
            let moved = be32(&moov, entry).saturating_sub(shift);
            if let Some(slot) = moov.get_mut(entry..entry + 4) {
                slot.copy_from_slice(&moved.to_be_bytes());
            }
        }
    }
    let mut out: Vec<u8> = boxes.concat();
    out.extend_from_slice(&moov);
    out
}

fn content_type(kind: MediaKind, wrong: bool) -> &'static str {
    match (kind, wrong) {
        (MediaKind::Mp4, false) => "video/mp4",
        (MediaKind::Png, false) => "image/png",
        (MediaKind::Wav, false) => "audio/wav",
        (MediaKind::Mp4, true) => "image/png",
        (MediaKind::Png, true) => "video/mp4",
        (MediaKind::Wav, true) => "text/plain",
    }
}

pub fn serve(
    state: &State,
    hostile: &Hostile,
    method: &Method,
    query: &str,
    range: Option<&str>,
    kind: MediaKind,
) -> Reply {
    if *method == Method::HEAD && hostile.media_head_405 {
        return Reply::error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "HEAD is not supported")
            .with(header::ALLOW, "GET");
    }
    let seconds = match query_param(query, "seconds").map(str::parse::<u32>) {
        None => DEFAULT_SECONDS,
        Some(Ok(s)) if (1..=MAX_SECONDS).contains(&s) => s,
        Some(_) => {
            let message = format!("seconds must be a whole number from 1 to {MAX_SECONDS}");
            return Reply::error(StatusCode::BAD_REQUEST, "invalid_seconds", &message);
        }
    };
    let bytes = match kind {
        MediaKind::Png => Bytes::from_static(&PNG),
        MediaKind::Wav => Bytes::from(wav(seconds)),
        MediaKind::Mp4 => state.media_mp4(seconds, || {
            let spec = VideoSpec { width: 64, height: 64, seconds, seed: 0, label: "reel sim media".into() };
            Bytes::from(video::render_mp4(&spec))
        }),
    };
    let bytes = if kind == MediaKind::Mp4 && hostile.media_moov_last { Bytes::from(moov_last(&bytes)) } else { bytes };
    let len = bytes.len() as u64;
    let range = range.filter(|_| !state.fires("range_ignored", hostile.range_ignored));
    let (status, bytes, claim) = match range::answer(range, len) {
        RangeAnswer::Whole => (StatusCode::OK, bytes, None),
        RangeAnswer::Part { start, end } => {
            let part = bytes.slice(start as usize..=end as usize);
            (StatusCode::PARTIAL_CONTENT, part, Some(format!("bytes {start}-{end}/{len}")))
        }
        RangeAnswer::Unsatisfiable => {
            return Reply::error(StatusCode::RANGE_NOT_SATISFIABLE, "range", "the range starts past the end")
                .with(header::CONTENT_RANGE, &format!("bytes */{len}"));
        }
    };
    let content_type = match (hostile.media_untyped, hostile.media_octet_stream) {
        (true, _) => None,
        (false, true) => Some("application/octet-stream"),
        (false, false) => Some(content_type(kind, hostile.media_wrong_type)),
    };
    let part_len = bytes.len().to_string();
    let mut r = Reply::new(status, bytes).with(header::ACCEPT_RANGES, "bytes").with(header::CONTENT_LENGTH, &part_len);
    if let Some(t) = content_type {
        r = r.with(header::CONTENT_TYPE, t);
    }
    if let Some(claim) = claim {
        r = r.with(header::CONTENT_RANGE, &claim);
    }
    if hostile.media_slow {
        r.delivery = Delivery::Raw { pace: Some(hostile.slow_bytes_every), extra: 0 };
    }
    if *method == Method::HEAD {
        r.body = Bytes::new();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wav_header_states_the_duration() {
        let w = wav(3);
        assert_eq!(&w[..4], b"RIFF");
        assert_eq!(&w[8..16], b"WAVEfmt ");
        let le32 = |at: usize| u32::from_le_bytes([w[at], w[at + 1], w[at + 2], w[at + 3]]);
        assert_eq!(le32(4) as usize, w.len() - 8);
        let (byte_rate, data) = (le32(28), le32(40));
        assert_eq!(data / byte_rate, 3);
        assert_eq!(w.len(), 44 + 24_000);
    }

    #[test]
    fn moov_last_keeps_the_media_data_where_its_offsets_say() {
        let spec = VideoSpec { width: 64, height: 64, seconds: 2, seed: 0, label: "t".into() };
        let first = video::render_mp4(&spec);
        let last = moov_last(&first);
        assert_eq!(first.len(), last.len());
        let kinds: Vec<&[u8]> = {
            let mut at = 0;
            let mut out = Vec::new();
            while at + 8 <= last.len() {
                out.push(&last[at + 4..at + 8]);
                at += u32::from_be_bytes([last[at], last[at + 1], last[at + 2], last[at + 3]]) as usize;
            }
            out
        };
        assert_eq!(kinds, [&b"ftyp"[..], b"free", b"mdat", b"moov"]);
        let offset = |file: &[u8]| {
            let at = file.windows(4).position(|w| w == b"stco").expect("stco") + 12;
            u32::from_be_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]) as usize
        };
        let (a, b) = (offset(&first), offset(&last));
        assert_eq!(first[a..a + 64], last[b..b + 64], "the first chunk is found where the moved offset says");
        assert_eq!(moov_last(b"not an mp4 at all"), b"not an mp4 at all");
    }

    #[test]
    fn png_chunks_have_valid_checksums() {
        fn crc32(bytes: &[u8]) -> u32 {
            let mut crc = !0u32;
            for b in bytes {
                crc ^= u32::from(*b);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
                }
            }
            !crc
        }
        assert_eq!(&PNG[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < PNG.len() {
            let len = u32::from_be_bytes([PNG[at], PNG[at + 1], PNG[at + 2], PNG[at + 3]]) as usize;
            let body = &PNG[at + 4..at + 8 + len];
            let crc =
                u32::from_be_bytes([PNG[at + 8 + len], PNG[at + 9 + len], PNG[at + 10 + len], PNG[at + 11 + len]]);
            assert_eq!(crc32(body), crc);
            kinds.push(String::from_utf8_lossy(&body[..4]).into_owned());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
    }
}
