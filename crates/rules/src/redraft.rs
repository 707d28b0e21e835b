//! A submission that passed every rule, as a draft again: to work on its media (upload, check,
//! measure) and validate the result, or to hand it to an engine that validates it itself.

use super::validate::{Draft, MediaDraft, ValidSubmission};

impl From<&ValidSubmission> for Draft {
    /// Every parameter as the text that validates back to it; the billing and warnings are
    /// worked out again by `validate`.
    fn from(s: &ValidSubmission) -> Draft {
        Draft {
            model: s.model.to_string(),
            prompt: s.prompt.clone(),
            negative_prompt: s.negative_prompt.clone().unwrap_or_default(),
            seconds: Some(s.seconds.to_string()),
            resolution: Some(s.resolution.to_string()),
            ratio: Some(s.ratio.to_string()),
            watermark: Some(s.watermark),
            media: s
                .media
                .iter()
                .map(|m| MediaDraft::sent(m.kind.to_string(), &m.url, m.seconds, m.local.as_ref()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        Billing, Catalog, Draft, LocalOrigin, Media, MediaDraft, MediaKind, ModelName, Ratio, Resolution,
        UnknownModels, ValidSubmission, validate,
    };

    const T2V: &str = "acme/aurora-3.0/text-to-video";
    const R2V: &str = "acme/aurora-3.0/reference-to-video-global";

    fn submission(model: &str) -> ValidSubmission {
        let model = ModelName::new(model).expect("a valid id");
        ValidSubmission {
            model,
            prompt: "a fox".into(),
            negative_prompt: None,
            seconds: 5,
            resolution: Resolution::P720,
            ratio: Ratio::Square,
            watermark: false,
            media: Vec::new(),
            billing: Billing {
                output_seconds: Some(5),
                reference_video_seconds: 0.0,
                unstated_reference_videos: 0,
                longest_output: None,
            },
            warnings: Vec::new(),
        }
    }

    fn draft(model: &str) -> Draft {
        Draft {
            model: model.into(),
            prompt: "a fox".into(),
            negative_prompt: String::new(),
            seconds: Some("5".into()),
            resolution: Some("720P".into()),
            ratio: Some("1:1".into()),
            watermark: Some(false),
            media: Vec::new(),
        }
    }

    fn media(kind: MediaKind, url: &str, seconds: Option<f64>, local: Option<LocalOrigin>) -> Media {
        Media { kind, url: url.into(), seconds, local }
    }

    fn item(kind: &str, url: &str, seconds: Option<&str>, local: Option<LocalOrigin>) -> MediaDraft {
        MediaDraft { kind: kind.into(), url: url.into(), seconds: seconds.map(Into::into), local }
    }

    fn uploaded() -> LocalOrigin {
        LocalOrigin { path: "/clips/b.mp4".into(), key: Some("reel/ab.mp4".into()), expires_at: Some(1_700_000_000) }
    }

    #[test]
    fn every_field_becomes_the_text_that_gave_it() {
        let cases: Vec<(&str, ValidSubmission, Draft)> = vec![
            ("the defaults, stated", submission(T2V), draft(T2V)),
            ("a prompt kept as typed", ValidSubmission { prompt: " two\nlines ".into(), ..submission(T2V) }, {
                Draft { prompt: " two\nlines ".into(), ..draft(T2V) }
            }),
            (
                "a negative prompt",
                ValidSubmission { negative_prompt: Some("blur".into()), ..submission(T2V) },
                Draft { negative_prompt: "blur".into(), ..draft(T2V) },
            ),
            (
                "more seconds",
                ValidSubmission { seconds: 12, ..submission(T2V) },
                Draft { seconds: Some("12".into()), ..draft(T2V) },
            ),
            (
                "automatic seconds",
                ValidSubmission { seconds: -1, ..submission(T2V) },
                Draft { seconds: Some("-1".into()), ..draft(T2V) },
            ),
            (
                "resolution",
                ValidSubmission { resolution: Resolution::P1080, ..submission(T2V) },
                Draft { resolution: Some("1080P".into()), ..draft(T2V) },
            ),
            (
                "ratio",
                ValidSubmission { ratio: Ratio::Tall, ..submission(T2V) },
                Draft { ratio: Some("9:16".into()), ..draft(T2V) },
            ),
            (
                "adaptive ratio",
                ValidSubmission { ratio: Ratio::Adaptive, ..submission(T2V) },
                Draft { ratio: Some("adaptive".into()), ..draft(T2V) },
            ),
            (
                "watermark",
                ValidSubmission { watermark: true, ..submission(T2V) },
                Draft { watermark: Some(true), ..draft(T2V) },
            ),
            (
                "media: a URL, stated seconds (whole and fractional), local files pending and uploaded",
                ValidSubmission {
                    media: vec![
                        media(MediaKind::ReferenceImage, "https://e.test/a.png", None, None),
                        media(MediaKind::ReferenceVideo, "https://e.test/b.mp4?sig", Some(4.0), Some(uploaded())),
                        media(MediaKind::ReferenceVideo, "./c.mp4", Some(2.5), Some(LocalOrigin::pending("./c.mp4"))),
                        media(MediaKind::ReferenceAudio, "https://e.test/d.wav", Some(0.25), None),
                    ],
                    ..submission(R2V)
                },
                Draft {
                    media: vec![
                        item("reference_image", "https://e.test/a.png", None, None),
                        item("reference_video", "https://e.test/b.mp4?sig", Some("4"), Some(uploaded())),
                        item("reference_video", "./c.mp4", Some("2.5"), Some(LocalOrigin::pending("./c.mp4"))),
                        item("reference_audio", "https://e.test/d.wav", Some("0.25"), None),
                    ],
                    ..draft(R2V)
                },
            ),
        ];
        for (name, valid, want) in cases {
            assert_eq!(Draft::from(&valid), want, "{name}");
        }
    }

    #[test]
    fn a_draft_of_a_submission_validates_back_to_it() {
        let drafts = [
            Draft { model: T2V.into(), prompt: "a fox".into(), ..Draft::default() },
            Draft {
                model: T2V.into(),
                prompt: "a fox".into(),
                negative_prompt: "blur".into(),
                seconds: Some("-1".into()),
                resolution: Some("1080P".into()),
                ratio: Some("9:16".into()),
                watermark: Some(true),
                media: Vec::new(),
            },
            Draft {
                model: R2V.into(),
                prompt: "a fox".into(),
                media: vec![
                    MediaDraft::typed("reference_image", "https://e.test/a.png", None),
                    item("reference_video", "https://e.test/b.mp4", Some("4.5"), Some(uploaded())),
                    MediaDraft::typed("reference_video", "./c.mp4", Some("3".into())),
                ],
                ..Draft::default()
            },
        ];
        for d in drafts {
            let valid = validate(&d, &Catalog::builtin(), UnknownModels::Reject).expect("valid");
            let again =
                validate(&Draft::from(&valid), &Catalog::builtin(), UnknownModels::Reject).expect("still valid");
            assert_eq!(again, valid, "{d:?}");
        }
    }
}
