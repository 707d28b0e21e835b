//! The content key of a task: a stable hash of what it asks for, so that a batch file run
//! again can tell the tasks it already sent from the new ones.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::ValidSubmission;

/// What a task asks the service for: the same request has the same content, whatever
/// journaled it. A local file counts by its path, since each upload signs a new URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Content<'a> {
    pub model: String,
    pub prompt: &'a str,
    pub negative_prompt: Option<&'a str>,
    pub seconds: i64,
    pub resolution: &'static str,
    pub ratio: &'static str,
    pub watermark: bool,
    pub media: Vec<MediaContent<'a>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MediaContent<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The URL, or the local file as named.
    pub url: &'a str,
    pub seconds: Option<f64>,
}

impl<'a> Content<'a> {
    pub fn of(s: &'a ValidSubmission) -> Content<'a> {
        Content {
            model: s.model.to_string(),
            prompt: &s.prompt,
            negative_prompt: s.negative_prompt.as_deref(),
            seconds: s.seconds,
            resolution: s.resolution.as_str(),
            ratio: s.ratio.as_str(),
            watermark: s.watermark,
            media: s
                .media
                .iter()
                .map(|m| MediaContent {
                    kind: m.kind.as_str(),
                    url: m.local.as_ref().map_or(m.url.as_str(), |l| l.path.as_str()),
                    seconds: m.seconds,
                })
                .collect(),
        }
    }
}

/// Hex SHA-256 of the submission's content as JSON.
pub fn content_key(s: &ValidSubmission) -> String {
    // Plain data of strings and numbers: serializing it cannot fail.
    let json = serde_json::to_vec(&Content::of(s)).unwrap_or_default();
    Sha256::digest(&json).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, Draft, UnknownModels, validate};

    fn key(f: impl FnOnce(&mut Draft)) -> String {
        let mut d = Draft { model: "acme/aurora-3.0/text-to-video".into(), prompt: "a fox".into(), ..Draft::default() };
        f(&mut d);
        content_key(&validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect("valid"))
    }

    #[test]
    fn same_content_same_key_and_every_field_counts() {
        let base = key(|_| {});
        assert_eq!(base.len(), 64);
        assert_eq!(base, key(|d| d.seconds = Some("5".into())), "the default spelled out is the same task");
        type Change = Box<dyn FnOnce(&mut Draft)>;
        let changed: [(&str, Change); 6] = [
            ("prompt", Box::new(|d| d.prompt = "a wolf".into())),
            ("negative", Box::new(|d| d.negative_prompt = "blur".into())),
            ("seconds", Box::new(|d| d.seconds = Some("10".into()))),
            ("resolution", Box::new(|d| d.resolution = Some("1080P".into()))),
            ("ratio", Box::new(|d| d.ratio = Some("16:9".into()))),
            ("watermark", Box::new(|d| d.watermark = Some(true))),
        ];
        for (name, change) in changed {
            assert_ne!(key(change), base, "{name}");
        }
    }
}
