//! Model ids of the form `<vendor>/<family>-<version>/<mode>` (spec section 2).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// The generation modes the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    TextToVideo,
    ImageToVideo,
    ReferenceToVideo,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::TextToVideo, Mode::ImageToVideo, Mode::ReferenceToVideo];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::TextToVideo => "text-to-video",
            Mode::ImageToVideo => "image-to-video",
            Mode::ReferenceToVideo => "reference-to-video-global",
        }
    }

    pub fn parse(text: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == text)
    }
}

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelIdError {
    #[error("a model id has three parts, <vendor>/<family>-<version>/<mode>; this one has {0}")]
    WrongShape(usize),
    #[error("the {0} part of the model id is empty")]
    EmptyPart(&'static str),
    #[error("a model id may not contain spaces or control characters")]
    BadCharacter,
    #[error("the middle part is <family>-<version> (for example aurora-3.0); \"{0}\" has no version")]
    MissingVersion(String),
    #[error("unknown mode \"{0}\"; the modes are text-to-video, image-to-video and reference-to-video-global")]
    UnknownMode(String),
}

/// A parsed model id. `Display` gives back the exact id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelId {
    pub vendor: String,
    pub family: String,
    pub version: String,
    pub mode: Mode,
}

impl ModelId {
    /// The version series, `major.minor` (the spec's "3.0 series", "2.7 series").
    pub fn series(&self) -> String {
        self.version.split('.').take(2).collect::<Vec<_>>().join(".")
    }
}

impl FromStr for ModelId {
    type Err = ModelIdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ModelIdError::BadCharacter);
        }
        let parts: Vec<&str> = text.split('/').collect();
        let [vendor, family_version, mode] = parts.as_slice() else {
            return Err(ModelIdError::WrongShape(parts.len()));
        };
        for (part, name) in [(vendor, "vendor"), (family_version, "family"), (mode, "mode")] {
            if part.is_empty() {
                return Err(ModelIdError::EmptyPart(name));
            }
        }
        let (family, version) = family_version
            .rsplit_once('-')
            .filter(|(f, v)| !f.is_empty() && !v.is_empty())
            .ok_or_else(|| ModelIdError::MissingVersion((*family_version).to_string()))?;
        let mode = Mode::parse(mode).ok_or_else(|| ModelIdError::UnknownMode((*mode).to_string()))?;
        Ok(ModelId { vendor: (*vendor).to_string(), family: family.to_string(), version: version.to_string(), mode })
    }
}

impl fmt::Display for ModelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}-{}/{}", self.vendor, self.family, self.version, self.mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Parts<'a> = (&'a str, &'a str, &'a str, Mode);

    #[test]
    fn parses_and_rejects() {
        use ModelIdError::*;
        let cases: &[(&str, Result<Parts, ModelIdError>)] = &[
            ("acme/aurora-3.0/text-to-video", Ok(("acme", "aurora", "3.0", Mode::TextToVideo))),
            ("acme/aurora-2.7/image-to-video", Ok(("acme", "aurora", "2.7", Mode::ImageToVideo))),
            ("v/wan-x-2.7.1/reference-to-video-global", Ok(("v", "wan-x", "2.7.1", Mode::ReferenceToVideo))),
            ("acme/aurora-3.0", Err(WrongShape(2))),
            ("a/b-1/text-to-video/x", Err(WrongShape(4))),
            ("/aurora-3.0/text-to-video", Err(EmptyPart("vendor"))),
            ("acme//text-to-video", Err(EmptyPart("family"))),
            ("acme/aurora-3.0/", Err(EmptyPart("mode"))),
            ("acme/aurora/text-to-video", Err(MissingVersion("aurora".into()))),
            ("acme/aurora-/text-to-video", Err(MissingVersion("aurora-".into()))),
            ("acme/-3.0/text-to-video", Err(MissingVersion("-3.0".into()))),
            ("acme/aurora-3.0/video-to-video", Err(UnknownMode("video-to-video".into()))),
            ("acme/aurora-3.0/Text-To-Video", Err(UnknownMode("Text-To-Video".into()))),
            ("acme/aurora 3.0/text-to-video", Err(BadCharacter)),
            ("acme/aurora-3.0/text-to-video\n", Err(BadCharacter)),
            ("", Err(WrongShape(1))),
        ];
        for (text, want) in cases {
            let got = text.parse::<ModelId>();
            match (got, want) {
                (Ok(id), Ok((v, f, ver, m))) => {
                    assert_eq!(
                        (id.vendor.as_str(), id.family.as_str(), id.version.as_str(), id.mode),
                        (*v, *f, *ver, *m),
                        "{text}"
                    );
                    assert_eq!(id.to_string(), *text, "round trip");
                }
                (Err(e), Err(w)) => assert_eq!(&e, w, "{text}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn series_is_major_minor() {
        for (version, series) in [("3.0", "3.0"), ("3.0.2", "3.0"), ("2.7", "2.7"), ("4", "4"), ("2.7.1.9", "2.7")] {
            let id: ModelId = format!("v/f-{version}/text-to-video").parse().expect("valid id");
            assert_eq!(id.series(), series);
        }
    }
}
