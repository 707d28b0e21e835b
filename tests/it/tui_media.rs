//! The form's media items on TestBackend: type, size, duration (or "unknown", never 0), a
//! preview placeholder, and a failing check shown beside the item and blocking Ctrl-S.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use reel_engine::config::Pricing;
use reel_rules::MediaDraft;
use reel_tui::app::{Action, App, Effect, Focus};
use reel_tui::compose::Field;
use reel_tui::compose::media::{MediaStatus, item_key};

use crate::common::{dashboard, screen};

const NOW: i64 = 1_800_000_100_000;
const MODEL: &str = "acme/aurora-3.0/reference-to-video-global";

fn app() -> App {
    let mut a = dashboard(Pricing::default(), NOW);
    // The model as a user picks it: → on the model field until it shows.
    a.focus_on(Focus::Form(Field::Model));
    for _ in 0..a.form().models().len() {
        if a.form().model_id() == MODEL {
            break;
        }
        a.update(Action::Key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE)), NOW);
    }
    assert_eq!(a.form().model_id(), MODEL, "the model is in the catalog");
    a.focus_on(Focus::Form(Field::Prompt));
    for c in "image 1 meets video 1".chars() {
        a.update(Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)), NOW);
    }
    a
}

fn items() -> Vec<MediaDraft> {
    vec![
        MediaDraft::typed("reference_image", "~/pics/fox.png", None),
        MediaDraft::typed("reference_video", "https://cdn.example/run.mp4", None),
        MediaDraft::typed("reference_audio", "https://cdn.example/wind.wav", None),
    ]
}

/// The form with three items, each with what its check found.
fn checked(failing: bool) -> App {
    let mut a = app();
    for m in items() {
        a.add_media(m);
    }
    let key = |m: &MediaDraft| item_key(&m.kind, &m.url);
    let m = a.form().media().to_vec();
    let video = if failing {
        MediaStatus::Failed("no such file (404)".into())
    } else {
        MediaStatus::Checked { size: Some(2_400_000), duration: Some(4.5) }
    };
    a.update(
        Action::MediaChecked(vec![
            (key(&m[0]), MediaStatus::Checked { size: Some(48_000), duration: None }),
            (key(&m[1]), video),
            (key(&m[2]), MediaStatus::Checked { size: None, duration: None }),
        ]),
        NOW,
    );
    a
}

fn ctrl_s(a: &mut App) -> Vec<Effect> {
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)), NOW)
}

#[test]
fn sizes_and_durations_or_unknown_never_zero() {
    let summary = |s: MediaStatus, kind: &str| s.summary(kind);
    assert_eq!(summary(MediaStatus::Checked { size: Some(48_000), duration: None }, "reference_image"), "48.0 KB");
    assert_eq!(
        summary(MediaStatus::Checked { size: Some(2_400_000), duration: Some(4.5) }, "reference_video"),
        "2.4 MB · 4.5 s"
    );
    assert_eq!(
        summary(MediaStatus::Checked { size: None, duration: None }, "reference_audio"),
        "size unknown · duration unknown"
    );
    assert_eq!(summary(MediaStatus::Checking, "first_frame"), "checking…");
    let text = screen(&checked(false), 160, 48);
    assert!(text.contains("4.5 s") && text.contains("duration unknown"), "{text}");
    assert!(!text.contains(" 0 s") && !text.contains("0.0 s"), "{text}");
}

#[test]
fn items_not_checked_yet_do_not_block() {
    let mut a = app();
    for m in items() {
        a.add_media(m);
    }
    a.update(Action::MediaChecked(vec![]), NOW);
    assert!(a.form().check().first_problem(Field::Media).is_none(), "{:?}", a.form().check().problems);
}

#[test]
fn a_failing_item_is_shown_beside_it_and_blocks_ctrl_s() {
    let mut a = checked(true);
    let problem = a.form().check().first_problem(Field::Media).expect("a problem on media");
    assert!(problem.contains("media item 2") && problem.contains("404"), "{problem}");
    let effects = ctrl_s(&mut a);
    assert!(!effects.iter().any(|e| matches!(e, Effect::Submit { .. })), "not sent: {effects:?}");

    let mut ok = checked(false);
    let effects = ctrl_s(&mut ok);
    assert!(effects.iter().any(|e| matches!(e, Effect::Submit { .. })), "sent once all pass: {effects:?}");
}

#[test]
fn form_with_checked_media_80x24() {
    insta::assert_snapshot!(screen(&checked(true), 80, 24));
}

#[test]
fn form_with_checked_media_160x48() {
    insta::assert_snapshot!(screen(&checked(false), 160, 48));
}

/// Durations measured by the check count at once: three 6 s videos pass the 15 s limit before
/// Ctrl-S, and the summary bills what will be billed.
#[test]
fn measured_durations_count_before_sending() {
    let mut a = app();
    let videos: Vec<MediaDraft> =
        (1..=3).map(|i| MediaDraft::typed("reference_video", &format!("https://cdn.example/{i}.mp4"), None)).collect();
    for m in &videos {
        a.add_media(m.clone());
    }
    assert!(a.form().check().first_problem(Field::Media).is_none(), "nothing measured yet: {:?}", a.form().check());
    let measured =
        |m: &MediaDraft| (item_key(&m.kind, &m.url), MediaStatus::Checked { size: None, duration: Some(6.0) });
    a.update(Action::MediaChecked(videos[..2].iter().map(measured).collect()), NOW);
    assert!(a.form().check().first_problem(Field::Media).is_none(), "12 s is within the limit");
    assert_eq!(a.form().check().billed, "17 s + 1 reference video of unstated length");
    a.update(Action::MediaChecked(vec![measured(&videos[2])]), NOW);
    let problem = a.form().check().first_problem(Field::Media).unwrap_or_default().to_string();
    assert!(problem.contains("15"), "18 s of video is past the limit before Ctrl-S: {problem}");
    let e = a.update(Action::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)), NOW);
    assert!(!e.iter().any(|e| matches!(e, Effect::Submit { .. })), "{e:?}");
}
