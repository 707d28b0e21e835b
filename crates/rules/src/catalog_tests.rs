use super::*;

fn declared(text: &str) -> Vec<Declared> {
    declare(text).expect("toml")
}

#[test]
fn builtin_catalog_is_valid_and_covers_every_family_and_mode() {
    let specs = parse_specs(BUILTIN_TOML).expect("parses");
    for s in &specs {
        entry(s.clone(), Origin::Builtin).expect("valid entry");
    }
    let cat = Catalog::builtin();
    for fam in [Family::A, Family::B, Family::C] {
        assert!(cat.entries().iter().any(|e| e.family == Some(fam)), "family {fam:?}");
    }
    for mode in Mode::ALL {
        assert!(cat.entries().iter().any(|e| e.mode == mode), "mode {mode}");
    }
    assert!(cat.broken().is_empty());
}

#[test]
fn duration_rules_by_family() {
    let cases = [
        (Family::A, 3, false),
        (Family::A, 4, true),
        (Family::A, 30, true),
        (Family::A, 31, false),
        (Family::A, -1, true),
        (Family::A, -2, false),
        (Family::A, 0, false),
        (Family::B, 3, false),
        (Family::B, 4, true),
        (Family::B, 150, true),
        (Family::B, 151, false),
        (Family::B, -1, false),
        (Family::C, 3, false),
        (Family::C, 4, true),
        (Family::C, 15, true),
        (Family::C, 16, false),
        (Family::C, -1, false),
    ];
    for (family, seconds, ok) in cases {
        assert_eq!(family.duration().allows(seconds), ok, "{family:?} {seconds}");
    }
    assert!(DurationRule::WIDEST.allows(150) && DurationRule::WIDEST.allows(-1));
    assert!(!DurationRule::WIDEST.allows(151) && !DurationRule::WIDEST.allows(3));
}

#[test]
fn lists_of_seconds() {
    let only = |values: &[i64]| DurationRule { min: 4, max: 12, auto: false, only: Steps::new(values) };
    let sora = only(&[12, 4, 8, 8]);
    let cases = [(3, false), (4, true), (5, false), (8, true), (11, false), (12, true), (-1, false)];
    for (seconds, ok) in cases {
        assert_eq!(sora.allows(seconds), ok, "{seconds}");
    }
    assert_eq!(sora.to_string(), "4, 8 or 12 s");
    assert_eq!(only(&[5]).to_string(), "5 s");
    assert_eq!(Family::A.duration().to_string(), "4 to 30 s, or -1 for automatic");
    assert_eq!((sora.default_seconds(), Family::A.duration().default_seconds()), (4, 5));
    let steps = [(4, true, 8), (8, true, 12), (12, true, 12), (5, true, 8), (8, false, 4), (4, false, 4)];
    for (from, forward, want) in steps {
        assert_eq!(sora.step(from, forward), want, "{from} {forward}");
    }
    assert_eq!(Family::C.duration().step(5, false), 4);
    assert!(Steps::new(&[]).is_none() && Steps::new(&[1; MAX_STEPS + 1]).is_some());
    assert!(Steps::new(&(1..=MAX_STEPS as i64 + 1).collect::<Vec<_>>()).is_none());
}

#[test]
fn unknown_models_fall_back_by_version_then_widest() {
    let cat = Catalog::builtin();
    let rule = |id: &str| cat.duration_rule(id);
    assert_eq!(rule("acme/aurora-3.0/text-to-video").1, RuleSource::Catalog);
    assert_eq!(rule("other/x-3.0.1/text-to-video"), (Family::A.duration(), RuleSource::FamilyFromVersion(Family::A)));
    assert_eq!(rule("other/x-2.7/image-to-video"), (Family::B.duration(), RuleSource::FamilyFromVersion(Family::B)));
    assert_eq!(rule("other/x-9.1/text-to-video"), (DurationRule::WIDEST, RuleSource::Widest));
    assert_eq!(rule("sora-2"), (DurationRule::WIDEST, RuleSource::Widest));
    assert_eq!(cat.mode("wan2.5-i2v-preview"), Some(Mode::ImageToVideo));
    assert_eq!(cat.mode("sora-2"), None);
}

#[test]
fn config_models_of_any_shape_add_and_replace() {
    let extra = declared(
        r#"
        [[models]]
        id = "acme/aurora-3.0/text-to-video"
        family = "A"
        max_seconds = 20
        [[models]]
        id = "mine/custom-1.0/text-to-video"
        min_seconds = 2
        max_seconds = 8
        [[models]]
        id = "sora-2"
        mode = "text-to-video"
        seconds = [4, 8, 12]
        media = ["first_frame"]
        resolutions = ["720P"]
        price_per_second = 0.1
        [[models]]
        id = "wan2.5-t2v-preview"
        min_seconds = 5
        max_seconds = 10
        "#,
    );
    let cat = Catalog::builtin().with_extra(&extra);
    assert!(cat.broken().is_empty(), "{:?}", cat.broken());
    let replaced = cat.get("acme/aurora-3.0/text-to-video").expect("present");
    assert_eq!((replaced.duration.max, replaced.origin), (20, Origin::Config));
    let custom = cat.get("mine/custom-1.0/text-to-video").expect("present");
    assert_eq!(custom.duration, DurationRule::range(2, 8, false));
    let sora = cat.get("sora-2").expect("present");
    assert_eq!((sora.mode, sora.duration.to_string()), (Mode::TextToVideo, "4, 8 or 12 s".to_string()));
    assert_eq!((&sora.media[..], &sora.resolutions[..]), (&[MediaKind::FirstFrame][..], &[Resolution::P720][..]));
    assert_eq!(sora.price_per_second, Some(0.1));
    assert_eq!(cat.get("wan2.5-t2v-preview").map(|e| e.mode), Some(Mode::TextToVideo), "the id names it");
}

#[test]
fn a_broken_entry_is_named_and_the_others_work() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("id = \"sora 2\"\nmin_seconds = 4\nmax_seconds = 8", Some("sora 2"), "character 5"),
        ("id = \"sora-2\"\nseconds = [4, 8]", Some("sora-2"), "does not say its mode"),
        ("id = \"sora-2\"\nmode = \"t2v\"\nseconds = [4]", Some("sora-2"), "unknown mode \"t2v\""),
        ("id = \"x/y-1/text-to-video\"", Some("x/y-1/text-to-video"), "give a family"),
        ("id = \"x/y-1/text-to-video\"\nmin_seconds = 9\nmax_seconds = 4", None, "is above max_seconds"),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = []", None, "seconds lists"),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = [0, 4]", None, "seconds lists"),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = [4]\nmin_seconds = 2", None, "not both"),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = [4]\nmedia = [\"image\"]", None, "is not a media type"),
        ("id = \"s\"\nmode = \"image-to-video\"\nseconds = [4]\nmedia = []", None, "needs first_frame"),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = [4]\nresolutions = [\"4K\"]", None, "\"4K\""),
        ("id = \"s\"\nmode = \"text-to-video\"\nseconds = [4]\nprice_per_second = -1.0", None, "price"),
        ("id = \"s\"\ncolour = 1", Some("s"), "unknown field `colour`"),
        ("id = 3", None, "invalid type"),
        ("seconds = [4]", None, "missing field `id`"),
    ];
    for (body, id, says) in cases {
        let text = format!("[[models]]\nid = \"fine\"\nmode = \"text-to-video\"\nseconds = [4]\n[[models]]\n{body}");
        let cat = Catalog::builtin().with_extra(&declared(&text)).in_file(std::path::Path::new("/c.toml"));
        assert!(cat.get("fine").is_some(), "{body}: the good entry stays");
        let [broken] = cat.broken() else { panic!("{body}: one broken entry, got {:?}", cat.broken()) };
        let message = broken.to_string();
        assert!(message.starts_with("config file /c.toml, [[models]] entry 2: "), "{message}");
        assert!(message.contains(says), "{body}: {message}");
        if let Some(id) = id {
            assert_eq!(broken.id.as_deref(), Some(*id));
            assert!(matches!(cat.rules(id), Rules::Broken(_)), "{body}");
        }
    }
    // A broken replacement of a built-in model takes the built-in out of use.
    let cat =
        Catalog::builtin().with_extra(&declared("[[models]]\nid = \"acme/aurora-3.0/text-to-video\"\nfamily = \"D\""));
    assert!(matches!(cat.rules("acme/aurora-3.0/text-to-video"), Rules::Broken(_)));
    assert!(parse_specs("[[models]]\nid = 3").is_err());
}
