//! The `Range` request header (single byte ranges, RFC 9110 section 14).

/// What to send for a `Range` header against a file of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAnswer {
    /// No usable range: send the whole file with 200.
    Whole,
    /// Send bytes `start..=end` with 206.
    Part { start: u64, end: u64 },
    /// 416: the range starts past the end.
    Unsatisfiable,
}

pub fn answer(header: Option<&str>, len: u64) -> RangeAnswer {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return RangeAnswer::Whole;
    };
    if spec.contains(',') {
        return RangeAnswer::Whole;
    }
    let Some((first, last)) = spec.split_once('-') else {
        return RangeAnswer::Whole;
    };
    let (first, last) = (first.trim(), last.trim());
    let parsed = match (first.parse::<u64>().ok(), last.parse::<u64>().ok()) {
        (Some(a), None) if last.is_empty() => Some((a, len.saturating_sub(1))),
        (Some(a), Some(b)) if a <= b => Some((a, b.min(len.saturating_sub(1)))),
        (None, Some(n)) if first.is_empty() && n > 0 => Some((len.saturating_sub(n), len.saturating_sub(1))),
        _ => None,
    };
    match parsed {
        None => RangeAnswer::Whole,
        Some((start, _)) if start >= len => RangeAnswer::Unsatisfiable,
        Some((start, end)) => RangeAnswer::Part { start, end },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RangeAnswer::*;

    #[test]
    fn ranges() {
        let cases = [
            (None, Whole),
            (Some("bytes=0-"), Part { start: 0, end: 99 }),
            (Some("bytes=10-"), Part { start: 10, end: 99 }),
            (Some("bytes=10-19"), Part { start: 10, end: 19 }),
            (Some("bytes=90-200"), Part { start: 90, end: 99 }),
            (Some("bytes=-10"), Part { start: 90, end: 99 }),
            (Some("bytes=-500"), Part { start: 0, end: 99 }),
            (Some("bytes=99-"), Part { start: 99, end: 99 }),
            (Some("bytes=100-"), Unsatisfiable),
            (Some("bytes=20-10"), Whole),
            (Some("bytes=0-1,5-6"), Whole),
            (Some("items=0-1"), Whole),
            (Some("bytes=x-"), Whole),
        ];
        for (header, want) in cases {
            assert_eq!(answer(header, 100), want, "{header:?}");
        }
    }
}
