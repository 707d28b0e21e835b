use super::*;
use crate::model_name::ModelNameError;

const T2V_A: &str = "acme/aurora-3.0/text-to-video";
const I2V_A: &str = "acme/aurora-3.0/image-to-video";
const R2V_A: &str = "acme/aurora-3.0/reference-to-video-global";
const T2V_B: &str = "acme/aurora-2.7/text-to-video";
const T2V_C: &str = "acme/swift-1.5/text-to-video";

fn draft(model: &str) -> Draft {
    Draft { model: model.into(), prompt: "a red fox in snow".into(), ..Draft::default() }
}

fn item(kind: &str, seconds: Option<&str>) -> MediaDraft {
    MediaDraft::typed(kind, "https://cdn.example.com/a.bin", seconds.map(Into::into))
}

fn items(kind: &str, n: usize) -> Vec<MediaDraft> {
    (0..n).map(|_| item(kind, None)).collect()
}

fn with(model: &str, f: impl FnOnce(&mut Draft)) -> Draft {
    let mut d = draft(model);
    f(&mut d);
    d
}

fn run(d: &Draft) -> Result<ValidSubmission, Vec<Violation>> {
    validate(d, &Catalog::builtin(), UnknownModels::Warn).map_err(|e| e.violations)
}

fn secs(model: &str, s: &str) -> Draft {
    with(model, |d| d.seconds = Some(s.into()))
}

fn out_of_range(model: &str, value: i64) -> Vec<Violation> {
    let rule = Catalog::builtin().duration_rule(model).0;
    vec![Violation::SecondsOutOfRange { value, model: model.into(), rule }]
}

#[test]
fn every_rule_on_both_sides_of_every_bound() {
    use MediaKind::*;
    use Violation::*;
    let ok = Vec::new;
    let cases: Vec<(&str, Draft, Vec<Violation>)> = vec![
        ("minimal text-to-video", draft(T2V_A), ok()),
        // prompt
        ("empty prompt", with(T2V_A, |d| d.prompt.clear()), vec![PromptMissing]),
        ("blank prompt", with(T2V_A, |d| d.prompt = " \n\t".into()), vec![PromptMissing]),
        ("one-letter prompt", with(T2V_A, |d| d.prompt = "x".into()), ok()),
        // seconds: shape
        ("blank seconds means default", secs(T2V_A, "  "), ok()),
        ("padded seconds", secs(T2V_A, " 7 "), ok()),
        ("fractional seconds", secs(T2V_A, "5.5"), vec![SecondsNotInteger { value: "5.5".into() }]),
        ("word seconds", secs(T2V_A, "five"), vec![SecondsNotInteger { value: "five".into() }]),
        // family A: 4..=30 or -1
        ("A 3", secs(T2V_A, "3"), out_of_range(T2V_A, 3)),
        ("A 4", secs(T2V_A, "4"), ok()),
        ("A 30", secs(T2V_A, "30"), ok()),
        ("A 31", secs(T2V_A, "31"), out_of_range(T2V_A, 31)),
        ("A auto", secs(T2V_A, "-1"), ok()),
        ("A -2", secs(T2V_A, "-2"), out_of_range(T2V_A, -2)),
        ("A 0", secs(T2V_A, "0"), out_of_range(T2V_A, 0)),
        // family B: 4..=150
        ("B 3", secs(T2V_B, "3"), out_of_range(T2V_B, 3)),
        ("B 4", secs(T2V_B, "4"), ok()),
        ("B 150", secs(T2V_B, "150"), ok()),
        ("B 151", secs(T2V_B, "151"), out_of_range(T2V_B, 151)),
        ("B no auto", secs(T2V_B, "-1"), out_of_range(T2V_B, -1)),
        // family C: 4..=15
        ("C 3", secs(T2V_C, "3"), out_of_range(T2V_C, 3)),
        ("C 4", secs(T2V_C, "4"), ok()),
        ("C 15", secs(T2V_C, "15"), ok()),
        ("C 16", secs(T2V_C, "16"), out_of_range(T2V_C, 16)),
        // unknown models: checked by the family their version names, else the widest range
        ("unknown 3.0 model 30", secs("x/y-3.0/text-to-video", "30"), ok()),
        ("unknown 3.0 model 31", secs("x/y-3.0/text-to-video", "31"), out_of_range("x/y-3.0/text-to-video", 31)),
        ("unknown 2.7 model 150", secs("x/y-2.7/text-to-video", "150"), ok()),
        ("unknown 2.7 model 151", secs("x/y-2.7/text-to-video", "151"), out_of_range("x/y-2.7/text-to-video", 151)),
        ("unknown family 150", secs("x/y-9.9/text-to-video", "150"), ok()),
        ("unknown family 151", secs("x/y-9.9/text-to-video", "151"), out_of_range("x/y-9.9/text-to-video", 151)),
        ("unknown family 3", secs("x/y-9.9/text-to-video", "3"), out_of_range("x/y-9.9/text-to-video", 3)),
        // model id
        // model id: any shape the service uses, within bounds
        ("one-part model", draft("aurora"), ok()),
        ("a mode the spec does not name is a custom model", draft("acme/aurora-3.0/video-to-video"), ok()),
        ("empty model", draft(""), vec![ModelInvalid { value: "".into(), source: ModelNameError::Empty }]),
        (
            "model with a space",
            draft("sora 2"),
            vec![ModelInvalid { value: "sora 2".into(), source: ModelNameError::BadCharacter(' ', 5) }],
        ),
        (
            "model with a newline",
            draft("sora-2\n"),
            vec![ModelInvalid { value: "sora-2\n".into(), source: ModelNameError::BadCharacter('\n', 7) }],
        ),
        // resolution and ratio
        ("480P", with(T2V_A, |d| d.resolution = Some("480P".into())), ok()),
        ("1080P", with(T2V_A, |d| d.resolution = Some("1080P".into())), ok()),
        (
            "lower-case 720p",
            with(T2V_A, |d| d.resolution = Some("720p".into())),
            vec![ResolutionInvalid { value: "720p".into() }],
        ),
        ("4K", with(T2V_A, |d| d.resolution = Some("4K".into())), vec![ResolutionInvalid { value: "4K".into() }]),
        ("ratio 9:16", with(T2V_A, |d| d.ratio = Some("9:16".into())), ok()),
        ("ratio adaptive", with(T2V_A, |d| d.ratio = Some("adaptive".into())), ok()),
        ("ratio 2:1", with(T2V_A, |d| d.ratio = Some("2:1".into())), vec![RatioInvalid { value: "2:1".into() }]),
        // text-to-video takes no media
        (
            "media on text-to-video",
            with(T2V_A, |d| d.media = items("reference_image", 1)),
            vec![MediaNotForMode { index: 0, kind: ReferenceImage, mode: Mode::TextToVideo }],
        ),
        // image-to-video: exactly one first_frame
        ("i2v without first frame", draft(I2V_A), vec![FirstFrameMissing]),
        ("i2v with first frame", with(I2V_A, |d| d.media = items("first_frame", 1)), ok()),
        (
            "i2v with two first frames",
            with(I2V_A, |d| d.media = items("first_frame", 2)),
            vec![MediaCountExceeded { kind: FirstFrame, count: 2, max: 1 }],
        ),
        (
            "i2v with a reference image",
            with(I2V_A, |d| d.media = vec![item("first_frame", None), item("reference_image", None)]),
            vec![MediaNotForMode { index: 1, kind: ReferenceImage, mode: Mode::ImageToVideo }],
        ),
        // reference-to-video: counts per type
        ("r2v without media", draft(R2V_A), vec![ReferenceMissing]),
        ("r2v 10 images", with(R2V_A, |d| d.media = items("reference_image", 10)), ok()),
        (
            "r2v 11 images",
            with(R2V_A, |d| d.media = items("reference_image", 11)),
            vec![MediaCountExceeded { kind: ReferenceImage, count: 11, max: 10 }],
        ),
        ("r2v 5 videos", with(R2V_A, |d| d.media = items("reference_video", 5)), ok()),
        (
            "r2v 6 videos",
            with(R2V_A, |d| d.media = items("reference_video", 6)),
            vec![MediaCountExceeded { kind: ReferenceVideo, count: 6, max: 5 }],
        ),
        ("r2v 5 audio", with(R2V_A, |d| d.media = items("reference_audio", 5)), ok()),
        (
            "r2v 6 audio",
            with(R2V_A, |d| d.media = items("reference_audio", 6)),
            vec![MediaCountExceeded { kind: ReferenceAudio, count: 6, max: 5 }],
        ),
        (
            "r2v with only a first frame",
            with(R2V_A, |d| d.media = items("first_frame", 1)),
            vec![MediaNotForMode { index: 0, kind: FirstFrame, mode: Mode::ReferenceToVideo }, ReferenceMissing],
        ),
        // reference durations: at most 15 s per type
        (
            "videos total 15 s",
            with(R2V_A, |d| d.media = vec![item("reference_video", Some("5")), item("reference_video", Some("10"))]),
            ok(),
        ),
        (
            "videos total 15.5 s",
            with(R2V_A, |d| d.media = vec![item("reference_video", Some("5.5")), item("reference_video", Some("10"))]),
            vec![ReferenceDurationExceeded { kind: ReferenceVideo, total: 15.5, max: 15.0 }],
        ),
        ("audio total 15 s", with(R2V_A, |d| d.media = vec![item("reference_audio", Some("15"))]), ok()),
        (
            "audio total 16 s",
            with(R2V_A, |d| d.media = vec![item("reference_audio", Some("8")), item("reference_audio", Some("8"))]),
            vec![ReferenceDurationExceeded { kind: ReferenceAudio, total: 16.0, max: 15.0 }],
        ),
        // media items themselves
        (
            "unknown media type",
            with(R2V_A, |d| d.media = vec![item("reference_image", None), item("image", None)]),
            vec![MediaTypeInvalid { index: 1, value: "image".into() }],
        ),
        (
            "ftp url",
            with(I2V_A, |d| {
                d.media = vec![MediaDraft { url: "ftp://x.org/a.png".into(), ..item("first_frame", None) }]
            }),
            vec![MediaUrlInvalid {
                index: 0,
                value: "ftp://x.org/a.png".into(),
                reason: "must start with http:// or https://",
            }],
        ),
        (
            "not a url",
            with(I2V_A, |d| d.media = vec![MediaDraft { url: "cat.png".into(), ..item("first_frame", None) }]),
            vec![MediaUrlInvalid {
                index: 0,
                value: "cat.png".into(),
                reason: "is neither a URL nor a local path (/, ./, ../, ~/ or file://)",
            }],
        ),
        (
            "http url",
            with(I2V_A, |d| {
                d.media = vec![MediaDraft { url: "http://127.0.0.1:9/a.png".into(), ..item("first_frame", None) }]
            }),
            ok(),
        ),
        (
            "zero duration",
            with(R2V_A, |d| d.media = vec![item("reference_video", Some("0"))]),
            vec![MediaSecondsInvalid { index: 0, value: "0".into() }],
        ),
        (
            "negative duration",
            with(R2V_A, |d| d.media = vec![item("reference_audio", Some("-3"))]),
            vec![MediaSecondsInvalid { index: 0, value: "-3".into() }],
        ),
        (
            "not-a-number duration",
            with(R2V_A, |d| d.media = vec![item("reference_audio", Some("NaN"))]),
            vec![MediaSecondsInvalid { index: 0, value: "NaN".into() }],
        ),
        (
            "duration on an image",
            with(R2V_A, |d| d.media = vec![item("reference_image", Some("3"))]),
            vec![MediaSecondsNotApplicable { index: 0, kind: ReferenceImage }],
        ),
        // several at once are all reported
        (
            "many problems",
            with(T2V_C, |d| {
                d.prompt.clear();
                d.seconds = Some("99".into());
                d.ratio = Some("wide".into());
            }),
            [vec![PromptMissing], out_of_range(T2V_C, 99), vec![RatioInvalid { value: "wide".into() }]].concat(),
        ),
    ];
    for (name, d, want) in cases {
        match run(&d) {
            Ok(_) if want.is_empty() => {}
            Ok(v) => panic!("{name}: accepted {v:?}, want {want:?}"),
            Err(got) => assert_eq!(got, want, "{name}"),
        }
    }
}

#[test]
fn valid_submission_carries_typed_values_and_billing() {
    let d = Draft {
        model: R2V_A.into(),
        prompt: "video 1 in the style of image 1".into(),
        negative_prompt: "  ".into(),
        seconds: Some("10".into()),
        resolution: Some("1080P".into()),
        ratio: Some("16:9".into()),
        watermark: Some(true),
        media: vec![item("reference_video", Some("4")), item("reference_image", None)],
    };
    let v = run(&d).expect("valid");
    assert_eq!(v.seconds, 10);
    assert_eq!(v.resolution, Resolution::P1080);
    assert_eq!(v.ratio, Ratio::Wide);
    assert!(v.watermark);
    assert_eq!(v.negative_prompt, None, "a blank negative prompt is not sent");
    assert_eq!(v.billing.total(), Some(14.0));
    assert!(v.warnings.is_empty());

    let defaults = run(&draft(T2V_A)).expect("valid");
    assert_eq!(
        (defaults.seconds, defaults.resolution, defaults.ratio, defaults.watermark),
        (5, Resolution::P720, Ratio::Square, false)
    );
}

#[test]
fn unknown_models_warn_for_clients_and_are_refused_by_servers() {
    let d = draft("other/y-3.0/text-to-video");
    let v = run(&d).expect("accepted with a warning");
    assert!(matches!(&v.warnings[..], [Warning::UnknownModel { .. }]));
    assert!(v.warnings[0].to_string().contains("family A"), "{}", v.warnings[0]);
    let refused = validate(&d, &Catalog::builtin(), UnknownModels::Reject).expect_err("refused");
    assert_eq!(refused.violations, vec![Violation::ModelUnknown { value: "other/y-3.0/text-to-video".into() }]);
}

#[test]
fn messages_name_field_value_and_rule() {
    let v = run(&secs(T2V_C, "16")).expect_err("invalid");
    assert_eq!(v[0].field(), Field::Seconds);
    assert_eq!(v[0].to_string(), "seconds 16 is out of range for acme/swift-1.5/text-to-video: it accepts 4 to 15 s");
    let v = run(&with(T2V_A, |d| d.resolution = Some("4K".into()))).expect_err("invalid");
    assert_eq!(v[0].to_string(), "resolution \"4K\" is not allowed; use 480P, 720P or 1080P");
    assert_eq!(v[0].field().to_string(), "metadata.resolution");
    let v = run(&with(R2V_A, |d| d.media = items("reference_image", 11))).expect_err("invalid");
    assert_eq!(v[0].to_string(), "11 reference_image items given; at most 10 are allowed per request");
    let v = run(&with(I2V_A, |d| d.media = items("first_frame", 2))).expect_err("invalid");
    assert_eq!(v[0].to_string(), "2 first_frame items given; at most 1 is allowed per request");
}

#[test]
fn local_files_wait_for_their_upload() {
    let mut d = draft("acme/aurora-3.0/reference-to-video-global");
    d.prompt = "image 1".into();
    d.media = vec![MediaDraft::typed("reference_image", "~/pics/a.png", None)];
    let v = validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect("a local path is valid");
    assert!(v.awaits_uploads(), "not sendable until uploaded");
    d.media[0].url = "https://bucket.example/a.png?X-Amz-Signature=1".into();
    d.media[0].local.as_mut().expect("local").key = Some("reel/a.png".into());
    let v = validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect("uploaded");
    assert!(!v.awaits_uploads());
    assert_eq!(v.media[0].local.as_ref().map(|l| l.path.as_str()), Some("~/pics/a.png"));
    // A body parsed from the wire has no local items: a path there is refused as before.
    d.media = vec![MediaDraft { local: None, ..MediaDraft::typed("reference_image", "./a.png", None) }];
    let e = validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect_err("a path is no URL");
    assert!(matches!(e.violations[0], Violation::MediaUrlInvalid { index: 0, .. }), "{e}");
}

#[test]
fn prompt_lengths_at_and_past_their_bounds() {
    use crate::TextBounds;
    let small = Catalog::builtin().with_text_bounds(TextBounds { prompt_chars: 5, negative_chars: 3 });
    let run = |d: &Draft| validate(d, &small, UnknownModels::Warn).map(|_| ()).map_err(|e| e.violations);
    let with = |f: fn(&mut Draft)| {
        let mut d = Draft { prompt: "fox".into(), ..draft(T2V_A) };
        f(&mut d);
        d
    };
    let too_long = |field, chars, max| Err(vec![Violation::TextTooLong { field, chars, max }]);
    type Case = (&'static str, Draft, Result<(), Vec<Violation>>);
    let cases: Vec<Case> = vec![
        ("prompt at the bound", with(|d| d.prompt = "abcde".into()), Ok(())),
        ("prompt one past", with(|d| d.prompt = "abcdef".into()), too_long(Field::Prompt, 6, 5)),
        // Characters, not bytes: five two-byte and five four-byte characters are five.
        ("accented at the bound", with(|d| d.prompt = "ééééé".into()), Ok(())),
        ("emoji at the bound", with(|d| d.prompt = "🎬🎬🎬🎬🎬".into()), Ok(())),
        ("CJK one past", with(|d| d.prompt = "日本語のプロ".into()), too_long(Field::Prompt, 6, 5)),
        ("spaces count", with(|d| d.prompt = " abcde".into()), too_long(Field::Prompt, 6, 5)),
        ("negative at the bound", with(|d| d.negative_prompt = "abc".into()), Ok(())),
        ("negative one past", with(|d| d.negative_prompt = "abcd".into()), too_long(Field::NegativePrompt, 4, 3)),
        ("blank negative is not sent", with(|d| d.negative_prompt = "      ".into()), Ok(())),
    ];
    for (name, d, want) in cases {
        assert_eq!(run(&d), want, "{name}");
    }
    let builtin = TextBounds::default();
    assert_eq!((builtin.prompt_chars, builtin.negative_chars), (10_000, 10_000));
    assert_eq!(Catalog::builtin().text_bounds(), builtin);
    let at = |n: usize| Draft { prompt: "x".repeat(n), ..draft(T2V_A) };
    assert!(super::validate(&at(10_000), &Catalog::builtin(), UnknownModels::Warn).is_ok());
    let v = super::validate(&at(10_001), &Catalog::builtin(), UnknownModels::Warn).expect_err("too long");
    assert_eq!(v.to_string(), "prompt is 10,001 characters long; at most 10,000 are allowed (the [prompt] max_chars)");
    assert_eq!(v.violations[0].field(), Field::Prompt);
}

#[test]
fn control_characters_are_refused_by_field_character_and_place() {
    use crate::prompt_text::Forbidden;
    let control = |field, c, at| vec![Violation::ControlCharacter { field, character: Forbidden(c), at }];
    let ok = Vec::new;
    let cases: Vec<(&str, Draft, Vec<Violation>)> = vec![
        ("newlines and tabs", with(T2V_A, |d| d.prompt = "a fox\n\tin snow".into()), ok()),
        ("windows line ends", with(T2V_A, |d| d.prompt = "a fox\r\nin snow".into()), ok()),
        ("ESC", with(T2V_A, |d| d.prompt = "a fox\u{1b}[2J".into()), control(Field::Prompt, '\u{1b}', 6)),
        ("NUL", with(T2V_A, |d| d.prompt = "\0a fox".into()), control(Field::Prompt, '\0', 1)),
        ("lone CR", with(T2V_A, |d| d.prompt = "a fox\rin".into()), control(Field::Prompt, '\r', 6)),
        ("DEL", with(T2V_A, |d| d.prompt = "a fox\u{7f}".into()), control(Field::Prompt, '\u{7f}', 6)),
        ("C1", with(T2V_A, |d| d.prompt = "a \u{9b}31m fox".into()), control(Field::Prompt, '\u{9b}', 3)),
        ("bidi override", with(T2V_A, |d| d.prompt = "a \u{202e}xof".into()), control(Field::Prompt, '\u{202e}', 3)),
        ("bidi isolate", with(T2V_A, |d| d.prompt = "\u{2067}a fox".into()), control(Field::Prompt, '\u{2067}', 1)),
        (
            "in the negative prompt",
            with(T2V_A, |d| d.negative_prompt = "blur\u{7}".into()),
            control(Field::NegativePrompt, '\u{7}', 5),
        ),
        (
            "both fields, and a length too",
            with(T2V_A, |d| {
                d.prompt = format!("{}\u{1b}", "x".repeat(10_000));
                d.negative_prompt = "\u{9b}2J".into();
            }),
            [
                vec![Violation::TextTooLong { field: Field::Prompt, chars: 10_001, max: 10_000 }],
                control(Field::Prompt, '\u{1b}', 10_001),
                control(Field::NegativePrompt, '\u{9b}', 1),
            ]
            .concat(),
        ),
    ];
    for (name, d, want) in cases {
        match run(&d) {
            Ok(_) if want.is_empty() => {}
            Ok(v) => panic!("{name}: accepted {v:?}, want {want:?}"),
            Err(got) => assert_eq!(got, want, "{name}"),
        }
    }
    let v = run(&with(T2V_A, |d| d.prompt = "a fox\u{1b}[2J".into())).expect_err("refused");
    assert_eq!(
        v[0].to_string(),
        "prompt holds U+001B (a control character) at character 6; remove it (of control characters only \
         newlines and tabs are allowed)"
    );
    let v = run(&with(T2V_A, |d| d.negative_prompt = "x\u{202e}".into())).expect_err("refused");
    assert_eq!(v[0].field(), Field::NegativePrompt);
    assert!(v[0].to_string().starts_with("metadata.negative_prompt holds U+202E (a bidi embedding or override)"));
}

/// A catalog with the models a gateway names as its vendors do.
fn gateway_catalog() -> Catalog {
    let text = r#"
        [[models]]
        id = "sora-2"
        mode = "text-to-video"
        seconds = [4, 8, 12]
        media = ["first_frame"]
        resolutions = ["720P"]
        [[models]]
        id = "wan2.5-i2v-preview"
        min_seconds = 5
        max_seconds = 10
        [[models]]
        id = "kling-v2-1"
        seconds = "five"
    "#;
    Catalog::builtin().with_extra(&crate::catalog::declare(text).expect("toml"))
}

#[test]
fn models_as_the_service_names_them() {
    use MediaKind::*;
    use Violation::*;
    let cat = gateway_catalog();
    let check = |d: &Draft| validate(d, &cat, UnknownModels::Warn).map_err(|e| e.violations);
    let sora = |f: &dyn Fn(&mut Draft)| with("sora-2", f);
    let frame = || item("first_frame", None);
    let v = check(&draft("sora-2")).expect("valid");
    assert_eq!((v.seconds, v.resolution, v.warnings.len()), (4, Resolution::P720, 0), "5 is refused: 4 is sent");
    assert_eq!(v.model.to_string(), "sora-2");
    assert!(check(&sora(&|d| d.seconds = Some("8".into()))).is_ok());
    let five = check(&sora(&|d| d.seconds = Some("5".into()))).expect_err("5");
    assert_eq!(five[0].to_string(), "seconds 5 is out of range for sora-2: it accepts 4, 8 or 12 s");
    assert!(check(&sora(&|d| d.media = vec![frame()])).is_ok(), "an optional first frame");
    assert_eq!(
        check(&sora(&|d| d.media = vec![item("reference_image", None)])).expect_err("no references"),
        vec![MediaNotForModel { index: 0, kind: ReferenceImage, model: "sora-2".into(), takes: "first_frame".into() }]
    );
    assert_eq!(
        check(&sora(&|d| d.resolution = Some("1080P".into()))).expect_err("720P only"),
        vec![ResolutionNotForModel { value: Resolution::P1080, model: "sora-2".into(), allowed: "720P".into() }]
    );
    // The mode comes from the id's i2v.
    assert_eq!(check(&draft("wan2.5-i2v-preview")).expect_err("a frame is needed"), vec![FirstFrameMissing]);
    assert!(check(&with("wan2.5-i2v-preview", |d| d.media = vec![frame()])).is_ok());
    // A broken entry stops its model only, naming the entry.
    let broken = check(&draft("kling-v2-1")).expect_err("broken");
    assert!(
        matches!(&broken[..], [ModelBroken { value, entry }] if value == "kling-v2-1" && entry.contains("[[models]] entry 3")),
        "{broken:?}"
    );
    assert!(broken[0].to_string().contains("fix or remove it"));
    // A model reel has no rules for: sent with the general checks, and said so.
    let unknown = validate(
        &with("veo-3.0-generate-preview", |d| d.media = vec![item("reference_image", None)]),
        &cat,
        UnknownModels::Warn,
    )
    .expect("sent as given");
    let said = unknown.warnings[0].to_string();
    assert!(said.contains("not in the catalog") && said.contains("its mode is not known"), "{said}");
    assert!(check(&secs("veo-3.0-generate-preview", "151")).is_err(), "the widest range still holds");
}
