//! Duration from a WAV header: the `data` chunk's size over the `fmt ` chunk's byte rate.

fn le32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at.checked_add(4)?).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Seconds of a WAV file from its first bytes; `length` (of the whole file) stands in for a
/// `data` size that streaming writers leave as 0 or 0xFFFFFFFF.
pub fn seconds(b: &[u8], length: Option<u64>) -> Option<f64> {
    if !(b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WAVE")) {
        return None;
    }
    let mut at = 12usize;
    let mut byte_rate = None;
    while let (Some(id), Some(size)) = (b.get(at..at + 4), le32(b, at + 4)) {
        match id {
            b"fmt " => byte_rate = le32(b, at + 16).filter(|r| *r > 0),
            b"data" => {
                let rate = f64::from(byte_rate?);
                let data = match size {
                    0 | u32::MAX => length?.checked_sub(at as u64 + 8)?,
                    n => u64::from(n),
                };
                let s = data as f64 / rate;
                return (s > 0.0).then_some(s);
            }
            _ => {}
        }
        // Chunks are padded to an even length.
        at = at.checked_add(8)?.checked_add(size as usize + (size as usize & 1))?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(byte_rate: u32, data: u32, extra: &[u8]) -> Vec<u8> {
        let mut out = b"RIFF\0\0\0\0WAVE".to_vec();
        out.extend_from_slice(extra);
        out.extend_from_slice(b"fmt \x10\0\0\0\x01\0\x01\0");
        out.extend_from_slice(&byte_rate.to_le_bytes());
        out.extend_from_slice(&byte_rate.to_le_bytes());
        out.extend_from_slice(b"\x01\0\x08\0data");
        out.extend_from_slice(&data.to_le_bytes());
        out
    }

    #[test]
    fn wav_durations() {
        let list = b"LIST\x03\0\0\0abc\0";
        type Case = (&'static str, Vec<u8>, Option<u64>, Option<f64>);
        let cases: Vec<Case> = vec![
            ("plain", wav(8000, 24_000, &[]), None, Some(3.0)),
            ("odd chunk before fmt", wav(16_000, 8_000, list), None, Some(0.5)),
            ("streamed: size from length", wav(8000, u32::MAX, &[]), Some(44 + 16_000), Some(2.0)),
            ("streamed, length unknown", wav(8000, 0, &[]), None, None),
            ("zero byte rate", wav(0, 8000, &[]), None, None),
            ("cut before data", wav(8000, 8000, &[])[..30].to_vec(), None, None),
            ("not a wav", b"RIFF\0\0\0\0WEBPVP8 ".to_vec(), None, None),
        ];
        for (name, bytes, length, want) in cases {
            assert_eq!(seconds(&bytes, length), want, "{name}");
        }
        let sim = wav(reel_sim::MEDIA_WAV_RATE, 3 * reel_sim::MEDIA_WAV_RATE, &[]);
        assert_eq!(seconds(&sim, None), Some(3.0));
    }
}
