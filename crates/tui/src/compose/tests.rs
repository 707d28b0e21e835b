use super::*;

fn form() -> Form {
    let mut f = Form::new(&Catalog::builtin(), &Pricing::default());
    f.paste(Field::Prompt, "a red fox");
    f
}

fn check(f: &mut Form) -> &Check {
    f.touch();
    f.check()
}

#[test]
fn grid_table() {
    let cases = [
        ("", Ok((0, 0))),
        ("16:9, 9:16", Ok((2, 0))),
        ("5 10", Ok((0, 2))),
        ("16:9 9:16 5,10", Ok((2, 2))),
        ("16:9 16:9", Ok((1, 0))),
        ("wide", Err(())),
        ("16:9 wide 4.5", Err(())),
    ];
    for (text, want) in cases {
        match (parse_grid(text), want) {
            (Ok(g), Ok((r, s))) => assert_eq!((g.ratios.len(), g.seconds.len()), (r, s), "{text}"),
            (Err(_), Err(())) => {}
            (got, want) => panic!("{text}: {got:?} {want:?}"),
        }
    }
}

#[test]
fn every_bad_grid_token_is_named() {
    let e = parse_grid("16:9 wide 4.5, x").expect_err("bad").to_string();
    assert!(e.starts_with("\"wide\", \"4.5\" and \"x\" are neither ratios"), "{e}");
    assert!(parse_grid("wide").expect_err("bad").to_string().starts_with("\"wide\" is neither a ratio"));
}

#[test]
fn a_new_media_item_has_the_type_the_model_needs() {
    let mut f = form();
    assert_eq!(f.media_kind_needed(), MediaKind::ReferenceImage);
    f.set_model(f.models().iter().position(|m| m.ends_with("/image-to-video")).expect("an i2v model"));
    assert_eq!(f.media_kind_needed(), MediaKind::FirstFrame);
    assert_eq!(MediaEditor::new(None, None, f.media_kind_needed()).kind(), MediaKind::FirstFrame);
}

#[test]
fn an_empty_prompt_is_a_problem_beside_the_prompt() {
    let mut f = Form::new(&Catalog::builtin(), &Pricing::default());
    let c = check(&mut f);
    assert!(!c.is_clean());
    assert_eq!(c.first_problem(Field::Prompt), Some("prompt is required and must not be blank"));
}

#[test]
fn a_clean_form_plans_copies_times_grid() {
    let mut f = form();
    f.edit_line(Field::Copies, |l| *l = "2".into());
    f.edit_line(Field::Grid, |l| *l = "16:9 9:16 4 8".into());
    let c = check(&mut f);
    assert!(c.is_clean(), "{:?}", c.problems);
    assert_eq!((c.plan.len(), c.count), (4, 8));
    assert_eq!(c.billed, "48 s", "(4+8+4+8) × 2");
    assert_eq!(c.cost, "unpriced", "never 0 without a price");
}

#[test]
fn grid_durations_are_checked_against_the_model() {
    let mut f = form();
    f.edit_line(Field::Grid, |l| *l = "5 45".into());
    let c = check(&mut f);
    assert!(c.first_problem(Field::Grid).is_some_and(|m| m.contains("45")), "{:?}", c.problems);
    assert!(c.plan.is_empty());
}

#[test]
fn cost_uses_the_price_table() {
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.1)].into_iter().collect(),
    };
    let mut f = Form::new(&Catalog::builtin(), &pricing);
    f.paste(Field::Prompt, "a red fox");
    f.edit_line(Field::Seconds, |l| *l = "10".into());
    assert_eq!((f.check().billed.as_str(), f.check().cost.as_str()), ("10 s", "$1.00"));
}

#[test]
fn media_problems_point_at_the_media_field() {
    let mut f = form();
    f.put_media(None, MediaDraft::typed("reference_image", "https://x.org/a.png", None));
    let c = check(&mut f);
    assert!(c.first_problem(Field::Media).is_some_and(|m| m.contains("text-to-video")), "{:?}", c.problems);
}

#[test]
fn cycling_choices_wraps() {
    let mut f = form();
    f.cycle(Field::Resolution, true);
    assert_eq!(f.resolution(), Resolution::P1080);
    f.cycle(Field::Resolution, true);
    assert_eq!(f.resolution(), Resolution::P480);
    f.cycle(Field::Ratio, false);
    assert_eq!(f.ratio(), Ratio::Adaptive);
    f.cycle(Field::Copies, false);
    assert_eq!(f.copies(), "1", "never below one");
    f.cycle(Field::Watermark, true);
    assert!(f.watermark());
}

#[test]
fn pastes_lose_control_characters_and_stay_bounded() {
    assert_eq!(clean_paste("a\u{1b}[2Jb\r\nc\td"), "a[2Jb\ncd");
    assert_eq!(clean_paste("one\rtwo\r\rthree"), "one\ntwo\n\nthree", "CR line ends stay lines");
    assert_eq!(clean_paste(&"x".repeat(MAX_TEXT * 2)).len(), MAX_TEXT);
}

#[test]
fn drafts_are_kept_cleared_and_undone() {
    let mut f = form();
    assert!(f.has_draft(), "typed and not sent");
    let kept = f.saved();
    f.sent();
    assert!(!f.has_draft(), "sent: the text stays for the next variation, not as a draft");
    let mut t = reel_store::fixtures::record(15, reel_store::LocalState::Downloaded);
    t.prompt = "a blue whale".into();
    f.load(&t);
    assert_eq!((f.prompt_text().as_str(), f.parent()), ("a blue whale", Some(15)));
    assert!(!f.has_draft(), "a task's text is not the user's draft");
    // Undo takes the task's text out, then brings the text before the variation back.
    f.edit(Field::Prompt, TextOp::Undo);
    f.edit(Field::Prompt, TextOp::Undo);
    assert_eq!(f.prompt_text(), "a red fox");
    f.clear();
    assert_eq!((f.prompt_text().as_str(), f.parent(), f.copies()), ("", None, "1"));
    let mut again = Form::new(&Catalog::builtin(), &Pricing::default());
    again.restore(&kept);
    assert_eq!((again.prompt_text(), again.saved()), ("a red fox".to_string(), kept));
    assert!(again.has_draft() && again.check().is_clean());
}

#[test]
fn prompt_bounds_are_problems_beside_their_fields() {
    let mut f = Form::new(&Catalog::builtin(), &Pricing::default());
    f.paste(Field::Prompt, &"x".repeat(10_001));
    // Pastes lose control characters, but a bidi override is no control character to them.
    f.paste(Field::Negative, "no \u{202e}text");
    let c = check(&mut f);
    assert!(!c.is_clean() && c.plan.is_empty());
    assert_eq!(
        c.first_problem(Field::Prompt),
        Some("prompt is 10,001 characters long; at most 10,000 are allowed (the [prompt] max_chars)")
    );
    let negative = c.first_problem(Field::Negative).unwrap_or_default();
    assert!(
        negative.starts_with("metadata.negative_prompt holds U+202E (a bidi embedding or override) at character 4")
    );

    // The bounds are the catalog's, as the config set them.
    let strict = Catalog::builtin().with_text_bounds(rules::TextBounds { prompt_chars: 5, negative_chars: 5 });
    let mut f = Form::new(&strict, &Pricing::default());
    f.paste(Field::Prompt, "a red fox");
    assert!(check(&mut f).first_problem(Field::Prompt).is_some_and(|p| p.contains("at most 5 are allowed")));
}
