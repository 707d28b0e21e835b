//! Reference media with known durations for preflight checks: `/media/NAME.mp4?seconds=7`,
//! `/media/NAME.png`, `/media/NAME.wav?seconds=3`, by GET or HEAD, no key needed.

use bytes::Bytes;
use hyper::header;
use hyper::{Method, StatusCode};

use super::hostile::Hostile;
use super::reply::Reply;
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

pub fn serve(state: &State, hostile: &Hostile, method: &Method, query: &str, kind: MediaKind) -> Reply {
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
    let len = bytes.len().to_string();
    let mut r = Reply::new(StatusCode::OK, bytes)
        .with(header::CONTENT_TYPE, content_type(kind, hostile.media_wrong_type))
        .with(header::CONTENT_LENGTH, &len);
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
