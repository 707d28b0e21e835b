//! Pure rules of the storage: which files a media type takes and their content type, the
//! content-addressed object key, and how long a presigned URL lives.

use std::path::Path;
use std::time::Duration;

use reel_rules::params::MediaKind;

/// Extensions and the content type stored with them, by family.
const IMAGES: &[(&str, &str)] = &[
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("png", "image/png"),
    ("webp", "image/webp"),
    ("gif", "image/gif"),
];
const VIDEOS: &[(&str, &str)] = &[
    ("mp4", "video/mp4"),
    ("m4v", "video/mp4"),
    ("mov", "video/quicktime"),
    ("webm", "video/webm"),
    ("mkv", "video/x-matroska"),
];
const AUDIO: &[(&str, &str)] = &[
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("m4a", "audio/mp4"),
    ("aac", "audio/aac"),
    ("ogg", "audio/ogg"),
    ("opus", "audio/ogg"),
    ("flac", "audio/flac"),
];

fn family(kind: MediaKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        MediaKind::ReferenceImage | MediaKind::FirstFrame => IMAGES,
        MediaKind::ReferenceVideo => VIDEOS,
        MediaKind::ReferenceAudio => AUDIO,
    }
}

/// The file name's extension, lowercased; `None` without one.
pub fn extension(path: &Path) -> Option<String> {
    path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).filter(|e| !e.is_empty())
}

/// The content type to store a file of `kind` with; `None` when `kind` does not take it.
pub fn content_type(kind: MediaKind, ext: Option<&str>) -> Option<&'static str> {
    ext.and_then(|e| family(kind).iter().find(|(x, _)| *x == e)).map(|(_, ct)| *ct)
}

/// The extensions `kind` takes, for a message: ".a, .b".
pub fn accepted(kind: MediaKind) -> String {
    family(kind).iter().map(|(x, _)| format!(".{x}")).collect::<Vec<_>>().join(", ")
}

/// `<prefix>/<sha256>.<ext>`: the same bytes always land on the same key.
pub fn object_key(prefix: &str, sha256_hex: &str, ext: &str) -> String {
    let prefix = prefix.trim_matches('/');
    if prefix.is_empty() { format!("{sha256_hex}.{ext}") } else { format!("{prefix}/{sha256_hex}.{ext}") }
}

/// S3 refuses presigned URLs that live longer than 7 days.
pub const MAX_URL_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

/// Added to the client timeout: the provider may fetch the media late in the task's life, and
/// a re-run soon after should still find the URL working.
pub const URL_LIFETIME_MARGIN: Duration = Duration::from_secs(3600);

/// Between 1 s and 7 days.
pub fn clamp_lifetime(lifetime: Duration) -> Duration {
    lifetime.clamp(Duration::from_secs(1), MAX_URL_LIFETIME)
}

/// The lifetime of a presigned URL for a task whose client timeout is `client_timeout`.
pub fn url_lifetime(client_timeout: Duration) -> Duration {
    clamp_lifetime(client_timeout.saturating_add(URL_LIFETIME_MARGIN))
}

/// When a URL signed at `now` to live `lifetime` stops working: never after the credentials
/// that signed it expire.
pub fn url_expiry(
    now: jiff::Timestamp,
    lifetime: Duration,
    credentials_expire: Option<jiff::Timestamp>,
) -> jiff::Timestamp {
    let lifetime = jiff::SignedDuration::try_from(clamp_lifetime(lifetime)).unwrap_or(jiff::SignedDuration::ZERO);
    let end = now.checked_add(lifetime).unwrap_or(jiff::Timestamp::MAX);
    credentials_expire.map_or(end, |c| end.min(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_follow_the_media_type() {
        let cases: &[(MediaKind, Option<&str>, Option<&str>)] = &[
            (MediaKind::ReferenceImage, Some("png"), Some("image/png")),
            (MediaKind::FirstFrame, Some("jpeg"), Some("image/jpeg")),
            (MediaKind::ReferenceVideo, Some("mov"), Some("video/quicktime")),
            (MediaKind::ReferenceAudio, Some("mp3"), Some("audio/mpeg")),
            (MediaKind::ReferenceImage, Some("mp4"), None),
            (MediaKind::ReferenceAudio, None, None),
        ];
        for (kind, ext, want) in cases {
            assert_eq!(content_type(*kind, *ext), *want, "{kind:?} {ext:?}");
        }
        assert_eq!(accepted(MediaKind::ReferenceImage), ".jpg, .jpeg, .png, .webp, .gif");
        assert_eq!(accepted(MediaKind::FirstFrame), accepted(MediaKind::ReferenceImage));
        assert_eq!(accepted(MediaKind::ReferenceAudio), ".mp3, .wav, .m4a, .aac, .ogg, .opus, .flac");
    }

    #[test]
    fn extensions_are_lowercased() {
        let cases = [("a/Photo.JPG", Some("jpg")), ("clip.tar.MP4", Some("mp4")), ("noext", None), ("dot.", None)];
        for (path, want) in cases {
            assert_eq!(extension(Path::new(path)).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn keys_are_content_addressed_under_the_prefix() {
        let cases =
            [("reel", "ab", "png", "reel/ab.png"), ("/a/b/", "ab", "mp4", "a/b/ab.mp4"), ("", "ab", "wav", "ab.wav")];
        for (prefix, sha, ext, want) in cases {
            assert_eq!(object_key(prefix, sha, ext), want);
        }
    }

    #[test]
    fn lifetimes_cover_the_timeout_and_stay_within_seven_days() {
        let s = Duration::from_secs;
        let cases = [
            (s(0), s(1)),
            (s(600), s(600)),
            (MAX_URL_LIFETIME, MAX_URL_LIFETIME),
            (s(30 * 24 * 3600), MAX_URL_LIFETIME),
            (Duration::MAX, MAX_URL_LIFETIME),
        ];
        for (given, want) in cases {
            assert_eq!(clamp_lifetime(given), want, "{given:?}");
        }
        assert_eq!(url_lifetime(s(600)), s(600 + 3600));
        assert_eq!(url_lifetime(s(10 * 24 * 3600)), MAX_URL_LIFETIME);
    }

    #[test]
    fn urls_expire_with_their_lifetime_or_their_credentials() {
        let t = |secs: i64| jiff::Timestamp::from_second(1_800_000_000 + secs).expect("in range");
        let s = Duration::from_secs;
        let cases = [
            (s(3600), None, t(3600)),
            (s(3600), Some(t(600)), t(600)),
            (s(3600), Some(t(7200)), t(3600)),
            (s(30 * 24 * 3600), None, t(7 * 24 * 3600)),
        ];
        for (lifetime, credentials, want) in cases {
            assert_eq!(url_expiry(t(0), lifetime, credentials), want, "{lifetime:?} {credentials:?}");
        }
    }
}
