//! Where downloaded videos go, and their sidecar files. Names are built only from local,
//! sanitized parts, so nothing a server sends can place a file outside the videos folder.

use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use reel_store::TaskRecord;

/// Longest prompt slug in a file name.
const SLUG_MAX: usize = 48;

/// Lower-case ASCII letters and digits joined by single dashes; "video" when nothing is left.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= SLUG_MAX {
            break;
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() { "video".to_string() } else { trimmed.to_string() }
}

/// `YYYY-MM-DD` of a Unix-ms time in the local time zone (UTC if it cannot be known).
pub fn local_date(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.to_zoned(reel_rules::text::local_zone()).strftime("%Y-%m-%d").to_string()
}

/// `<YYYY-MM-DD>/<local id>-<prompt slug>.mp4`, relative to the videos folder.
pub fn relative_video_path(task: &TaskRecord) -> PathBuf {
    PathBuf::from(local_date(task.created_at)).join(format!("{}-{}.mp4", task.id, slug(&task.prompt)))
}

/// True when `rel` is a plain relative path that stays inside its base.
pub fn stays_inside(rel: &Path) -> bool {
    rel.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The sidecar next to a video: the parameters and what the service said, never the key, and
/// every URL without its query or credentials (a signed URL's token would travel with a shared
/// folder), as in the file's own provenance.
pub fn sidecar(task: &TaskRecord) -> Value {
    let public = super::provenance::public_url;
    let media: Vec<reel_store::MediaRecord> =
        task.media.iter().map(|m| reel_store::MediaRecord { url: public(&m.url), ..m.clone() }).collect();
    json!({
        "id": task.id,
        "parent_id": task.parent_id,
        "batch_id": task.batch_id,
        "rating": task.review.rating,
        "tags": task.review.tags,
        "picked": task.review.picked,
        "remote_id": task.remote_id,
        "profile": task.profile,
        "base_url": public(&task.base_url),
        "model": task.model,
        "prompt": task.prompt,
        "negative_prompt": task.negative_prompt,
        "seconds": task.seconds,
        "resolution": task.resolution,
        "ratio": task.ratio,
        "watermark": task.watermark,
        "media": media,
        "billed_seconds": task.billed_seconds,
        "remote_status": task.remote_status,
        "created_at_ms": task.created_at,
        "submitted_at_ms": task.submitted_at,
        "remote_created_at": task.remote_created_at,
        "remote_completed_at": task.remote_completed_at,
        "url": task.url.as_deref().map(public),
        "file_size": task.file_size,
        "sha256": task.sha256,
        "file_sha256": task.file_sha256,
        "reel_version": env!("CARGO_PKG_VERSION"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        let cases = [
            ("A red fox, in SNOW!", "a-red-fox-in-snow"),
            ("../../etc/passwd", "etc-passwd"),
            ("  --  ", "video"),
            ("", "video"),
            ("日本の桜", "video"),
            ("café au lait", "caf-au-lait"),
            ("a\u{0}b\nc", "a-b-c"),
        ];
        for (text, want) in cases {
            assert_eq!(slug(text), want, "{text:?}");
        }
        assert!(slug(&"x".repeat(500)).len() <= SLUG_MAX);
    }

    #[test]
    fn a_sidecar_carries_no_signed_url_token() {
        let mut t = reel_store::fixtures::record(3, reel_store::LocalState::Downloaded);
        t.url = Some("https://cdn.example.com/v/3.mp4?expires=1&sig=s3cr3t".into());
        t.base_url = "https://user:pw@api.example.com/".into();
        t.media = vec![reel_store::MediaRecord {
            kind: "first_frame".into(),
            url: "https://b.example.com/still.png?token=t0k3n#x".into(),
            seconds: None,
            local: None,
        }];
        let text = sidecar(&t).to_string();
        for secret in ["s3cr3t", "t0k3n", "expires=", "pw@", "user"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let v = sidecar(&t);
        assert_eq!(v["url"], "https://cdn.example.com/v/3.mp4");
        assert_eq!(v["media"][0]["url"], "https://b.example.com/still.png");
        assert_eq!(v["base_url"], "https://api.example.com/");
    }

    #[test]
    fn paths_stay_inside() {
        assert!(stays_inside(Path::new("2026-11-22/4-a.mp4")));
        for bad in ["../x.mp4", "/etc/x", "a/../../b", "./a"] {
            assert!(!stays_inside(Path::new(bad)), "{bad}");
        }
        assert_eq!(local_date(0).len(), 10);
    }
}
