//! Update tests for a batch file in the form: the path input, the plan loaded, Ctrl-S (one
//! batch, the threshold's question, the budget guard, refusals), unloading, and the answer.

use std::collections::BTreeMap;

use crossterm::event::KeyCode;

use super::testkit::*;
use super::*;
use crate::keymap::Scope;
use reel_rules::Budget;
use reel_rules::batch::plan::{Plan, expand_rows};
use reel_rules::batch::read;
use reel_store::LocalState;

/// The plan of `text` over the app's form, as the effect would build it; `sent` are the
/// positions of tasks an earlier run journaled.
fn plan(a: &App, file: &str, text: &str, sent: &[usize]) -> Plan {
    let rows = read::rows(file, text).expect("rows");
    let media = |t: &str| reel_rules::parse_media(t).map_err(|e| e.to_string());
    let (good, problems) =
        expand_rows(&rows, &a.form.batch_defaults(), &BTreeMap::new(), &a.catalog, media, 10_000).expect("within");
    let mut p = Plan::new(file, rows.len(), good, problems);
    p.sent = sent.iter().map(|i| p.keys[*i].clone()).collect();
    p
}

fn load(a: &mut App, p: Plan) -> Vec<Effect> {
    let defaults = a.form.batch_defaults();
    a.update(Action::Batch(BatchNews::Loaded { defaults, refresh: false, result: Ok(p) }), NOW)
}

fn sent_parts(effects: &[Effect]) -> Option<(usize, u32)> {
    effects.iter().find_map(|e| match e {
        Effect::SubmitBatch(parts) => Some((parts.len(), parts.iter().map(|p| p.count).sum())),
        Effect::PastBudget(inner) => sent_parts(std::slice::from_ref(inner)),
        _ => None,
    })
}

#[test]
fn ctrl_o_opens_the_path_input_and_enter_asks_the_effect_with_the_form_as_defaults() {
    let mut a = app();
    typed(&mut a, "a {red|blue} fox");
    ctrl(&mut a, 'o');
    assert_eq!(a.scope(), Scope::Path);
    // Enter on an empty path keeps the input open and says what it wants.
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    assert_eq!(a.scope(), Scope::Path);
    assert!(status(&a).starts_with("Type the path of a batch file"), "{}", status(&a));
    a.update(Action::Paste("~/prompts.cs\n".into()), NOW);
    typed(&mut a, "vx");
    key(&mut a, KeyCode::Backspace);
    let effects = acts(key(&mut a, KeyCode::Enter));
    assert!(a.overlay.is_none());
    match effects.as_slice() {
        [Effect::LoadBatch { path, defaults, refresh: false }] => {
            assert_eq!(path, "~/prompts.csv");
            assert_eq!(defaults.fields.get("prompt").map(String::as_str), Some("a {red|blue} fox"));
            assert_eq!(defaults.fields.get("model").map(String::as_str), Some(a.form.model_id()));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(status(&a), "Reading ~/prompts.csv…");
    // Esc cancels; Ctrl-U clears.
    ctrl(&mut a, 'o');
    typed(&mut a, "x.csv");
    ctrl(&mut a, 'u');
    assert!(matches!(&a.overlay, Some(Overlay::BatchPath(p)) if p.text().is_empty()));
    key(&mut a, KeyCode::Esc);
    assert!(a.overlay.is_none());
    assert_eq!(a.focus, Focus::Form(Field::Prompt), "Esc in the input leaves the form where it was");
}

#[test]
fn ctrl_s_sends_a_loaded_plan_as_one_batch_or_refuses() {
    // (file, sent positions, confirm over, what Ctrl-S does: parts and tasks, or the status)
    type Case = (&'static str, &'static [usize], u32, Result<(usize, u32), &'static str>);
    let cases: [Case; 5] = [
        ("prompt,copies\n{a|b} fox,2\nan owl,\n", &[], 20, Ok((3, 5))),
        ("prompt,copies\n{a|b} fox,2\nan owl,\n", &[2], 20, Ok((2, 4))),
        ("prompt\n{a|b} fox\n", &[0, 1], 20, Err("Not sent: every task of p.csv (2 tasks) was already sent")),
        (
            "prompt,seconds\na fox,31\nan owl,99\n",
            &[],
            20,
            Err("Not sent: p.csv:2: seconds: seconds 31 is out of range"),
        ),
        ("prompt\n{a|b|c} fox\n", &[], 2, Err("?")),
    ];
    for (text, sent, over, want) in cases {
        let mut a = app();
        a.set_batch_confirm_over(over);
        let p = plan(&a, "p.csv", text, sent);
        load(&mut a, p);
        let effects = ctrl(&mut a, 's');
        match want {
            Ok(parts) => {
                assert_eq!(sent_parts(&effects), Some(parts), "{text}");
                assert!(a.form.batch().is_some_and(|b| b.sending()), "{text}");
                // A second Ctrl-S before the engine answers sends nothing.
                assert_eq!(sent_parts(&ctrl(&mut a, 's')), None, "{text}");
                assert!(status(&a).starts_with("Not sent: p.csv is being sent"), "{}", status(&a));
            }
            Err("?") => {
                assert_eq!(sent_parts(&effects), None);
                assert!(
                    matches!(&a.overlay, Some(Overlay::Confirm(Question::Batch { count: 3, .. }))),
                    "{:?}",
                    a.overlay
                );
                assert_eq!(sent_parts(&ch(&mut a, 'y')), Some((3, 3)), "yes sends");
            }
            Err(said) => {
                assert_eq!(sent_parts(&effects), None, "{text}");
                assert!(status(&a).starts_with(said), "{text}: {}", status(&a));
            }
        }
    }
}

#[test]
fn the_threshold_question_can_be_refused_and_the_plan_stays() {
    let mut a = app();
    a.set_batch_confirm_over(1);
    let p = plan(&a, "p.csv", "prompt\n{a|b} fox\n", &[]);
    load(&mut a, p);
    ctrl(&mut a, 's');
    assert!(matches!(&a.overlay, Some(Overlay::Confirm(Question::Batch { count: 2, .. }))));
    assert!(acts(ch(&mut a, 'n')).is_empty());
    assert!(a.form.batch().is_some_and(|b| !b.sending()), "the plan stays, to send later");
}

#[test]
fn a_batch_past_the_daily_budget_asks_as_the_form_does() {
    let mut a = paid(Budget { daily: Some(1.0) });
    // 2 tasks of 5 s at $0.50 a second: $5.00, past $1.00.
    let p = plan(&a, "p.csv", "prompt,model\n{a|b} fox,acme/aurora-3.0/text-to-video\n", &[]);
    load(&mut a, p);
    assert!(sent_parts(&ctrl(&mut a, 's')).is_none());
    assert!(matches!(&a.overlay, Some(Overlay::Confirm(Question::Budget { .. }))), "{:?}", a.overlay);
    assert_eq!(sent_parts(&ch(&mut a, 'y')), Some((2, 2)));
    assert!(a.form.batch().is_some_and(|b| b.sending()));
}

#[test]
fn esc_unloads_the_plan_and_the_typed_prompt_stays() {
    let mut a = app();
    typed(&mut a, "my own prompt");
    let p = plan(&a, "p.txt", "an owl\n", &[]);
    load(&mut a, p);
    assert!(status(&a).starts_with("Loaded p.txt: 1 task to send"), "{}", status(&a));
    assert_eq!(a.form.prompt_text(), "my own prompt");
    key(&mut a, KeyCode::Esc);
    assert!(a.form.batch().is_none());
    assert_eq!(a.focus, Focus::Form(Field::Prompt), "the first Esc unloads");
    assert!(status(&a).starts_with("Unloaded p.txt"), "{}", status(&a));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.focus, Focus::Table, "the next leaves the form");
    // Without a plan, Ctrl-S sends the form as before.
    a.focus = Focus::Form(Field::Prompt);
    assert!(acts(ctrl(&mut a, 's')).iter().any(|e| matches!(e, Effect::Submit { .. })));
}

#[test]
fn the_engine_answer_unloads_a_sent_plan_or_keeps_a_failed_one() {
    let mut a = app();
    let p = plan(&a, "p.csv", "prompt\n{a|b} fox\n", &[]);
    load(&mut a, p.clone());
    ctrl(&mut a, 's');
    let failed = reel_engine::EngineError::Stopped.into();
    a.update(Action::Batch(BatchNews::Submitted(Err(failed))), NOW);
    assert!(a.form.batch().is_some_and(|b| !b.sending()), "kept, to send again");
    ctrl(&mut a, 's');
    let records = vec![rec(7, LocalState::Waiting), rec(8, LocalState::Waiting)];
    a.update(Action::Batch(BatchNews::Submitted(Ok(records))), NOW);
    assert!(a.form.batch().is_none());
    assert_eq!(status(&a), "Sent 2 tasks of p.csv as one batch; the form is as it was");
    assert!(a.table.row(7).is_some() && a.table.row(8).is_some());
    // Loaded again, the plan says they were sent (the effect found their keys).
    load(&mut a, Plan { sent: p.keys.iter().cloned().collect(), ..p });
    assert_eq!(status(&a), "Loaded p.csv: all its 2 tasks were already sent");
    assert_eq!(a.form.batch().map(|b| (b.tasks(), b.left_out(), b.count())), Some((2, 2, 0)));
}

#[test]
fn a_file_that_cannot_be_read_is_said() {
    let mut a = app();
    let e = EffectError::BatchFile {
        path: "/tmp/none.csv".into(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory"),
    };
    a.update(Action::Batch(BatchNews::Loaded { defaults: Default::default(), refresh: false, result: Err(e) }), NOW);
    assert_eq!(status(&a), "Cannot load the batch file: cannot read /tmp/none.csv: No such file or directory");
    assert!(a.form.batch().is_none());
}

fn typed_effects(a: &mut App, text: &str) -> Vec<Effect> {
    text.chars().flat_map(|c| key(a, KeyCode::Char(c))).collect()
}

fn refreshes(effects: &[Effect]) -> Vec<&str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::LoadBatch { path, refresh: true, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_change_of_the_form_loads_the_file_again_over_it() {
    let mut a = app();
    typed(&mut a, "a fox");
    let p = plan(&a, "p.csv", "seconds\n5\n", &[]);
    load(&mut a, p);
    let loaded = status(&a);
    // A tick changes nothing; typing does, once until the answer.
    assert!(refreshes(&a.update(Action::Tick, NOW)).is_empty());
    let asked = typed_effects(&mut a, "!");
    assert_eq!(refreshes(&asked), ["p.csv"]);
    let Some(Effect::LoadBatch { defaults: over, .. }) =
        asked.into_iter().find(|e| matches!(e, Effect::LoadBatch { .. }))
    else {
        panic!("asked above")
    };
    assert!(refreshes(&typed_effects(&mut a, "?")).is_empty(), "one at a time");
    ctrl(&mut a, 's');
    let said = status(&a);
    assert!(said.starts_with("Not sent: p.csv is being expanded again"), "{said}");
    // The answer, over "a fox!", is older than the form ("a fox!?"): it is asked again at once.
    let p = plan(&a, "p.csv", "seconds\n5\n", &[]);
    let effects = a.update(Action::Batch(BatchNews::Loaded { defaults: over, refresh: true, result: Ok(p) }), NOW);
    assert_eq!(refreshes(&effects), ["p.csv"]);
    let (defaults, p) = (a.form.batch_defaults(), plan(&a, "p.csv", "seconds\n5\n", &[]));
    let effects = a.update(Action::Batch(BatchNews::Loaded { defaults, refresh: true, result: Ok(p) }), NOW);
    assert!(refreshes(&effects).is_empty(), "these are the form's fields now");
    assert_eq!(status(&a), said, "a refresh is quiet");
    let prompts: Vec<String> = ctrl(&mut a, 's')
        .iter()
        .filter_map(|e| match e {
            Effect::SubmitBatch(parts) => Some(parts.iter().map(|p| p.submission.prompt.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(prompts, ["a fox!?"], "the plan of the form as it is; loaded: {loaded}");
}

#[test]
fn a_refresh_that_fails_unloads_and_one_for_an_unloaded_file_is_dropped() {
    let mut a = app();
    let p = plan(&a, "p.csv", "prompt\nan owl\n", &[]);
    load(&mut a, p.clone());
    typed(&mut a, "x");
    let e = EffectError::BatchFile {
        path: "p.csv".into(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory"),
    };
    let defaults = a.form.batch_defaults();
    a.update(Action::Batch(BatchNews::Loaded { defaults: defaults.clone(), refresh: true, result: Err(e) }), NOW);
    assert!(a.form.batch().is_none());
    assert_eq!(status(&a), "Unloaded p.csv: cannot load it again: cannot read p.csv: No such file or directory");
    a.update(Action::Batch(BatchNews::Loaded { defaults, refresh: true, result: Ok(p) }), NOW);
    assert!(a.form.batch().is_none(), "a late answer does not load it back");
}

#[test]
fn tab_in_the_path_input_completes_what_is_still_typed() {
    use crate::compose::Completion;
    let text = |a: &App| match &a.overlay {
        Some(Overlay::BatchPath(p)) => p.text().to_string(),
        other => panic!("{other:?}"),
    };
    let mut a = app();
    ctrl(&mut a, 'o');
    typed(&mut a, "~/pro");
    assert_eq!(acts(key(&mut a, KeyCode::Tab)), [Effect::CompletePath("~/pro".into())]);
    assert_eq!(a.focus, Focus::Form(Field::Prompt), "Tab completes; the focus stays");
    let completed = |typed: &str, completion| Action::Batch(BatchNews::Completed { typed: typed.into(), completion });
    // (the answer, the text after it, the status after it)
    let cases = [
        (completed("~/pro", Completion::To("~/prompts.".into())), "~/prompts.", ""),
        (
            completed("~/prompts.", Completion::Choices(vec!["prompts.csv".into(), "prompts.txt".into()])),
            "~/prompts.",
            "Matches: prompts.csv  prompts.txt",
        ),
        (
            completed("~/elsewhere", Completion::To("~/elsewhere/".into())),
            "~/prompts.",
            "Matches: prompts.csv  prompts.txt",
        ),
        (completed("~/prompts.", Completion::Nothing), "~/prompts.", "Nothing in ~/ starts with \"prompts.\""),
    ];
    for (answer, want, said) in cases {
        a.update(answer, NOW);
        assert_eq!((text(&a), status(&a)), (want.to_string(), said.to_string()));
    }
}

#[test]
fn an_answer_for_a_plan_replaced_meanwhile_leaves_the_new_one() {
    let mut a = app();
    let first = plan(&a, "a.csv", "prompt\nan owl\n", &[]);
    load(&mut a, first);
    ctrl(&mut a, 's');
    let second = plan(&a, "b.txt", "# nothing yet\n", &[]);
    load(&mut a, second);
    assert_eq!(status(&a), "Loaded b.txt: it has no task to send");
    a.update(Action::Batch(BatchNews::Submitted(Ok(vec![rec(3, LocalState::Waiting)]))), NOW);
    assert_eq!(a.form.batch().map(|b| b.file()), Some("b.txt"), "the answer was a.csv's");
    assert!(a.table.row(3).is_some());
}
