//! A model as a user may type it: the full id, or a unique suffix of one (`aurora-3.0/t2v`,
//! `aurora-3.0/text-to-video`, `swift-1.5/i2v`), resolved against the catalog's ids.

use thiserror::Error;

/// Short names of the modes, as video tools write them.
const MODE_ABBREVIATIONS: [(&str, &str); 3] =
    [("t2v", "text-to-video"), ("i2v", "image-to-video"), ("r2v", "reference-to-video-global")];

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelChoiceError {
    #[error("no model is named; give --model (or -m), or set [defaults] model in the config file")]
    Missing,
    #[error("model \"{given}\" matches {}: name one of them", candidates.join(", "))]
    Ambiguous { given: String, candidates: Vec<String> },
    #[error("no known model ends with \"{given}\"; the models are {} (see reel models)", known.join(", "))]
    Unknown { given: String, known: Vec<String> },
}

/// The catalog id `text` names. An id the catalog lacks is given back as typed (validation warns
/// about unknown models, it does not refuse them), unless it reads as a short form of the spec's
/// ids (its last part a mode, `nope/t2v`), which is then an unknown short form.
pub fn choose_model(text: &str, known: &[&str]) -> Result<String, ModelChoiceError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ModelChoiceError::Missing);
    }
    if known.contains(&text) {
        return Ok(text.to_string());
    }
    let wanted = parts(text);
    let matches: Vec<String> =
        known.iter().filter(|id| ends_with(&parts(id), &wanted)).map(|id| (*id).to_string()).collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] if text.split('/').count() >= 3 || !names_mode(&wanted) => Ok(text.to_string()),
        [] => Err(ModelChoiceError::Unknown {
            given: text.to_string(),
            known: known.iter().map(|id| (*id).to_string()).collect(),
        }),
        _ => Err(ModelChoiceError::Ambiguous { given: text.to_string(), candidates: matches }),
    }
}

/// The id's parts, the last (the mode) written out in full.
fn parts(id: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = id.split('/').collect();
    if let Some(last) = parts.last_mut()
        && let Some((_, full)) = MODE_ABBREVIATIONS.iter().find(|(short, _)| short.eq_ignore_ascii_case(last))
    {
        *last = full;
    }
    parts
}

/// Whether the last part is a mode (`t2v`, `text-to-video`): a short form of a spec id.
fn names_mode(parts: &[&str]) -> bool {
    parts.last().is_some_and(|last| MODE_ABBREVIATIONS.iter().any(|(_, full)| full == last))
}

/// Whole parts only: `3.0/text-to-video` is no suffix of `acme/aurora-3.0/text-to-video`.
fn ends_with(id: &[&str], suffix: &[&str]) -> bool {
    suffix.len() <= id.len() && id[id.len() - suffix.len()..] == *suffix
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 5] = [
        "acme/aurora-3.0/text-to-video",
        "acme/aurora-3.0/image-to-video",
        "acme/aurora-2.7/text-to-video",
        "acme/swift-1.5/text-to-video",
        "other/aurora-3.0/text-to-video",
    ];

    #[test]
    fn suffixes_resolve_when_unique() {
        let aurora = "acme/aurora-3.0/image-to-video";
        let cases: &[(&str, Result<&str, &[&str]>)] = &[
            ("acme/aurora-3.0/text-to-video", Ok("acme/aurora-3.0/text-to-video")),
            ("aurora-3.0/i2v", Ok(aurora)),
            ("aurora-3.0/image-to-video", Ok(aurora)),
            ("acme/aurora-3.0/i2v", Ok(aurora)),
            ("AURORA-3.0/I2V", Err(&[])),
            ("  swift-1.5/t2v ", Ok("acme/swift-1.5/text-to-video")),
            ("aurora-2.7/T2V", Ok("acme/aurora-2.7/text-to-video")),
            ("i2v", Ok(aurora)),
            // Two vendors have aurora-3.0 text-to-video: both are named.
            ("aurora-3.0/t2v", Err(&["acme/aurora-3.0/text-to-video", "other/aurora-3.0/text-to-video"])),
            (
                "t2v",
                Err(&[
                    "acme/aurora-3.0/text-to-video",
                    "acme/aurora-2.7/text-to-video",
                    "acme/swift-1.5/text-to-video",
                    "other/aurora-3.0/text-to-video",
                ]),
            ),
            ("3.0/t2v", Err(&[])),
            ("nope/text-to-video", Err(&[])),
            // Ids of any other shape are the service's to know: sent as given, with a warning.
            ("sora-2", Ok("sora-2")),
            ("openai/sora-2", Ok("openai/sora-2")),
            ("wan2.5-t2v-preview", Ok("wan2.5-t2v-preview")),
            ("aurora/t2v", Err(&[])),
            ("swift-1.5/r2v", Err(&[])),
            // A full id the catalog lacks goes on, for validation to warn about.
            ("new/vid-9.0/text-to-video", Ok("new/vid-9.0/text-to-video")),
        ];
        for (text, want) in cases {
            let got = choose_model(text, &KNOWN);
            match (&got, want) {
                (Ok(id), Ok(w)) => assert_eq!(id, w, "{text}"),
                (Err(ModelChoiceError::Ambiguous { candidates, .. }), Err(w)) if !w.is_empty() => {
                    assert_eq!(candidates, w, "{text}")
                }
                (Err(ModelChoiceError::Unknown { known, .. }), Err([])) => {
                    assert_eq!(known.len(), KNOWN.len(), "{text}: every model is listed")
                }
                _ => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn messages_say_what_to_do() {
        assert!(choose_model(" ", &KNOWN).expect_err("empty").to_string().contains("[defaults] model"));
        let ambiguous = choose_model("aurora-3.0/t2v", &KNOWN).expect_err("two").to_string();
        assert!(ambiguous.contains("acme/aurora-3.0/text-to-video, other/aurora-3.0/text-to-video"), "{ambiguous}");
        let unknown = choose_model("nope/t2v", &KNOWN).expect_err("none").to_string();
        assert!(unknown.contains("no known model ends with \"nope/t2v\"") && unknown.contains("reel models"));
    }
}
