//! The content key of a task: a stable hash of what it asks for, so that a batch file run
//! again can tell the tasks it already sent from the new ones.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::rules::ValidSubmission;

/// Only what the task asks the service for: the same request gives the same key, whatever
/// journaled it. A local file counts by its path, since each upload signs a new URL.
#[derive(Serialize)]
struct Content<'a> {
    model: String,
    prompt: &'a str,
    negative_prompt: Option<&'a str>,
    seconds: i64,
    resolution: &'static str,
    ratio: &'static str,
    watermark: bool,
    media: Vec<(&'static str, &'a str, Option<f64>)>,
}

/// Hex SHA-256 of the submission's content as JSON.
pub fn content_key(s: &ValidSubmission) -> String {
    let content = Content {
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
            .map(|m| (m.kind.as_str(), m.local.as_ref().map_or(m.url.as_str(), |l| l.path.as_str()), m.seconds))
            .collect(),
    };
    // Plain data of strings and numbers: serializing it cannot fail.
    let json = serde_json::to_vec(&content).unwrap_or_default();
    Sha256::digest(&json).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Catalog, Draft, UnknownModels, validate};

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
