//! Frame sizes: a resolution (`720P`) and a ratio (`16:9`) as `WIDTHxHEIGHT` and back, a size
//! read in any of the spellings services use (`1280x720`, `1280*720`, `720P`), and whether a
//! size is what a resolution and ratio asked for.

/// `WIDTHxHEIGHT` for a resolution (`720P`) and a fixed ratio (`16:9`): the short side is the
/// resolution, the long side the ratio's, rounded to an even number of pixels.
pub fn size_of(resolution: &str, ratio: &str) -> Option<String> {
    let short = short_side(resolution)?;
    let (a, b) = ratio_parts(ratio)?;
    let long = |num: u32, den: u32| {
        let exact = f64::from(short) * f64::from(num) / f64::from(den);
        (exact / 2.0).round() as u32 * 2
    };
    Some(if a >= b { format!("{}x{short}", long(a, b)) } else { format!("{short}x{}", long(b, a)) })
}

/// The resolution and ratio of a `WIDTHxHEIGHT` (the reverse of [`size_of`]), among `ratios`.
pub fn resolution_of(size: &str, ratios: &[&str]) -> Option<(String, String)> {
    let Frame::Pixels(w, h) = frame(size)? else { return None };
    let short = w.min(h);
    let resolution = format!("{short}P");
    let ratio = ratios.iter().find(|r| size_of(&resolution, r).as_deref() == Some(&format!("{w}x{h}")))?;
    Some((resolution, (*ratio).to_string()))
}

/// `720` of `720P`.
fn short_side(resolution: &str) -> Option<u32> {
    let n: u32 = resolution.trim().strip_suffix(['P', 'p'])?.parse().ok()?;
    (n > 0).then_some(n)
}

/// `(16, 9)` of `16:9`; none for `adaptive`.
fn ratio_parts(ratio: &str) -> Option<(u32, u32)> {
    let (a, b) = ratio.split_once(':')?;
    let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a > 0 && b > 0).then_some((a, b))
}

/// A frame as a service names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// Width and height in pixels.
    Pixels(u32, u32),
    /// Only a resolution's short side (`720P`).
    Resolution(u32),
}

impl Frame {
    /// As every view writes it: `1280x720`, `720P`.
    pub fn text(self) -> String {
        match self {
            Frame::Pixels(w, h) => format!("{w}x{h}"),
            Frame::Resolution(n) => format!("{n}P"),
        }
    }

    /// The resolution it is named by (its short side): `1080P` of `1920x1080`.
    pub fn resolution(self) -> String {
        match self {
            Frame::Pixels(w, h) => format!("{}P", w.min(h)),
            Frame::Resolution(n) => format!("{n}P"),
        }
    }

    /// The ratio it is: the nearest of the spec's fixed ratios, else its own (`7:4`); none for a
    /// resolution alone.
    pub fn ratio(self) -> Option<String> {
        let Frame::Pixels(w, h) = self else { return None };
        let shape = f64::from(w) / f64::from(h);
        let known = crate::Ratio::ALL
            .iter()
            .map(|r| r.as_str())
            .find(|r| ratio_parts(r).is_some_and(|(a, b)| near(shape, f64::from(a) / f64::from(b), RATIO_TOLERANCE)));
        let gcd = |mut a: u32, mut b: u32| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a.max(1)
        };
        let g = gcd(w, h);
        Some(known.map_or_else(|| format!("{}:{}", w / g, h / g), str::to_string))
    }

    /// `portrait`, `landscape` or `square`, for pixels.
    pub fn orientation(self) -> Option<&'static str> {
        match self {
            Frame::Pixels(w, h) if w > h => Some("landscape"),
            Frame::Pixels(w, h) if w < h => Some("portrait"),
            Frame::Pixels(..) => Some("square"),
            Frame::Resolution(_) => None,
        }
    }
}

/// A size in any spelling services send: `1280x720`, `1280X720`, `1280*720`, `1280 x 720`,
/// `1280×720`, or a resolution (`720P`, `720p`).
pub fn frame(text: &str) -> Option<Frame> {
    let text = text.trim();
    if let Some(n) = short_side(text) {
        return Some(Frame::Resolution(n));
    }
    let (w, h) = text.split_once(['x', 'X', '*', '×'])?;
    let (w, h): (u32, u32) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0 && w <= 100_000 && h <= 100_000).then_some(Frame::Pixels(w, h))
}

/// How far a short side may be from the resolution's and still be it (encoders round: 480P
/// at 16:9 is 854x480 or 832x480).
const SIDE_TOLERANCE: f64 = 0.03;
/// How far a frame's area may be from the resolution's at 16:9: services that keep the pixel
/// count across ratios (Wan's 720P at 1:1 is 960x960) name the resolution by it.
const AREA_TOLERANCE: f64 = 0.08;
/// How far the width over height may be from the ratio asked (Wan's 4:3 at 720P is 1088x832).
const RATIO_TOLERANCE: f64 = 0.04;

fn near(value: f64, target: f64, tolerance: f64) -> bool {
    target > 0.0 && ((value - target) / target).abs() <= tolerance
}

/// Whether `rendered` is what `resolution` and `ratio` asked for. What cannot be compared (a
/// resolution or size reel cannot read, an `adaptive` ratio against the shape) counts as
/// matching: only a difference the service's own words show is one.
pub fn matches(resolution: &str, ratio: &str, rendered: Frame) -> bool {
    let Some(short) = short_side(resolution) else { return true };
    let short = f64::from(short);
    match rendered {
        Frame::Resolution(n) => near(f64::from(n), short, SIDE_TOLERANCE),
        Frame::Pixels(w, h) => {
            let (w, h) = (f64::from(w), f64::from(h));
            let resolution_ok =
                near(w.min(h), short, SIDE_TOLERANCE) || near(w * h, short * short * 16.0 / 9.0, AREA_TOLERANCE);
            let ratio_ok =
                ratio_parts(ratio).is_none_or(|(a, b)| near(w / h, f64::from(a) / f64::from(b), RATIO_TOLERANCE));
            resolution_ok && ratio_ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_every_spelling() {
        let cases = [
            ("1280x720", Some(Frame::Pixels(1280, 720))),
            ("1920*1080", Some(Frame::Pixels(1920, 1080))),
            (" 720 X 1280 ", Some(Frame::Pixels(720, 1280))),
            ("1280×720", Some(Frame::Pixels(1280, 720))),
            ("720P", Some(Frame::Resolution(720))),
            ("1080p", Some(Frame::Resolution(1080))),
            ("0x720", None),
            ("wide", None),
            ("1280x", None),
            ("-5x3", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(frame(text), want, "{text:?}");
        }
        assert_eq!(Frame::Pixels(720, 1280).orientation(), Some("portrait"));
        assert_eq!(Frame::Pixels(960, 960).orientation(), Some("square"));
        assert_eq!(Frame::Resolution(720).text(), "720P");
        let named = |f: Frame| (f.resolution(), f.ratio());
        assert_eq!(named(Frame::Pixels(1920, 1080)), ("1080P".into(), Some("16:9".into())));
        assert_eq!(named(Frame::Pixels(720, 1280)), ("720P".into(), Some("9:16".into())));
        assert_eq!(named(Frame::Pixels(1088, 832)), ("832P".into(), Some("4:3".into())));
        assert_eq!(named(Frame::Pixels(1792, 1024)), ("1024P".into(), Some("16:9".into())), "near enough");
        assert_eq!(named(Frame::Pixels(2000, 1000)), ("1000P".into(), Some("2:1".into())));
        assert_eq!(named(Frame::Resolution(1080)), ("1080P".into(), None));
    }

    #[test]
    fn what_a_resolution_and_ratio_asked_for() {
        let cases = [
            ("720P", "16:9", "1280x720", true),
            ("720P", "16:9", "1280*720", true),
            ("480P", "16:9", "854x480", true),
            ("480P", "16:9", "832x480", true),
            ("720P", "1:1", "720x720", true),
            // Wan keeps the pixel count: 720P at 1:1 is 960x960, at 4:3 1088x832.
            ("720P", "1:1", "960x960", true),
            ("720P", "4:3", "1088x832", true),
            ("1080P", "1:1", "1440x1440", true),
            ("720P", "adaptive", "1280x720", true),
            ("720P", "adaptive", "720x1280", true),
            ("720P", "16:9", "720P", true),
            ("HD", "16:9", "1920x1080", true),
            // The two: the metadata dropped, the vendor's defaults rendered.
            ("720P", "16:9", "1920x1080", false),
            ("720P", "16:9", "720x1280", false),
            ("720P", "1:1", "1920x1080", false),
            ("720P", "16:9", "1080P", false),
            ("1080P", "16:9", "1280x720", false),
            ("720P", "9:16", "1280x720", false),
            ("720P", "4:3", "1280x720", false),
            ("480P", "1:1", "1280x720", false),
        ];
        for (resolution, ratio, size, want) in cases {
            let f = frame(size).expect("a size");
            assert_eq!(matches(resolution, ratio, f), want, "{resolution} {ratio} vs {size}");
        }
    }
}
