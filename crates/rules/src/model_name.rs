//! A model as its service names it: the spec's `<vendor>/<family>-<version>/<mode>`, or any
//! id a gateway uses (`sora-2`, `wan2.5-t2v-preview`, `openai/sora-2`). Any shape, but bounded
//! and safe to carry in a JSON string, a header and a terminal.

use std::fmt;

use thiserror::Error;

use super::model_id::{Mode, ModelId};

/// Longest model id reel sends or lists. Vendors' ids are a few dozen characters.
pub const MAX_MODEL_ID: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelNameError {
    #[error("the model id is empty")]
    Empty,
    #[error("the model id is {0} characters long; at most {MAX_MODEL_ID} are allowed")]
    TooLong(usize),
    #[error(
        "the model id holds {0:?} at character {1}; an id is printable ASCII without spaces, quotes or backslashes"
    )]
    BadCharacter(char, usize),
    #[error("the model id has an empty part between slashes (or a slash at an end)")]
    EmptyPart,
}

/// A model id that passed [`ModelName::new`]. `Display` gives back the exact id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelName(String);

impl ModelName {
    pub fn new(text: &str) -> Result<ModelName, ModelNameError> {
        if text.is_empty() {
            return Err(ModelNameError::Empty);
        }
        let chars = text.chars().count();
        if chars > MAX_MODEL_ID {
            return Err(ModelNameError::TooLong(chars));
        }
        // Printable ASCII only: nothing a header refuses, a JSON string must escape, or a
        // terminal takes as a control sequence.
        if let Some((at, c)) = text.chars().enumerate().find(|(_, c)| !c.is_ascii_graphic() || matches!(c, '"' | '\\'))
        {
            return Err(ModelNameError::BadCharacter(c, at + 1));
        }
        if text.split('/').any(str::is_empty) {
            return Err(ModelNameError::EmptyPart);
        }
        Ok(ModelName(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The mode the id itself says: the spec's third part, else a `t2v`, `i2v` or `r2v` word
    /// as vendors write it (`wan2.5-t2v-preview`).
    pub fn mode(&self) -> Option<Mode> {
        mode_in(&self.0)
    }
}

impl fmt::Display for ModelName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The mode an id names, if it names one (see [`ModelName::mode`]).
pub fn mode_in(id: &str) -> Option<Mode> {
    if let Ok(spec) = id.parse::<ModelId>() {
        return Some(spec.mode);
    }
    let words = id.split(['-', '_', '/', '.', ':']).map(str::to_ascii_lowercase);
    let named: Vec<Mode> = words
        .filter_map(|w| match w.as_str() {
            "t2v" => Some(Mode::TextToVideo),
            "i2v" => Some(Mode::ImageToVideo),
            "r2v" => Some(Mode::ReferenceToVideo),
            _ => None,
        })
        .collect();
    // An id naming two modes says nothing certain.
    match named.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_shape_within_bounds() {
        use ModelNameError::*;
        let long = "m".repeat(MAX_MODEL_ID + 1);
        let longest = "m".repeat(MAX_MODEL_ID);
        let cases: &[(&str, Result<(), ModelNameError>)] = &[
            ("acme/aurora-3.0/text-to-video", Ok(())),
            ("sora-2", Ok(())),
            ("wan2.5-t2v-preview", Ok(())),
            ("openai/sora-2", Ok(())),
            ("veo-3.0-generate-preview", Ok(())),
            ("models/veo:latest@v1+x", Ok(())),
            (longest.as_str(), Ok(())),
            ("", Err(Empty)),
            (long.as_str(), Err(TooLong(MAX_MODEL_ID + 1))),
            ("sora 2", Err(BadCharacter(' ', 5))),
            ("sora-2\n", Err(BadCharacter('\n', 7))),
            ("a\u{1b}[2J", Err(BadCharacter('\u{1b}', 2))),
            ("a\"b", Err(BadCharacter('"', 2))),
            ("a\\b", Err(BadCharacter('\\', 2))),
            ("sóra", Err(BadCharacter('ó', 2))),
            ("/sora-2", Err(EmptyPart)),
            ("openai//sora-2", Err(EmptyPart)),
            ("sora-2/", Err(EmptyPart)),
        ];
        for (text, want) in cases {
            let got = ModelName::new(text).map(|n| assert_eq!(n.to_string(), *text, "round trip"));
            assert_eq!(&got, want, "{text:?}");
        }
    }

    #[test]
    fn modes_the_id_names() {
        let cases = [
            ("acme/aurora-3.0/image-to-video", Some(Mode::ImageToVideo)),
            ("wan2.5-t2v-preview", Some(Mode::TextToVideo)),
            ("wan2.7-i2v", Some(Mode::ImageToVideo)),
            ("vidu/q1_r2v", Some(Mode::ReferenceToVideo)),
            ("WAN2.2-T2V-PLUS", Some(Mode::TextToVideo)),
            ("sora-2", None),
            ("kling-v2-1", None),
            ("x-t2v-i2v", None),
            ("t2vx", None),
        ];
        for (id, want) in cases {
            assert_eq!(mode_in(id), want, "{id}");
        }
    }
}
