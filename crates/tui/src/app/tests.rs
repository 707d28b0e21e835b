use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::testkit::*;
use super::*;
use crate::compose::Field;
use crate::history::SEARCH_SETTLE_MS;
use crate::keymap::Scope;
use crate::labels::Filter;
use crate::prefs::Sort;
use reel_engine::{Event, Health, ServiceState};
use reel_rules::{Budget, Catalog, Pricing};
use reel_store::LocalState;
use reel_store::fixtures::record;

#[test]
fn the_prompt_has_the_focus_at_start_and_takes_typing() {
    let mut a = app();
    assert_eq!(a.focus, Focus::Form(Field::Prompt));
    typed(&mut a, "a fox? q");
    assert_eq!(a.form.prompt_text(), "a fox? q", "? and q are typed, not commands, in text");
    assert!(a.form.check().is_clean());
}

#[test]
fn an_empty_prompt_is_refused_with_its_message_and_nothing_is_sent() {
    let mut a = app();
    let effects = ctrl(&mut a, 's');
    assert!(effects.iter().all(|e| !matches!(e, Effect::Submit { .. })), "{effects:?}");
    assert_eq!(status(&a), "Not sent: prompt is required and must not be blank");
    assert_eq!(a.focus, Focus::Form(Field::Prompt));
}

#[test]
fn ctrl_s_submits_copies_and_grids_and_keeps_the_form() {
    let mut a = app();
    typed(&mut a, "a fox");
    let effects = ctrl(&mut a, 's');
    assert!(matches!(&effects[..], [Effect::Submit { plan, copies: 1, parent: None }] if plan.len() == 1));
    a.form.edit_line(Field::Copies, |l| *l = "2".into());
    a.form.edit_line(Field::Grid, |l| *l = "16:9 9:16 4 8".into());
    let effects = ctrl(&mut a, 's');
    assert!(matches!(&effects[..], [Effect::Submit { plan, copies: 2, .. }] if plan.len() == 4));
    assert_eq!(status(&a), "Sending 8 tasks…");
    assert_eq!(a.form.prompt_text(), "a fox", "the form keeps its content");
}

#[test]
fn tab_walks_every_field_then_the_table_and_back() {
    let mut a = app();
    let mut seen = vec![a.focus];
    for _ in 0..Field::ALL.len() {
        key(&mut a, KeyCode::Tab);
        seen.push(a.focus);
    }
    assert_eq!(seen.last(), Some(&Focus::Table));
    key(&mut a, KeyCode::Tab);
    assert_eq!((a.focus, a.scope()), (Focus::Detail, Scope::Detail), "the detail pane takes the focus too");
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.focus, Focus::Form(Field::Prompt), "wraps");
    key(&mut a, KeyCode::BackTab);
    assert_eq!(a.focus, Focus::Detail);
}

#[test]
fn the_service_models_join_the_model_picker_marked() {
    let mut a = app();
    let listed = ["acme/aurora-3.0/text-to-video", "sora-2", "wan2.5-t2v-preview", "bad id"];
    a.update(Action::ServiceModels(listed.iter().map(|s| s.to_string()).collect()), NOW);
    let entries = a.picker_entries(PickerKind::Model);
    let note =
        |id: &str| entries.iter().find(|e| e.split_whitespace().next() == Some(id)).map(|e| e[44..].trim().to_string());
    assert_eq!(note("acme/aurora-3.0/text-to-video").as_deref(), Some("text-to-video"));
    assert_eq!(note("acme/aurora-2.7/text-to-video").as_deref(), Some("text-to-video · not listed by the service"));
    assert_eq!(note("sora-2").as_deref(), Some("listed by the service · no rules (general checks)"));
    assert!(note("wan2.5-t2v-preview").is_some() && note("bad").is_none(), "{entries:?}");
    // One picked is checked with the general rules, and the form says so.
    typed(&mut a, "a fox");
    a.form.set_model_id("sora-2");
    assert!(a.form.check().warnings.iter().any(|w| w.contains("not in the catalog")), "{:?}", a.form.check().warnings);
}

#[test]
fn choices_cycle_toggle_and_pick() {
    let mut a = app();
    a.focus = Focus::Form(Field::Resolution);
    key(&mut a, KeyCode::Right);
    assert_eq!(a.form.resolution(), reel_rules::Resolution::P1080);
    a.focus = Focus::Form(Field::Watermark);
    key(&mut a, KeyCode::Char(' '));
    assert!(a.form.watermark());
    a.focus = Focus::Form(Field::Model);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.overlay, Some(Overlay::Picker { kind: PickerKind::Model, cursor: 0 }));
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    assert_eq!((a.overlay.clone(), a.form.model_index()), (None, 1));
    assert_eq!(a.form.model_id(), "acme/aurora-3.0/image-to-video");
    assert!(a.form.check().first_problem(Field::Media).is_some(), "image-to-video wants a first frame");
}

#[test]
fn number_fields_replace_on_first_key_after_tab() {
    let mut a = app();
    a.focus = Focus::Form(Field::Model);
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.focus, Focus::Form(Field::Seconds));
    typed(&mut a, "12");
    assert_eq!(a.form.seconds(), "12");
    key(&mut a, KeyCode::Backspace);
    assert_eq!(a.form.seconds(), "1");
    assert!(a.form.check().first_problem(Field::Seconds).is_some());
}

#[test]
fn media_items_are_added_edited_and_removed() {
    let mut a = app();
    typed(&mut a, "image 1 walks");
    a.focus = Focus::Form(Field::Media);
    key(&mut a, KeyCode::Char('a'));
    assert!(matches!(a.overlay, Some(Overlay::Media(_))));
    key(&mut a, KeyCode::Down);
    typed(&mut a, "https://x.org/a.png");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.form.media().len(), 1);
    assert_eq!(a.form.media()[0].url, "https://x.org/a.png");
    assert!(a.form.check().first_problem(Field::Media).is_some_and(|p| p.contains("text-to-video")));
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Right);
    assert!(matches!(&a.overlay, Some(Overlay::Media(m)) if m.index() == Some(0)));
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Char('x'));
    assert!(a.form.media().is_empty());
}

#[test]
fn help_opens_from_anywhere_and_closes() {
    let mut a = app();
    key(&mut a, KeyCode::F(1));
    assert_eq!(a.scope(), Scope::HelpView);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, None);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.focus, Focus::Table, "Esc leaves the form");
    key(&mut a, KeyCode::Char('?'));
    assert_eq!(a.scope(), Scope::HelpView);
    key(&mut a, KeyCode::F(1));
    assert_eq!(a.overlay, None);
}

#[test]
fn quitting_from_the_table_and_anywhere() {
    let mut a = app();
    assert_eq!(ctrl(&mut a, 'c'), vec![Effect::Quit]);
    let mut a = app();
    key(&mut a, KeyCode::Esc);
    assert_eq!(key(&mut a, KeyCode::Char('q')), vec![Effect::Quit]);
    assert!(a.quit);
}

#[test]
fn engine_events_fill_the_table_and_ring_when_tasks_end() {
    let mut a = app();
    assert!(!a.animating());
    task(&mut a, 1, LocalState::Queued);
    task(&mut a, 2, LocalState::InProgress);
    assert!(a.animating());
    assert_eq!(a.table.view(), vec![2, 1]);
    assert!(task(&mut a, 1, LocalState::InProgress).is_empty());
    let e = task(&mut a, 1, LocalState::Downloaded);
    assert_eq!(e, vec![Effect::Bell, Effect::Notify("Task 1 downloaded".into())]);
    let e = task(&mut a, 2, LocalState::Failed);
    assert!(e.contains(&Effect::Notify("All tasks are done".into())), "{e:?}");
    let limited = ServiceState { health: Health::RateLimited, ..ServiceState::default() };
    a.update(Action::Engine(Event::Service(limited)), NOW);
    assert_eq!(a.header.service.health, Health::RateLimited);
    task(&mut a, 3, LocalState::Downloading);
    a.update(Action::Engine(Event::Transfer { id: 3, bytes: 50, total: Some(100), rate: 10.0 }), NOW);
    assert_eq!(a.table.row(3).and_then(|r| r.transfer).map(|t| t.bytes), Some(50));
    a.update(Action::Engine(Event::Trouble("disk full \u{1b}[2J".into())), NOW);
    assert_eq!(status(&a), "Disk full [2J", "server and system text is cleaned");
}

#[test]
fn table_navigation_marks_sort_filter_and_search() {
    let mut a = app();
    for id in 1..=5 {
        task(&mut a, id, if id % 2 == 0 { LocalState::Downloaded } else { LocalState::Failed });
    }
    a.focus = Focus::Table;
    a.table.select_at(0);
    key(&mut a, KeyCode::Char('j'));
    key(&mut a, KeyCode::Down);
    assert_eq!(a.table.selected(), 2);
    key(&mut a, KeyCode::Char(' '));
    assert_eq!(a.table.marks().len(), 1);
    let e = key(&mut a, KeyCode::Char('s'));
    assert_eq!(a.table.sort(), Sort::Oldest);
    assert!(matches!(&e[..], [Effect::SavePrefs(p)] if p.sort == Sort::Oldest));
    // f opens the picker of the same few groups every view uses.
    key(&mut a, KeyCode::Char('f'));
    assert_eq!(a.overlay, Some(Overlay::Picker { kind: PickerKind::States, cursor: 0 }));
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    let e = key(&mut a, KeyCode::Enter);
    assert_eq!(a.table.filter(), Filter::Done);
    assert!(matches!(&acts(e)[..], [Effect::SavePrefs(p)] if p.filter == Filter::Done));
    assert_eq!(a.table.view(), vec![2, 4]);
    key(&mut a, KeyCode::Char('f'));
    assert_eq!(a.overlay, Some(Overlay::Picker { kind: PickerKind::States, cursor: 2 }), "on the current one");
    key(&mut a, KeyCode::Home);
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.table.filter(), Filter::All);
    key(&mut a, KeyCode::Char('/'));
    assert_eq!(a.scope(), Scope::Searching);
    typed(&mut a, "zzz");
    assert!(a.table.view().is_empty());
    // Esc drops the search and keeps the marks; Esc again, in the table, clears them.
    key(&mut a, KeyCode::Esc);
    assert_eq!((a.table.view().len(), a.table.marks().len()), (5, 1));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.table.marks().len(), 0);
    // Ctrl-U empties the search text, in the table and in the history.
    key(&mut a, KeyCode::Char('/'));
    typed(&mut a, "zzz");
    ctrl(&mut a, 'u');
    assert_eq!((a.table.search(), a.table.view().len()), (("", true), 5));
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::End);
    assert_eq!(a.table.selected(), 4);
    key(&mut a, KeyCode::Home);
    assert_eq!(a.table.selected(), 0);
}

#[test]
fn actions_on_the_selected_or_marked_tasks() {
    let mut a = app();
    task(&mut a, 1, LocalState::Downloaded);
    task(&mut a, 2, LocalState::SubmitUnknown);
    task(&mut a, 3, LocalState::Stalled);
    a.focus = Focus::Table;
    let pos = |a: &App, id: i64| a.table.view().iter().position(|v| *v == id).expect("shown");
    a.table.select_at(pos(&a, 1));
    assert_eq!(
        acts(key(&mut a, KeyCode::Char('o'))),
        vec![Effect::Open { path: "/videos/1.mp4".into(), sha256: None }]
    );
    assert_eq!(acts(key(&mut a, KeyCode::Char('y'))), vec![Effect::Copy("/videos/1.mp4".into())]);
    assert_eq!(
        a.update(Action::Key(KeyEvent::new(KeyCode::Char('Y'), KeyModifiers::SHIFT)), NOW),
        vec![Effect::Copy("http://127.0.0.1:1/1.mp4".into())]
    );
    assert_eq!(
        acts(key(&mut a, KeyCode::Char('m'))),
        vec![Effect::Run(vec!["mpv".into(), "--fs".into(), "/videos/1.mp4".into()])]
    );
    assert_eq!(
        acts(key(&mut a, KeyCode::Char('d'))),
        vec![Effect::Bulk { op: Op::Download, ids: vec![1], skipped: vec![] }]
    );
    assert!(matches!(&acts(key(&mut a, KeyCode::Char('r')))[..], [Effect::SubmitAgain(items)] if items[0].0 == 1));
    a.table.select_at(pos(&a, 2));
    assert_eq!(
        acts(key(&mut a, KeyCode::Char('r'))),
        vec![Effect::Bulk { op: Op::Resend, ids: vec![2], skipped: vec![] }],
        "an unknown submission is resent, not duplicated"
    );
    assert!(acts(key(&mut a, KeyCode::Char('o'))).is_empty());
    assert!(status(&a).contains("no saved file"), "{}", status(&a));
    a.table.select_at(pos(&a, 3));
    assert_eq!(
        acts(key(&mut a, KeyCode::Char('c'))),
        vec![Effect::Bulk { op: Op::Recheck, ids: vec![3], skipped: vec![] }]
    );
    key(&mut a, KeyCode::Char('e'));
    assert_eq!((a.focus, a.form.parent()), (Focus::Form(Field::Prompt), Some(3)));
    assert_eq!(a.form.prompt_text(), record(3, LocalState::Stalled).prompt);
}

#[test]
fn paste_and_editor_text_are_cleaned_and_bounded() {
    let mut a = app();
    a.update(Action::Paste("a fox\u{1b}[31m\r\nin snow\u{7}".into()), NOW);
    assert_eq!(a.form.prompt_text(), "a fox[31m\nin snow");
    a.update(Action::Paste("x".repeat(100_000)), NOW);
    assert!(a.form.prompt_text().len() <= 20_000 + 20);
    let e = ctrl(&mut a, 'e');
    assert!(matches!(&e[..], [Effect::Edit { field: Field::Prompt, .. }]));
    a.update(Action::Edited(Field::Prompt, Ok("from the editor\n".into())), NOW);
    assert_eq!(a.form.prompt_text(), "from the editor");
    let failed = EffectError::EditorFailed { program: "vi".into(), status: "exit status: 1".into() };
    a.update(Action::Edited(Field::Prompt, Err(failed)), NOW);
    assert_eq!(status(&a), "The editor vi exited with exit status: 1; the text was not changed");
}

#[test]
fn mouse_clicks_select_and_the_wheel_scrolls() {
    let mut a = app();
    for id in 1..=20 {
        task(&mut a, id, LocalState::Downloaded);
    }
    a.table.select_at(0);
    let areas = crate::layout::areas(Rect::new(0, 0, 120, 32), &a.form);
    let click = |col, row| {
        Action::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    a.update(click(areas.table.x + 5, areas.table.y + 2 + 3), NOW);
    assert_eq!((a.focus, a.table.selected()), (Focus::Table, 3));
    let wheel = Action::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: areas.table.x + 5,
        row: areas.table.y + 4,
        modifiers: KeyModifiers::NONE,
    });
    a.update(wheel, NOW);
    assert_eq!(a.table.selected(), 6);
    let seconds = areas.field(Field::Seconds);
    a.update(click(seconds.x + 2, seconds.y), NOW);
    assert_eq!(a.focus, Focus::Form(Field::Seconds));
}

#[test]
fn selection_changes_load_the_timeline_and_ticks_advance_spinners() {
    let mut a = app();
    let e = task(&mut a, 1, LocalState::Queued);
    assert_eq!(e, vec![Effect::LoadTimeline(1)]);
    a.update(Action::Timeline(1, vec![]), NOW);
    let f = a.frame;
    a.update(Action::Tick, NOW + 100);
    assert_eq!((a.frame, a.now_ms), (f + 1, NOW + 100));
    a.update(Action::Resize(80, 24), NOW);
    assert_eq!(a.size, (80, 24));
    a.update(Action::Loaded(vec![record(7, LocalState::InProgress)]), NOW);
    assert!(a.table.row(7).is_some());
}

#[test]
fn history_opens_pages_filters_and_asks_before_deleting() {
    use reel_engine::query::HistoryRow;
    let mut a = app();
    a.focus = Focus::Table;
    let e = a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    assert_eq!(a.screen, Screen::History);
    assert!(e.contains(&Effect::LoadModels));
    let ticket = a.history.ticket();
    assert!(e.iter().any(|x| matches!(x, Effect::HistoryPage { cursor: None, ticket: g, .. } if *g == ticket)));
    let rows: Vec<HistoryRow> =
        (1..=3).map(|i| HistoryRow { record: record(i, LocalState::Downloaded), file_present: Some(i != 2) }).collect();
    let e = a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
    assert_eq!(e, vec![Effect::Lineage(1)], "a short page means no more pages; the selection's lineage loads");
    // A search starts the query over once typing pauses; a kept search is remembered.
    key(&mut a, KeyCode::Char('/'));
    assert_eq!(a.scope(), Scope::HistorySearch);
    assert!(key(&mut a, KeyCode::Char('f')).is_empty());
    let e = a.update(Action::Tick, NOW + SEARCH_SETTLE_MS);
    assert!(e.iter().any(|x| matches!(x, Effect::HistoryPage { query, .. } if query.text == "f")));
    let e = key(&mut a, KeyCode::Enter);
    assert!(e.iter().any(|x| matches!(x, Effect::SavePrefs(p) if p.history.text == "f")), "the query is remembered");
    let stale = a.update(Action::HistoryPage(ticket, Ok(vec![])), NOW);
    assert!(stale.is_empty() || a.history.rows().is_empty());
    let g = a.history.ticket();
    let rows: Vec<HistoryRow> =
        (1..=2).map(|i| HistoryRow { record: record(i, LocalState::Downloaded), file_present: Some(i == 1) }).collect();
    a.update(Action::HistoryPage(g, Ok(rows)), NOW);
    let e = key(&mut a, KeyCode::Char('t'));
    assert!(e.iter().any(|x| matches!(x, Effect::HistoryPage { query, .. } if query.since.is_some())));
    // Actions: a missing file is said so, not an error.
    let g = a.history.ticket();
    a.update(
        Action::HistoryPage(
            g,
            Ok(vec![HistoryRow { record: rec(2, LocalState::Downloaded), file_present: Some(false) }]),
        ),
        NOW,
    );
    assert!(acts(key(&mut a, KeyCode::Char('o'))).is_empty());
    assert_eq!(status(&a), "The file of task 2 is missing: /videos/2.mp4 (moved or deleted)");
    assert!(
        matches!(&acts(key(&mut a, KeyCode::Char('y')))[..], [Effect::Copy(p)] if *p == record(2, LocalState::Downloaded).prompt)
    );
    key(&mut a, KeyCode::Char('x'));
    assert_eq!(a.scope(), Scope::Confirm);
    assert_eq!(key(&mut a, KeyCode::Char('f')), vec![Effect::Delete { id: 2, remove_file: true }]);
    a.update(Action::Deleted(Ok(record(2, LocalState::Downloaded))), NOW);
    assert!(a.history.rows().is_empty());
    let e = key(&mut a, KeyCode::Char('L'));
    assert!(matches!(&e[..], [Effect::LoadLedger(_)]));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.screen, Screen::Dashboard);
}

/// A dashboard with a daily budget, where `model` costs $0.50 a second.
fn budgeted(model: &str, daily: f64) -> App {
    let header = Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: ServiceState::default(),
    };
    let pricing = Pricing { currency: "$".into(), per_second: [(model.to_string(), 0.5)].into_iter().collect() };
    let budget = Budget { daily: Some(daily) };
    App::new(Catalog::builtin(), pricing, vec![], budget, header, Prefs::default(), NOW, (120, 32))
}

#[test]
fn past_the_daily_budget_the_dashboard_asks_first() {
    let mut a = budgeted("acme/aurora-3.0/text-to-video", 3.0);
    let opening = Effect::Reload { since_ms: NOW - crate::link::RECENT_MS, check: vec![] };
    assert_eq!(a.initial_effects(), vec![opening, Effect::LoadServiceModels, Effect::LoadSpent]);
    a.update(Action::Spent(1.0), NOW);
    typed(&mut a, "a fox");
    // 5 s at $0.50 is $2.50: $1.00 + $2.50 passes $3.00.
    assert!(ctrl(&mut a, 's').is_empty());
    assert_eq!(a.scope(), Scope::Confirm);
    assert!(status(&a).contains("past the daily budget of $3.00"), "{}", status(&a));
    assert!(key(&mut a, KeyCode::Char('n')).is_empty());
    ctrl(&mut a, 's');
    // Sent with the user's yes, which the engine needs to pass its budget.
    assert!(
        matches!(&key(&mut a, KeyCode::Char('y'))[..], [Effect::PastBudget(e)] if matches!(**e, Effect::Submit { .. }))
    );
    assert!((a.spent_today - 3.5).abs() < 1e-9);
}

#[test]
fn demo_work_is_free_in_the_form_and_passes_no_budget() {
    let mut a = budgeted("acme/aurora-3.0/text-to-video", 3.0);
    a.header.demo = true;
    a.form.set_demo(true);
    a.update(Action::Spent(2.9), NOW);
    typed(&mut a, "a fox");
    assert_eq!(a.form.check().cost, "free (demo)", "the form quotes what the ledger counts");
    // Priced at $2.50 on a real service, past $3.00 with $2.90 spent: in demo mode, sent.
    assert!(matches!(&ctrl(&mut a, 's')[..], [Effect::Submit { .. }]), "{}", status(&a));
    assert!(a.overlay.is_none(), "no budget question");
}

#[test]
fn sends_in_a_row_add_up_even_when_the_spending_is_read_late() {
    let mut a = budgeted("acme/aurora-3.0/text-to-video", 4.0);
    typed(&mut a, "a fox");
    // $2.50 of $4.00, sent before the journal's figure came back.
    assert!(matches!(&ctrl(&mut a, 's')[..], [Effect::Submit { .. }]), "{}", status(&a));
    // The figure was read before that task was journaled: it does not undo the send.
    a.update(Action::Spent(0.0), NOW);
    assert!(ctrl(&mut a, 's').is_empty(), "$2.50 + $2.50 passes $4.00");
    assert_eq!(a.scope(), Scope::Confirm);
    assert!(status(&a).contains("adds $2.50 to the $2.50 spent today"), "{}", status(&a));
    key(&mut a, KeyCode::Char('n'));
    // Another client's sends, read later, raise the figure.
    a.update(Action::Spent(3.5), NOW);
    assert!(ctrl(&mut a, 's').is_empty());
    assert!(status(&a).contains("to the $3.50 spent today"), "{}", status(&a));
}

#[test]
fn a_model_without_a_price_is_never_asked_about() {
    // Only another model has a price; the form's is unpriced.
    let mut a = budgeted("acme/aurora-2.7/text-to-video", 5.0);
    a.update(Action::Spent(5.2), NOW);
    typed(&mut a, "a fox");
    for _ in 0..3 {
        assert!(matches!(&ctrl(&mut a, 's')[..], [Effect::Submit { .. }]), "{}", status(&a));
        assert!(!status(&a).contains("budget"), "{}", status(&a));
        assert_ne!(a.scope(), Scope::Confirm);
    }
}

fn in_history(rows: i64) -> App {
    use reel_engine::query::HistoryRow;
    let mut a = app();
    a.focus = Focus::Table;
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    let page =
        (1..=rows).map(|i| HistoryRow { record: record(i, LocalState::Downloaded), file_present: None }).collect();
    a.update(Action::HistoryPage(a.history.ticket(), Ok(page)), NOW);
    a
}

fn pages(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::HistoryPage { query, .. } => Some(query.text.clone()),
            _ => None,
        })
        .collect()
}

fn saves(effects: &[Effect]) -> usize {
    effects.iter().filter(|e| matches!(e, Effect::SavePrefs(_))).count()
}

#[test]
fn history_search_waits_for_typing_to_pause_and_saves_once() {
    let mut a = in_history(3);
    key(&mut a, KeyCode::Char('/'));
    assert!(!a.animating(), "nothing waits yet");
    // Keys 100 ms apart: each one pushes the search back; no query, no file written.
    let mut t = NOW;
    for c in "fox".chars() {
        let e = a.update(Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)), t);
        assert!(pages(&e).is_empty() && saves(&e) == 0, "{c}: {e:?}");
        assert!(a.animating(), "the loop ticks while a search waits");
        t += 100;
        assert!(pages(&a.update(Action::Tick, t)).is_empty(), "{c}: still typing");
    }
    assert_eq!(a.history.rows().len(), 3, "the old rows stay until the new query runs");
    // A pause: the query runs once, for the whole text, and the file is not written yet.
    let e = a.update(Action::Tick, t - 100 + SEARCH_SETTLE_MS);
    assert_eq!((pages(&e), saves(&e)), (vec!["fox".to_string()], 0));
    assert!(!a.animating() && a.history.rows().is_empty());
    assert!(a.update(Action::Tick, t + 1_000).is_empty(), "it runs once");
    // Enter before the pause runs it at once; the kept search is written once.
    a.update(Action::Key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE)), t);
    let e = a.update(Action::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)), t + 10);
    assert_eq!((pages(&e), saves(&e)), (vec!["fo".to_string()], 1));
    assert!(!a.animating());
}

#[test]
fn a_search_not_yet_written_is_written_when_quitting() {
    for settled in [false, true] {
        let mut a = in_history(3);
        key(&mut a, KeyCode::Char('/'));
        typed(&mut a, "owl");
        if settled {
            a.update(Action::Tick, NOW + SEARCH_SETTLE_MS);
        }
        let e = ctrl(&mut a, 'c');
        assert!(matches!(&e[..], [Effect::SavePrefs(p), Effect::Quit] if p.history.text == "owl"), "{e:?}");
    }
    let mut a = in_history(3);
    assert_eq!(ctrl(&mut a, 'c'), vec![Effect::Quit], "nothing to write");
}

#[test]
fn effect_errors_reach_the_status_line_as_their_message() {
    use reel_engine::EngineError;
    let mut a = app();
    a.update(
        Action::Submitted {
            again: false,
            result: Err(EngineError::from(reel_engine::Refused::NoTask { id: 3 }).into()),
        },
        NOW,
    );
    assert_eq!(status(&a), "Not sent: no task 3");
    // The socket closed during the request: whether the engine journaled it first is unknown.
    a.update(Action::Submitted { again: false, result: Err(EngineError::Stopped.into()) }, NOW);
    assert!(status(&a).starts_with("The engine stopped before it answered: if it recorded"), "{}", status(&a));
    a.update(Action::Report(Err(EngineError::from(reel_engine::Refused::NoTask { id: 9 }).into())), NOW);
    assert_eq!(status(&a), "No task 9", "one capitalisation style");
    let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file \u{1b}[2J");
    a.update(Action::Report(Err(EffectError::Spawn { program: "mpv".into(), source: missing })), NOW);
    assert_eq!(status(&a), "Cannot run mpv: No such file [2J", "cleaned for the screen");
    let (g, _) = a.history.restart(0);
    assert!(a.history.loading());
    a.update(Action::HistoryPage(g, Err(EngineError::Stopped.into())), NOW);
    assert!(!a.history.loading());
    assert_eq!(status(&a), "Cannot read the history: the engine has stopped");
    a.update(Action::Deleted(Err(EngineError::from(reel_engine::Refused::NoTask { id: 4 }).into())), NOW);
    assert_eq!(status(&a), "No task 4");
}
