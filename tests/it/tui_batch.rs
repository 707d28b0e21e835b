//! A batch file loaded into the dashboard's form, drawn on TestBackend: the file, its rows,
//! tasks after expansion, those an earlier run sent, billed seconds and cost, and the row
//! errors where the form shows its problems.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use reel_engine::config::Pricing;
use reel_rules::Catalog;
use reel_rules::batch::plan::{Plan, expand_rows};
use reel_rules::batch::read;
use reel_tui::app::{Action, App, BatchNews};

use crate::common::{dashboard, screen};

const NOW: i64 = 1_800_000_100_000;

/// A dashboard on a priced provider, the prompt typed: it is the rows' default prompt.
fn app() -> App {
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.08)].into_iter().collect(),
    };
    let mut a = dashboard(pricing, NOW);
    for c in "a {red|blue} fox at dawn".chars() {
        a.update(Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)), NOW);
    }
    a
}

/// `text` as the effect reads it, over the form's fields; `sent`: tasks an earlier run sent.
fn load(a: &mut App, file: &str, text: &str, sent: &[usize]) {
    let rows = read::rows(file, text).expect("rows");
    let media = |t: &str| reel_rules::parse_media(t).map_err(|e| e.to_string());
    let defaults = a.form().batch_defaults();
    let (good, problems) =
        expand_rows(&rows, &defaults, &BTreeMap::new(), &Catalog::builtin(), media, 10_000).expect("within");
    let mut plan = Plan::new(file, rows.len(), good, problems);
    plan.sent = sent.iter().map(|i| plan.keys[*i].clone()).collect();
    let defaults = a.form().batch_defaults();
    a.update(Action::Batch(BatchNews::Loaded { defaults, refresh: false, result: Ok(plan) }), NOW);
}

/// Row 2 takes the typed prompt (2 prompts × 2 seconds), row 3 its own (2 prompts); the
/// first task was sent by an earlier run.
const PROMPTS: &str = "prompt,seconds,ratio\n,\"5,10\",\nan owl in {snow|rain},8,9:16\n";

fn loaded() -> App {
    let mut a = app();
    load(&mut a, "prompts.csv", PROMPTS, &[0]);
    a
}

#[test]
fn the_form_shows_the_plan_and_its_figures() {
    let a = loaded();
    let b = a.form().batch().expect("loaded");
    // 2 rows, 6 tasks, 1 left out: 5 to send; 10 + 5 + 10 + 8 + 8 = 41 s at $0.08.
    assert_eq!((b.rows(), b.tasks(), b.left_out(), b.count()), (2, 6, 1, 5));
    assert_eq!((b.billed(), b.cost()), ("41 s", "$3.28"));
    assert_eq!(a.form().prompt_text(), "a {red|blue} fox at dawn", "the typed prompt stays");
    let s = screen(&a, 120, 32);
    for shown in
        ["batch prompts.csv", "5 tasks · billed 41 s · cost $3.28", "prompts.csv: 2 rows → 6 tasks (1 sent before"]
    {
        assert!(s.contains(shown), "{shown}:\n{s}");
    }
}

#[test]
fn form_with_a_batch_80x24() {
    insta::assert_snapshot!(screen(&loaded(), 80, 24));
}

#[test]
fn form_with_a_batch_160x48() {
    insta::assert_snapshot!(screen(&loaded(), 160, 48));
}

#[test]
fn form_with_row_errors_120x32() {
    let mut a = app();
    load(&mut a, "prompts.csv", "prompt,seconds\na cat,31\nan owl,5\na dog,99\n", &[]);
    let s = screen(&a, 120, 32);
    assert!(s.contains("✗ prompts.csv:2: seconds:"), "{s}");
    assert!(s.contains("✗ prompts.csv:4: seconds:"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn the_path_input_120x32() {
    let mut a = app();
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)), NOW);
    a.update(Action::Paste("~/prompts/today.csv".into()), NOW);
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn thousands_of_row_errors_are_counted_past_the_first_fifty() {
    let mut a = app();
    let rows: String = (0..60).map(|i| format!("cat {i},{}\n", 31 + i)).collect();
    load(&mut a, "many.csv", &format!("prompt,seconds\n{rows}"), &[]);
    let s = screen(&a, 200, 400);
    assert!(s.contains("✗ many.csv:51: seconds:"), "{s}");
    assert!(!s.contains("✗ many.csv:52: seconds:"), "{s}");
    assert!(s.contains("… and 10 more row errors"), "{s}");
}
