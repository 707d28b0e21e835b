//! The closed value sets of a submission: resolution, aspect ratio and media item types.

use std::fmt;

macro_rules! closed_set {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The exact wire spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Exact match only: the wire is case-sensitive and so are we.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }

            /// The allowed spellings, for messages: "a, b or c".
            pub fn choices() -> String {
                let all: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                match all.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} or {}", rest.join(", "), last),
                    _ => all.join(""),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(self.as_str()) }
        }
    };
}

closed_set!(
    /// Output resolution (`metadata.resolution`); the spec's default is 720P.
    #[derive(Default)]
    Resolution { P480 => "480P", #[default] P720 => "720P", P1080 => "1080P" }
);

closed_set!(
    /// Aspect ratio (`metadata.ratio`); the spec's default is 1:1.
    #[derive(Default)]
    Ratio { #[default] Square => "1:1", Wide => "16:9", Tall => "9:16", Classic => "4:3", Portrait => "3:4", Adaptive => "adaptive" }
);

closed_set!(
    /// Type of a reference media item (`metadata.media[].type`).
    MediaKind {
        ReferenceImage => "reference_image",
        ReferenceVideo => "reference_video",
        ReferenceAudio => "reference_audio",
        FirstFrame => "first_frame",
    }
);

impl Resolution {
    /// Lines of the short side of the frame.
    pub fn lines(self) -> u32 {
        match self {
            Resolution::P480 => 480,
            Resolution::P720 => 720,
            Resolution::P1080 => 1080,
        }
    }
}

impl Ratio {
    /// Width over height; `adaptive` is rendered as 16:9.
    pub fn proportions(self) -> (u32, u32) {
        match self {
            Ratio::Square => (1, 1),
            Ratio::Wide | Ratio::Adaptive => (16, 9),
            Ratio::Tall => (9, 16),
            Ratio::Classic => (4, 3),
            Ratio::Portrait => (3, 4),
        }
    }
}

impl MediaKind {
    /// Spec section 8: how many items of this type one request may carry.
    pub fn max_count(self) -> usize {
        match self {
            MediaKind::ReferenceImage => 10,
            MediaKind::ReferenceVideo | MediaKind::ReferenceAudio => 5,
            MediaKind::FirstFrame => 1,
        }
    }

    /// Spec section 8: the total stated duration allowed for this type, if limited.
    pub fn max_total_seconds(self) -> Option<f64> {
        match self {
            MediaKind::ReferenceVideo | MediaKind::ReferenceAudio => Some(15.0),
            MediaKind::ReferenceImage | MediaKind::FirstFrame => None,
        }
    }

    pub fn is_reference(self) -> bool {
        !matches!(self, MediaKind::FirstFrame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_spellings_only() {
        assert_eq!(Resolution::parse("720P"), Some(Resolution::P720));
        assert_eq!(Resolution::parse("720p"), None);
        assert_eq!(Resolution::parse(" 720P"), None);
        assert_eq!(Ratio::parse("adaptive"), Some(Ratio::Adaptive));
        assert_eq!(Ratio::parse("16/9"), None);
        assert_eq!(MediaKind::parse("first_frame"), Some(MediaKind::FirstFrame));
        assert_eq!(MediaKind::parse("image"), None);
        assert_eq!(Resolution::choices(), "480P, 720P or 1080P");
        assert_eq!(Resolution::default(), Resolution::P720);
        assert_eq!(Ratio::default(), Ratio::Square);
    }
}
