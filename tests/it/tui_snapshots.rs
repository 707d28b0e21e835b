//! The dashboard drawn on ratatui's TestBackend, compared with reviewed snapshots (insta).
//! Times are injected, so the screens are the same on every machine.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::{Frame, Terminal};
use reel_engine::config::{Budget, Pricing};
use reel_engine::{Event, ServiceState, TaskUpdate};
use reel_rules::Catalog;
use reel_store::fixtures::record;
use reel_store::{LocalState, TaskRecord};
use reel_tui::app::{Action, App, Focus, Header, Overlay};
use reel_tui::compose::Field;
use reel_tui::prefs::Prefs;
use reel_tui::views;
use serde_json::json;

const NOW: i64 = 1_800_000_100_000;

fn app(demo: bool) -> App {
    with_budget(demo, Budget::default())
}

fn with_budget(demo: bool, budget: Budget) -> App {
    let base_url = if demo { "the demo simulator" } else { "http://127.0.0.1:8787/" };
    with_base_url(demo, budget, base_url)
}

fn with_base_url(demo: bool, budget: Budget, base_url: &str) -> App {
    crate::common::utc();
    let header = Header {
        profile: (!demo).then(|| "work".to_string()),
        base_url: base_url.into(),
        demo,
        far: None,
        service: ServiceState::default(),
    };
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.08)].into_iter().collect(),
    };
    App::new(Catalog::builtin(), pricing, vec![], budget, header, Prefs::default(), NOW, (120, 32))
}

fn screen(app: &App, width: u16, height: u16) -> String {
    drawn(app, width, height, views::draw)
}

/// The text `draw` puts on a terminal of this size.
fn drawn(app: &App, width: u16, height: u16, draw: impl Fn(&mut Frame, &App)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal.draw(|f| draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let mut line = String::new();
        let mut x = 0;
        while x < width {
            let symbol = buffer[(x, y)].symbol();
            line.push_str(symbol);
            // A double-width character covers the next cell too.
            x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "a control character reached the screen");
    out
}

fn key(app: &mut App, code: KeyCode) {
    app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)), NOW);
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn tab_to(app: &mut App, field: Field) {
    while app.focus() != Focus::Form(field) {
        key(app, KeyCode::Tab);
    }
}

fn put(app: &mut App, r: TaskRecord, eta_ms: Option<i64>) {
    app.update(Action::Engine(Event::Task(Box::new(TaskUpdate { record: r, eta_ms }))), NOW);
}

fn task(id: i64, state: LocalState, prompt: &str, age_s: i64) -> TaskRecord {
    let mut r = record(id, state);
    r.prompt = prompt.into();
    r.created_at = NOW - age_s * 1000;
    r.submitted_at = Some(r.created_at);
    r.remote_created_at = Some(r.created_at / 1000);
    r
}

fn busy_app() -> App {
    let mut a = app(false);
    put(&mut a, task(1, LocalState::Submitting, "a lighthouse in a storm, waves crashing", 1), None);
    let mut q = task(2, LocalState::Queued, "a red fox running through fresh snow at dawn", 12);
    q.progress = Some(0.0);
    put(&mut a, q, Some(NOW + 95_000));
    let mut p = task(3, LocalState::InProgress, "slow pan over a neon city at night, rain", 70);
    p.progress = Some(42.0);
    put(&mut a, p, Some(NOW + 40_000));
    let mut d = task(4, LocalState::Downloading, "a paper boat drifting down a gutter stream", 130);
    d.url = Some("http://127.0.0.1:8787/files/task_4.mp4".into());
    d.url_deadline = Some(NOW + 3_500_000);
    put(&mut a, d, None);
    a.update(Action::Engine(Event::Transfer { id: 4, bytes: 600_000, total: Some(1_000_000), rate: 2_000_000.0 }), NOW);
    let mut done = task(5, LocalState::Downloaded, "macro shot of a dew drop on a leaf", 200);
    done.finished_at = Some(NOW - 20_000);
    done.file_path = Some("/home/me/.local/share/reel/videos/2027-01-15/5-macro-shot-of-a-dew-drop.mp4".into());
    done.file_size = Some(1_234_567);
    put(&mut a, done, None);
    let mut failed = task(6, LocalState::Failed, "a crowd at a concert \u{1b}[31m", 300);
    failed.finished_at = Some(NOW - 100_000);
    failed.error =
        Some(json!({"code": "content_policy", "message": "The prompt was flagged \u{1b}[2J by the content filter."}));
    put(&mut a, failed, None);
    a
}

#[test]
fn empty_demo_dashboard() {
    insta::assert_snapshot!(screen(&app(true), 120, 32));
}

#[test]
fn validation_errors_beside_their_fields() {
    let mut a = app(false);
    typed(&mut a, "a fox");
    tab_to(&mut a, Field::Seconds);
    typed(&mut a, "99");
    tab_to(&mut a, Field::Grid);
    typed(&mut a, "16:9 wide");
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn grid_preview_counts_tasks_billing_and_cost() {
    let mut a = app(false);
    typed(&mut a, "a fox in the snow");
    tab_to(&mut a, Field::Copies);
    typed(&mut a, "2");
    tab_to(&mut a, Field::Grid);
    typed(&mut a, "16:9 9:16 5 10");
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn running_tasks() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    a.select_row(2);
    insta::assert_snapshot!(screen(&a, 160, 40));
}

/// The service refuses connections: the header says since when and the next try; the tasks
/// wait, each with the reason.
#[test]
fn an_outage_with_tasks_waiting() {
    let mut a = app(false);
    for id in 1..=2 {
        let mut w = task(id, LocalState::Waiting, "a lighthouse in a storm, waves crashing", 90);
        (w.submitted_at, w.remote_created_at, w.batch_id) = (None, None, Some(1));
        w.error = Some(json!({"message": "not sent: could not connect to http://127.0.0.1:8787: connection refused; \
                                           the request was not sent; sent when the service answers"}));
        put(&mut a, w, None);
    }
    let outage = ServiceState {
        health: reel_engine::Health::Unreachable,
        since_ms: Some(NOW - 75_000),
        paused_until_ms: Some(NOW + 8_000),
        retry_after: false,
        detail: Some("could not connect to http://127.0.0.1:8787: connection refused".into()),
        disk: None,
    };
    a.update(Action::Engine(Event::Service(outage)), NOW);
    a.focus_on(Focus::Table);
    let shown = screen(&a, 120, 32);
    assert!(
        shown.lines().next().is_some_and(|l| l.contains("service unreachable since 08:00 · next try in 8 s")),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

/// The disk is full: the header says the engine's work is paused, where, and by how much.
#[test]
fn running_tasks_paused_on_a_full_disk() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    let disk = reel_engine::disk::DiskFull {
        dir: "/home/ana/.local/share/reel/videos".into(),
        free_bytes: Some(412_000),
        needed_bytes: Some(3_074_000),
        what: "task 3's file".into(),
        since_ms: NOW - 30_000,
    };
    a.update(Action::Engine(Event::Service(ServiceState { disk: Some(disk), ..ServiceState::default() })), NOW);
    let shown = screen(&a, 160, 40);
    let header = shown.lines().next().unwrap_or_default();
    assert!(
        header.contains("paused: the disk holding /home/ana/.local/share/reel/videos is full (0.4 MB free, the next file needs 3.1 MB)"),
        "{shown}"
    );
    assert!(header.contains("service ok"), "the service itself is fine: {header}");
    insta::assert_snapshot!(shown);
}

/// The engine process went away: the header says so and when the next attempt is, and
/// neither the spinners nor the service's health claim anything live.
#[test]
fn running_tasks_with_the_engine_lost() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    a.update(Action::Reloaded(Ok(reel_tui::app::Reload::default())), NOW - 12_000);
    a.update(Action::LinkLost, NOW - 12_000);
    for attempt in 1..=2 {
        a.update(Action::Reattaching(attempt), NOW - 500);
        a.update(Action::ReattachFailed { attempt, error: "no answer".into() }, NOW - 500);
    }
    a.update(Action::Tick, NOW);
    let lost = screen(&a, 160, 40);
    assert!(lost.contains("engine lost 0:12 ago · attempt 3 in 0.5s"), "{lost}");
    assert!(!lost.contains("service ok"), "{lost}");
    insta::assert_snapshot!(lost);
    let narrow = screen(&a, 80, 24);
    assert!(narrow.contains("engine lost"), "{narrow}");
    insta::assert_snapshot!("running_tasks_with_the_engine_lost_80x24", narrow);
}

#[test]
fn a_failed_task_selected() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    a.select_row(a.table().view().iter().position(|id| *id == 6).expect("shown"));
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn a_downloaded_task_selected() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    a.select_row(a.table().view().iter().position(|id| *id == 5).expect("shown"));
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn help_overlay() {
    let mut a = app(false);
    key(&mut a, KeyCode::F(1));
    insta::assert_snapshot!(screen(&a, 120, 32));
}

#[test]
fn smallest_supported_terminal() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn hostile_and_wide_text_cannot_break_the_layout() {
    let mut a = app(false);
    let mut r = task(1, LocalState::Failed, &format!("桜の木の下で 🎬 {}", "very long ".repeat(50)), 30);
    r.remote_id = Some(format!("task_\u{1b}]52;c;{}\u{7}", "A".repeat(300)));
    r.error = Some(json!({"message": format!("\u{1b}[2J\u{1b}[H{}", "x".repeat(5000))}));
    r.model = "evil/\u{9b}31m-3.0/text-to-video".into();
    put(&mut a, r, None);
    a.update(Action::Paste("日本語のプロンプト\u{1b}[31m".repeat(20)), NOW);
    a.focus_on(Focus::Table);
    for (w, h) in [(80, 24), (120, 32)] {
        let s = screen(&a, w, h);
        assert!(s.lines().all(|l| l.chars().count() <= w as usize), "a line is wider than the terminal");
    }
    insta::assert_snapshot!(screen(&a, 120, 32));
}

fn history_app() -> App {
    use reel_engine::query::HistoryRow;
    let mut a = app(false);
    a.focus_on(Focus::Table);
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    let ticket = a.history().ticket();
    let mut parent = task(10, LocalState::Downloaded, "a red fox in fresh snow", 3000);
    parent.file_path = Some("/videos/10-a-red-fox.mp4".into());
    parent.file_size = Some(2_000_000);
    let mut child = task(11, LocalState::Downloaded, "a red fox in deep snow at dusk", 2000);
    child.parent_id = Some(10);
    child.seconds = 10;
    child.file_path = Some("/videos/11-a-red-fox.mp4".into());
    let failed = task(12, LocalState::Failed, "a blue whale under ice", 1000);
    let rows = vec![
        HistoryRow { record: failed, file_present: None },
        HistoryRow { record: child.clone(), file_present: Some(false) },
        HistoryRow { record: parent.clone(), file_present: Some(true) },
    ];
    a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
    a.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
    a.update(Action::Lineage(11, Some(parent), vec![]), NOW);
    a
}

#[test]
fn history_with_lineage_and_a_missing_file() {
    insta::assert_snapshot!(screen(&history_app(), 120, 32));
}

fn ledger_app() -> App {
    use reel_engine::ledger;
    use reel_store::history::LedgerRow;
    let mut a = history_app();
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT)), NOW);
    let rows = vec![
        LedgerRow {
            day: "2027-01-14".into(),
            model: "acme/aurora-3.0/text-to-video".into(),
            tasks: 4,
            succeeded: 3,
            failed: 1,
            billed_seconds: 30.0,
            ..LedgerRow::default()
        },
        LedgerRow {
            day: "2027-01-15".into(),
            model: "acme/aurora-2.7/text-to-video".into(),
            tasks: 4,
            succeeded: 2,
            failed: 0,
            rejected: 1,
            lost: 1,
            billed_seconds: 20.0,
            unknown_billed: 1,
            rated: 3,
            rating_total: 11,
            ..LedgerRow::default()
        },
    ];
    let times = [("acme/aurora-3.0/text-to-video".to_string(), vec![60.0, 90.0, 120.0])].into_iter().collect();
    let pricing = Pricing {
        currency: "$".into(),
        per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.08)].into_iter().collect(),
    };
    a.update(Action::Ledger(ledger::compute(&rows, &times, &pricing)), NOW);
    a
}

#[test]
fn history_ledger() {
    insta::assert_snapshot!(screen(&ledger_app(), 120, 32));
}

/// Each pane alone, at the largest and the smallest size it is designed for.
fn each_size(name: &str, app: &App, draw: impl Fn(&mut Frame, &App)) {
    for (w, h) in [(160, 48), (80, 24)] {
        let mut shown = drawn(app, w, h, &draw);
        shown.insert_str(0, &format!("{name} at {w}x{h}\n"));
        insta::assert_snapshot!(format!("pane_{name}_{w}x{h}"), shown);
    }
}

#[test]
fn pane_compose() {
    let mut a = app(false);
    typed(&mut a, "a fox");
    tab_to(&mut a, Field::Seconds);
    typed(&mut a, "99");
    tab_to(&mut a, Field::Grid);
    typed(&mut a, "16:9 wide");
    each_size("compose", &a, |f, app| {
        reel_tui::compose::view::draw(f, &reel_tui::layout::areas(f.area(), app.form()), app)
    });
}

#[test]
fn pane_tasks() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    a.select_row(2);
    each_size("tasks", &a, |f, app| reel_tui::tasks::view::draw(f, f.area(), app));
}

#[test]
fn pane_detail() {
    let mut a = busy_app();
    a.select_row(a.table().view().iter().position(|id| *id == 6).expect("shown"));
    each_size("detail_failed", &a, |f, app| reel_tui::detail::view::draw(f, f.area(), app));
    a.select_row(a.table().view().iter().position(|id| *id == 4).expect("shown"));
    each_size("detail_downloading", &a, |f, app| reel_tui::detail::view::draw(f, f.area(), app));
}

#[test]
fn pane_history() {
    each_size("history", &history_app(), |f, app| reel_tui::history::view::draw(f, f.area(), app));
    each_size("history_ledger", &ledger_app(), |f, app| reel_tui::history::view::draw(f, f.area(), app));
}

#[test]
fn pane_history_search_while_typing() {
    let mut a = history_app();
    key(&mut a, KeyCode::Char('/'));
    typed(&mut a, "red f");
    assert!(a.animating(), "the search waits for typing to pause");
    each_size("history_search", &a, |f, app| reel_tui::history::view::draw(f, f.area(), app));
}

#[test]
fn pane_help() {
    let a = app(false);
    let help = reel_tui::help::HelpState::new(a.keymap(), reel_tui::keymap::Scope::Table, "task table");
    each_size("help", &a, |f, _| reel_tui::help::view::draw(f, &help));
}

/// The help opened from the task table and scrolled to its end with End: its last lines
/// are reachable at both sizes.
#[test]
fn help_scrolled_to_its_end() {
    for (w, h) in [(160, 48), (80, 24)] {
        let mut a = app(false);
        a.update(Action::Resize(w, h), NOW);
        key(&mut a, KeyCode::Esc);
        key(&mut a, KeyCode::Char('?'));
        key(&mut a, KeyCode::End);
        let Some(Overlay::Help(help)) = a.overlay() else { panic!("no help") };
        assert!(help.scroll() > 0, "{w}x{h}: the help is longer than the screen");
        let shown = format!("help at its end at {w}x{h}\n{}", screen(&a, w, h));
        assert!(shown.contains("close the help"), "the help's own keys come last:\n{shown}");
        insta::assert_snapshot!(format!("help_end_{w}x{h}"), shown);
    }
}

/// A grid of 24 tasks (6 ratios × 4 durations, one prompt): every row tells its ratio and
/// seconds apart, the rows are drawn as one group, and the table says which rows are shown.
#[test]
fn a_grid_of_24_tasks() {
    for (w, h) in [(160, 48), (80, 24)] {
        let mut a = app(false);
        a.update(Action::Resize(w, h), NOW);
        let ratios = ["16:9", "9:16", "1:1", "4:3", "3:4", "adaptive"];
        let mut id = 1;
        for ratio in ratios {
            for secs in [4, 5, 8, 10] {
                let mut r = task(id, LocalState::Queued, "a lighthouse in a storm, waves crashing on the rocks", 60);
                r.created_at = NOW - 60_000 + id * 10;
                r.ratio = ratio.into();
                r.seconds = secs;
                r.billed_seconds = Some(secs as f64);
                r.progress = Some(id as f64 * 3.0);
                r.batch_id = Some(1);
                if id % 5 == 0 {
                    r.state = LocalState::Downloaded;
                    r.remote_completed_at = Some(r.created_at / 1000 + 40);
                }
                put(&mut a, r, Some(NOW + 30_000));
                id += 1;
            }
        }
        a.focus_on(Focus::Table);
        a.select_row(3);
        key(&mut a, KeyCode::Char(' '));
        key(&mut a, KeyCode::Down);
        key(&mut a, KeyCode::Char(' '));
        let shown = format!("a grid of 24 tasks at {w}x{h}\n{}", screen(&a, w, h));
        let hidden = h < 48;
        assert_eq!(
            shown.contains("1–10 of 24 ↓"),
            hidden,
            "the scroll position is shown when rows are hidden:\n{shown}"
        );
        assert!(shown.contains("16:9") && shown.contains("10 s"), "ratio and seconds are shown:\n{shown}");
        assert!(shown.contains("●"), "marks have a glyph:\n{shown}");
        assert!(shown.contains("? help") && shown.contains("q quit"), "the footer keeps help and quit:\n{shown}");
        insta::assert_snapshot!(format!("grid_24_{w}x{h}"), shown);
    }
}

/// The history's detail lists media items as the dashboard's does, with the billed seconds by
/// the one rule (a reference video of unstated length is not 0).
#[test]
fn history_detail_with_media() {
    use reel_engine::query::HistoryRow;
    use reel_store::MediaRecord;
    for (w, h) in [(160, 48), (80, 24)] {
        let mut a = app(false);
        a.update(Action::Resize(w, h), NOW);
        a.focus_on(Focus::Table);
        a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
        let mut t = task(21, LocalState::Downloaded, "image 1 and video 1 walk along the shore", 600);
        t.model = "acme/aurora-3.0/reference-to-video-global".into();
        t.seconds = 8;
        t.billed_seconds = None;
        t.media = vec![
            MediaRecord {
                kind: "reference_image".into(),
                url: "https://cdn.example/a.png".into(),
                seconds: None,
                local: None,
            },
            MediaRecord {
                kind: "reference_video".into(),
                url: "https://cdn.example/b.mp4".into(),
                seconds: None,
                local: None,
            },
            MediaRecord {
                kind: "reference_audio".into(),
                url: "https://cdn.example/c.mp3".into(),
                seconds: Some(4.0),
                local: None,
            },
        ];
        t.file_path = Some("/videos/21-image-1.mp4".into());
        t.file_size = Some(3_000_000);
        let g = a.history().ticket();
        a.update(Action::HistoryPage(g, Ok(vec![HistoryRow { record: t, file_present: Some(true) }])), NOW);
        let shown = format!("history detail with media at {w}x{h}\n{}", screen(&a, w, h));
        assert!(shown.contains("reference_video 1"), "{shown}");
        insta::assert_snapshot!(format!("history_media_{w}x{h}"), shown);
    }
}

#[test]
fn pane_budget_question() {
    let mut a = with_budget(false, Budget { daily: Some(1.0) });
    a.update(Action::Spent(0.75), NOW);
    typed(&mut a, "a fox");
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)), NOW);
    let Some(Overlay::Confirm(q)) = a.overlay().cloned() else { panic!("no question: {:?}", a.status()) };
    each_size("budget_question", &a, |f, app| views::overlays::confirm(f, app, &q));
}

/// Every "a–b of n" a table or list writes on screen reads forwards (never `3–2`).
fn ranges_read_forwards(shown: &str) {
    for (i, _) in shown.match_indices('–') {
        let before: String =
            shown[..i].chars().rev().take_while(char::is_ascii_digit).collect::<Vec<_>>().into_iter().rev().collect();
        let after: String = shown[i + '–'.len_utf8()..].chars().take_while(char::is_ascii_digit).collect();
        if let (Ok(a), Ok(b)) = (before.parse::<usize>(), after.parse::<usize>()) {
            assert!(a >= 1 && a <= b, "a range {a}–{b} on screen:\n{shown}");
        }
    }
}

/// Small terminals: the task table keeps rows to show (the form gives way, and the detail
/// pane before the table), and the prompt is among the columns.
#[test]
fn small_terminals_keep_the_task_rows() {
    for (w, h) in [(40, 10), (60, 15), (80, 24)] {
        let mut a = busy_app();
        a.update(Action::Resize(w, h), NOW);
        a.focus_on(Focus::Table);
        let shown = format!("tasks at {w}x{h}\n{}", screen(&a, w, h));
        ranges_read_forwards(&shown);
        assert!(shown.contains("a lighthouse"), "the newest task's row and its prompt:\n{shown}");
        assert!(shown.contains("q quit") && shown.contains("? help"), "{shown}");
        insta::assert_snapshot!(format!("small_tasks_{w}x{h}"), shown);
    }
}

/// On a narrow terminal the form takes the whole width while it has the keys, and the field
/// with the focus is in view.
#[test]
fn small_terminals_show_the_focused_form_field() {
    for (w, h) in [(40, 10), (60, 15)] {
        let mut a = busy_app();
        a.update(Action::Resize(w, h), NOW);
        tab_to(&mut a, Field::Ratio);
        let shown = format!("the form at {w}x{h}\n{}", screen(&a, w, h));
        assert!(shown.contains("Ratio"), "the focused field is in view:\n{shown}");
        assert!(!shown.contains("Tasks ·"), "the form has the whole width:\n{shown}");
        insta::assert_snapshot!(format!("small_form_{w}x{h}"), shown);
    }
}

/// `z` hides the form so the tasks and detail take the whole width; `z` again, or anything
/// that puts the keys in the form (`n`), brings it back.
#[test]
fn zoom_hides_the_form_until_it_is_wanted() {
    let mut a = busy_app();
    a.update(Action::Resize(80, 24), NOW);
    a.focus_on(Focus::Table);
    key(&mut a, KeyCode::Char('z'));
    let zoomed = format!("zoomed at 80x24\n{}", screen(&a, 80, 24));
    assert!(!zoomed.contains("Compose"), "{zoomed}");
    assert!(zoomed.lines().nth(2).is_some_and(|l| l.starts_with("┌ Tasks")), "{zoomed}");
    assert!(a.status().as_ref().is_some_and(|s| s.text.contains('z')), "the status says how to undo: {:?}", a.status());
    insta::assert_snapshot!("zoomed_80x24", zoomed);
    key(&mut a, KeyCode::Char('z'));
    assert!(screen(&a, 80, 24).contains("Compose"), "z again brings the form back");
    key(&mut a, KeyCode::Char('z'));
    key(&mut a, KeyCode::Char('n'));
    assert!(screen(&a, 80, 24).contains("Compose"), "n brings the form back");
    key(&mut a, KeyCode::Esc);
    let wide = screen(&a, 160, 40);
    assert!(wide.contains("z zoom"), "the footer names the key:\n{wide}");
    key(&mut a, KeyCode::F(1));
    assert!(screen(&a, 120, 40).contains("hide or show the form"), "the help names the key");
}

/// Below the smallest usable size, one notice instead of a broken screen.
#[test]
fn below_the_smallest_size_a_notice() {
    let a = busy_app();
    for (w, h) in [(39, 10), (40, 9), (24, 6)] {
        let shown = screen(&a, w, h);
        let words = shown.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains(&format!("reel needs at least 40x10; this terminal is {w}x{h}")), "{shown}");
    }
    insta::assert_snapshot!("below_the_smallest_size_30x8", screen(&a, 30, 8));
}

/// The screen as the dashboard draws it under NO_COLOR (no colour, only bold, reversed and
/// the like): each line, then the runs of cells that carry a modifier.
fn monochrome(app: &App, width: u16, height: u16, draw: impl Fn(&mut Frame, &App)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|f| {
            draw(f, app);
            reel_tui::theme::without_colours(f.buffer_mut());
        })
        .expect("draw");
    let buffer = terminal.backend().buffer();
    assert!(buffer.content.iter().all(|c| c.fg == Color::Reset && c.bg == Color::Reset), "a colour is left");
    let mut out = String::new();
    for y in 0..height {
        let mut line = String::new();
        let mut runs: Vec<(u16, u16, String)> = Vec::new();
        for x in 0..width {
            let cell = &buffer[(x, y)];
            line.push_str(cell.symbol());
            let m = format!("{:?}", cell.modifier);
            match runs.last_mut() {
                Some((_, end, last)) if *last == m && *end + 1 == x => *end = x,
                _ if cell.modifier.is_empty() => {}
                _ => runs.push((x, x, m)),
            }
        }
        let runs: Vec<String> = runs.iter().map(|(a, b, m)| format!("{m} {a}..{b}")).collect();
        out.push_str(line.trim_end());
        if !runs.is_empty() {
            out.push_str(&format!("    « {} »", runs.join(", ")));
        }
        out.push('\n');
    }
    out
}

/// NO_COLOR: the selected row of the task table is told apart by more than its colour,
/// whether the table has the keys or not; so is the history's.
#[test]
fn without_colour_the_selected_row_still_shows() {
    let mut a = busy_app();
    a.select_row(2);
    let selected = a.table().selected_row().expect("a row").record.prompt.clone();
    for (focus, name) in [(Focus::Form(Field::Prompt), "form_has_the_keys"), (Focus::Table, "table_has_the_keys")] {
        a.focus_on(focus);
        let shown = monochrome(&a, 100, 12, |f, app| reel_tui::tasks::view::draw(f, f.area(), app));
        for line in shown.lines().filter(|l| l.contains("│ ")) {
            let row_of = |p: &str| line.contains(&p[..12]);
            let marked = line.contains("«");
            let is_task = ["a lighthouse", "a red fox", "slow pan", "a paper boat", "macro shot", "a crowd"]
                .iter()
                .any(|p| line.contains(p));
            if is_task {
                assert_eq!(marked, row_of(&selected), "{focus:?}: only the selected row stands out:\n{shown}");
            }
        }
        insta::assert_snapshot!(format!("no_colour_tasks_{name}"), shown);
    }
    let h = history_app();
    let shown = monochrome(&h, 100, 16, |f, app| reel_tui::history::view::draw(f, f.area(), app));
    assert!(shown.lines().any(|l| l.contains("a red fox in deep") && l.contains("REVERSED")), "{shown}");
}

/// The header names the demo simulator once.
#[test]
fn the_demo_header_says_simulator_once() {
    let a = app(true);
    let shown = screen(&a, 120, 32);
    let header = shown.lines().next().unwrap_or_default();
    assert_eq!(header.matches("simulator").count(), 1, "{header}");
}

/// The form's footer names the key to quit, and keeps the key to send.
#[test]
fn the_form_footer_names_quit() {
    let a = app(false);
    for (w, h) in [(80, 24), (120, 32)] {
        let shown = screen(&a, w, h);
        let footer = shown.lines().last().unwrap_or_default();
        assert!(footer.contains("Ctrl-C quit") && footer.contains("Ctrl-S send"), "{w}x{h}: {footer}");
    }
}

/// No hint is cut inside a word: `…press Ctr` at 80 columns.
#[test]
fn hints_are_not_cut_inside_a_word() {
    for (w, h) in [(80, 24), (100, 30), (40, 10)] {
        let mut a = app(false);
        a.focus_on(Focus::Table);
        let shown = screen(&a, w, h);
        assert!(shown.contains("No tasks yet"), "{shown}");
        for l in shown.lines() {
            assert!(l.matches("Ctr").count() == l.matches("Ctrl-").count(), "{w}x{h}: a word is cut: {l}");
        }
    }
}

/// The status after choosing a filter reads as English.
#[test]
fn the_filter_status_reads_well() {
    let mut a = busy_app();
    a.focus_on(Focus::Table);
    key(&mut a, KeyCode::Char('f'));
    typed(&mut a, "prob");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.status().as_ref().map(|s| s.text.as_str()), Some("Showing tasks with problems, newest first"));
    key(&mut a, KeyCode::Char('s'));
    assert_eq!(a.status().as_ref().map(|s| s.text.as_str()), Some("Showing tasks with problems, oldest first"));
}

/// Seconds are written one way on every screen: `auto` for -1, `10 s` otherwise.
#[test]
fn seconds_are_written_one_way() {
    use reel_engine::query::HistoryRow;
    let mut a = app(false);
    let mut auto = task(1, LocalState::Downloaded, "an automatic length", 60);
    auto.seconds = -1;
    let mut ten = task(2, LocalState::Queued, "ten seconds long", 30);
    ten.seconds = 10;
    put(&mut a, auto.clone(), None);
    put(&mut a, ten.clone(), None);
    a.focus_on(Focus::Table);
    let at = a.table().view().iter().position(|v| *v == 1).unwrap_or_default();
    a.select_row(at);
    let shown = screen(&a, 120, 32);
    assert!(shown.contains(" auto ") && shown.contains(" 10 s ") && !shown.contains("10s"), "{shown}");
    assert!(shown.contains("Settings auto ·"), "the detail: {shown}");
    key(&mut a, KeyCode::Char('H'));
    let g = a.history().ticket();
    let rows = vec![HistoryRow { record: ten, file_present: None }, HistoryRow { record: auto, file_present: None }];
    a.update(Action::HistoryPage(g, Ok(rows)), NOW);
    let history = screen(&a, 120, 32);
    assert!(history.contains(" auto ") && history.contains(" 10 s ") && !history.contains("-1 s"), "{history}");
}

/// A state the timeline already ends with is not written again, whether it comes from the
/// journal or from the engine's news.
#[test]
fn the_timeline_never_repeats_a_state() {
    use reel_store::EventRecord;
    let mut a = app(false);
    put(&mut a, task(1, LocalState::Queued, "a fox", 60), None);
    let ev = |at: i64, state: &str| EventRecord { at: NOW - 60_000 + at, state: state.into(), detail: None };
    let journal = vec![ev(0, "submitting"), ev(1_000, "queued"), ev(5_000, "lost"), ev(6_000, "lost")];
    a.update(Action::Timeline(1, journal), NOW);
    let mut lost = task(1, LocalState::Lost, "a fox", 60);
    lost.updated_at = NOW;
    put(&mut a, lost, None);
    a.focus_on(Focus::Table);
    let shown = screen(&a, 160, 40);
    assert!(shown.contains("queued +0:01 → lost +0:05"), "{shown}");
    assert!(!shown.contains("lost → lost") && !shown.contains("lost +0:06"), "{shown}");
}

/// The model list narrows as a part of an id is typed; Enter takes the one shown.
#[test]
fn the_model_list_narrows_as_you_type() {
    let mut a = app(false);
    tab_to(&mut a, Field::Model);
    key(&mut a, KeyCode::Enter);
    typed(&mut a, "2.7/image");
    let shown = screen(&a, 120, 32);
    assert!(shown.contains("acme/aurora-2.7/image-to-video"), "{shown}");
    assert_eq!(shown.matches("acme/").count(), 2, "the form's model and the one entry left:\n{shown}");
    insta::assert_snapshot!("model_list_narrowed", shown);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.form().model_id(), "acme/aurora-2.7/image-to-video");
    // Typing that matches nothing says so, and Esc keeps what was chosen.
    key(&mut a, KeyCode::Enter);
    typed(&mut a, "zzz");
    assert!(screen(&a, 120, 32).contains("No model matches"), "{}", screen(&a, 120, 32));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.form().model_id(), "acme/aurora-2.7/image-to-video");
    key(&mut a, KeyCode::Enter);
    assert!(!screen(&a, 120, 32).contains("zzz"), "a reopened list starts unfiltered");
    // A whole id the catalog does not list is taken as a custom model, with a warning.
    typed(&mut a, "acme/zephyr-1.0/text-to-video");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.form().model_id(), "acme/zephyr-1.0/text-to-video");
    assert!(a.overlay().is_none());
    let said = a.status().map(|s| s.text.clone()).unwrap_or_default();
    assert!(said.contains("not in the catalog"), "{said}");
    tab_to(&mut a, Field::Prompt);
    typed(&mut a, "a fox");
    let check = a.form().check();
    assert!(check.is_clean() && !check.warnings.is_empty(), "sendable, with a warning: {check:?}");
}

/// Rated, picked and tagged takes: the table's review column, the detail's review line.
fn reviewed_app() -> App {
    use reel_store::Review;
    let mut a = busy_app();
    let mut best = task(7, LocalState::Downloaded, "a red fox in fresh snow, golden hour", 400);
    best.file_path = Some("/videos/7-a-red-fox.mp4".into());
    best.review = Review { rating: Some(5), picked: true, tags: vec!["keeper".into(), "night".into()] };
    put(&mut a, best, None);
    let mut other = task(8, LocalState::Downloaded, "a red fox in fresh snow, blue hour", 390);
    other.file_path = Some("/videos/8-a-red-fox.mp4".into());
    other.review = Review { rating: Some(2), ..Review::default() };
    put(&mut a, other, None);
    a.focus_on(Focus::Table);
    a.select_row(a.table().view().iter().position(|id| *id == 7).expect("shown"));
    a
}

#[test]
fn the_table_with_ratings_and_a_pick() {
    let a = reviewed_app();
    for (w, h) in [(80, 24), (120, 32)] {
        let s = screen(&a, w, h);
        assert!(s.lines().all(|l| l.chars().count() <= w as usize), "a line is wider than the terminal");
        assert!(s.contains("★5✓") && s.contains("★2"), "the review column at {w}x{h}:\n{s}");
        insta::assert_snapshot!(format!("reviewed_table_{w}x{h}"), s);
    }
}

#[test]
fn the_tag_line_over_the_table() {
    let mut a = reviewed_app();
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE)), NOW);
    typed(&mut a, "dusk -night");
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn history_rows_with_a_rating_and_a_pick() {
    use reel_engine::query::HistoryRow;
    use reel_store::Review;
    let mut a = app(false);
    a.focus_on(Focus::Table);
    a.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    let ticket = a.history().ticket();
    let mut best = task(10, LocalState::Downloaded, "a red fox in fresh snow", 3000);
    best.review = Review { rating: Some(4), picked: true, tags: vec!["keeper".into()] };
    let plain = task(11, LocalState::Downloaded, "a red fox in deep snow at dusk", 2000);
    let rows = vec![
        HistoryRow { record: plain, file_present: Some(true) },
        HistoryRow { record: best, file_present: Some(true) },
    ];
    a.update(Action::HistoryPage(ticket, Ok(rows)), NOW);
    a.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
    let s = screen(&a, 120, 32);
    assert!(s.contains("★4✓") && s.contains("rated 4, picked, tagged keeper"), "{s}");
    insta::assert_snapshot!(s);
}
