//! History with 1,000,000 tasks: time to the first frame of the history view, one-word search
//! latency, searches on ratings, picks and tags, frame time while scrolling, database size.
//!
//! Run: `cargo bench --bench history`. The first run builds the database it measures, at
//! `target/bench-history/reel.db` (1,000,000 tasks over a year, prompts of 8 to 15 words from a
//! 207-word vocabulary, 5 models, every state); later runs reuse it. `HISTORY_DB=path` measures
//! another database of the same data instead (an older schema, side by side).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use reel::engine::query;
use reel::store::history::HistoryQuery;
use reel::store::tasks;
use reel::store::{LocalState, open_writer};
use reel::tui::app::{Action, App, Effect, Focus, Header};
use reel::tui::views;

const TASKS: i64 = 1_000_000;
const NOW: i64 = 1_800_000_000_000;

const WORDS: &str = "red blue green gold silver black white amber violet crimson fox wolf bear owl whale eagle horse cat dog deer \
    forest river ocean desert mountain city street market harbor island meadow canyon glacier volcano garden temple bridge castle \
    tower lighthouse storm rain snow fog sunrise sunset dawn dusk night noon winter summer autumn spring neon paper glass stone \
    wooden metal velvet silk smoke fire water ice light shadow mirror window door stair road train boat ship plane rocket robot \
    dancer runner child woman man crowd band singer painter sailor pilot farmer chef knight queen king dragon ghost angel giant \
    slow fast gentle wild quiet loud golden misty dreamy cinematic macro aerial closeup wide handheld tracking panning orbit \
    zoom timelapse slowmotion vintage modern futuristic ancient rustic urban rural tropical arctic cosmic underwater floating \
    falling rising spinning running flying swimming dancing walking jumping glowing burning melting frozen shattered blooming \
    rose lily tulip oak pine maple cherry cactus fern moss cloud star moon sun planet comet galaxy nebula aurora rainbow thunder \
    lightning wave tide sand dune cliff cave waterfall lake pond stream valley field hill path trail lantern candle clock compass \
    map letter book violin piano drum guitar trumpet bicycle car bus tram subway kite balloon umbrella hat coat scarf";

const MODELS: [&str; 5] = [
    "acme/aurora-3.0/text-to-video",
    "acme/aurora-3.0/image-to-video",
    "acme/aurora-2.7/text-to-video",
    "acme/swift-1.5/text-to-video",
    "acme/aurora-3.0/reference-to-video-global",
];

fn build(db: &Path) {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut conn = open_writer(db).expect("db");
    conn.pragma_update(None, "synchronous", "OFF").expect("pragma");
    let mut rng = fastrand::Rng::with_seed(1);
    let started = Instant::now();
    let states = [
        LocalState::Downloaded,
        LocalState::Downloaded,
        LocalState::Downloaded,
        LocalState::Failed,
        LocalState::Expired,
        LocalState::Rejected,
    ];
    // Labels get their numbers in the order a real journal would first meet them.
    let labels = ["http://127.0.0.1:1/", MODELS[0], "720P", "16:9", "/nonexistent/videos/"].into_iter().chain(MODELS);
    for text in labels {
        conn.execute("INSERT OR IGNORE INTO labels (text) VALUES (?1)", [text]).expect("label");
    }
    for chunk in 0..TASKS / 10_000 {
        let tx = conn.transaction().expect("tx");
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO tasks (parent_id, idempotency_key, base_url_id, model_id, prompt, negative_prompt, seconds, \
                     resolution_id, ratio_id, watermark, media, billed_seconds, state_code, created_at, submitted_at, remote_id, \
                     remote_created_at, remote_completed_at, file_dir_id, file_name, file_size, updated_at) VALUES (?1, 'k', \
                     (SELECT id FROM labels WHERE text = 'http://127.0.0.1:1/'), (SELECT id FROM labels WHERE text = ?2), ?3, ?4, ?5, \
                     (SELECT id FROM labels WHERE text = '720P'), (SELECT id FROM labels WHERE text = '16:9'), 0, NULL, ?5, \
                     (SELECT code FROM states WHERE name = ?6), ?7, ?7, ?8, ?9, ?10, \
                     CASE WHEN ?11 IS NOT NULL THEN (SELECT id FROM labels WHERE text = '/nonexistent/videos/') END, ?11, ?12, ?7)",
                )
                .expect("prepare");
            for i in 0..10_000 {
                let id = chunk * 10_000 + i + 1;
                let n = rng.usize(8..=15);
                let prompt: Vec<&str> = (0..n).map(|_| words[rng.usize(..words.len())]).collect();
                let state = states[rng.usize(..states.len())];
                let created = NOW - (TASKS - id) * 31_536; // a year, evenly
                let done = matches!(state, LocalState::Downloaded | LocalState::Expired);
                let parent = (id > 100 && rng.u8(..10) == 0).then(|| id - rng.i64(1..100));
                insert
                    .execute(rusqlite::params![
                        parent,
                        MODELS[rng.usize(..MODELS.len())],
                        prompt.join(" "),
                        (rng.u8(..4) == 0).then_some("blurry, low quality"),
                        [5, 8, 10, 15][rng.usize(..4)],
                        state.as_str(),
                        created,
                        format!("task_{id:08}"),
                        created / 1000,
                        done.then(|| created / 1000 + rng.i64(40..300)),
                        (state == LocalState::Downloaded).then(|| format!("{id}.mp4")), // in /nonexistent/videos/
                        (state == LocalState::Downloaded).then_some(2_000_000),
                    ])
                    .expect("insert");
                tasks::add_event(&tx, id, created, state.as_str(), None).expect("event");
            }
        }
        tx.commit().expect("commit");
        if chunk % 10 == 9 {
            eprintln!("  {} tasks written ({:.0} s)", (chunk + 1) * 10_000, started.elapsed().as_secs_f64());
        }
    }
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE").ok();
    eprintln!("built {} tasks in {:.0} s", TASKS, started.elapsed().as_secs_f64());
}

/// Reviews as a person leaves them on a year of takes: one task in 50 rated (1 to 5), one in 500
/// picked, one in 200 tagged `keeper` and one in 1,000 `night`. Added once to a database built
/// without them (an older bench's, migrated), through the same SQL on every run's data.
fn review(db: &Path) {
    let conn = open_writer(db).expect("db");
    let tagged: i64 = conn.query_row("SELECT count(*) FROM task_tags", [], |r| r.get(0)).expect("count");
    if tagged > 0 {
        return;
    }
    let started = Instant::now();
    conn.execute_batch(
        "BEGIN; \
         UPDATE tasks SET rating = 1 + (id / 50) % 5 WHERE id % 50 = 0; \
         UPDATE tasks SET picked = 1 WHERE id % 500 = 0; \
         INSERT INTO task_tags (task_id, tag) SELECT id, 'keeper' FROM tasks WHERE id % 200 = 0; \
         INSERT INTO task_tags (task_id, tag) SELECT id, 'night' FROM tasks WHERE id % 1000 = 0; \
         COMMIT; PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .expect("reviews");
    eprintln!("reviewed in {:.1} s", started.elapsed().as_secs_f64());
}

fn quantile(mut v: Vec<Duration>, q: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * q).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Runs the app's history effects synchronously (the event loop would run them on a thread).
fn serve(app: &mut App, db: &Path, effects: Vec<Effect>) {
    for e in effects {
        if let Effect::HistoryPage { ticket: generation, query, cursor } = e {
            let page = query::history(db, &query, cursor, reel::tui::history::PAGE).map_err(Into::into);
            let more = app.update(Action::HistoryPage(generation, page), NOW);
            serve(app, db, more);
        }
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-history");
    std::fs::create_dir_all(&dir).expect("dir");
    let db = std::env::var_os("HISTORY_DB").map_or_else(|| dir.join("reel.db"), std::path::PathBuf::from);
    let count = |db: &Path| {
        reel::store::open_reader(db)
            .ok()
            .and_then(|c| c.query_row("SELECT count(*) FROM tasks", [], |r| r.get::<_, i64>(0)).ok())
    };
    if count(&db) != Some(TASKS) {
        let _ = std::fs::remove_file(&db);
        eprintln!("building {} (once)…", db.display());
        build(&db);
    }
    review(&db);
    let size: u64 = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();

    let header = Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: reel::engine::ServiceState::default(),
    };
    let open = || {
        let mut app = App::new(
            reel::rules::Catalog::builtin(),
            Default::default(),
            vec![],
            Default::default(),
            header.clone(),
            Default::default(),
            NOW,
            (160, 48),
        );
        app.focus_on(Focus::Table);
        app
    };
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");

    // Time from pressing H to the first frame of the history view.
    let mut first = Vec::new();
    for _ in 0..20 {
        let mut app = open();
        let t = Instant::now();
        let e = app.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
        serve(&mut app, &db, e);
        terminal.draw(|f| views::draw(f, &app)).expect("draw");
        first.push(t.elapsed());
        assert_eq!(app.history().rows().len(), reel::tui::history::PAGE);
    }

    // One-word searches (whole words and prefixes), first page of results.
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = fastrand::Rng::with_seed(9);
    let mut search = Vec::new();
    for i in 0..300 {
        let w = words[rng.usize(..words.len())];
        let text = if i % 3 == 0 { &w[..w.len().min(3)] } else { w };
        let q = HistoryQuery { text: text.to_string(), ..Default::default() };
        let t = Instant::now();
        let rows = query::history(&db, &q, None, reel::tui::history::PAGE).expect("search");
        search.push(t.elapsed());
        assert!(!rows.is_empty(), "{text}");
    }
    // A rare word (few matches across the whole year) is the slow case for a newest-first scan.
    let mut rare = Vec::new();
    for _ in 0..20 {
        let q = HistoryQuery {
            text: "scarf".into(),
            state: Some(LocalState::Rejected),
            model: Some(MODELS[4].into()),
            ..Default::default()
        };
        let t = Instant::now();
        query::history(&db, &q, None, reel::tui::history::PAGE).expect("search");
        rare.push(t.elapsed());
    }

    // Searches on reviews, alone and with words: the first page of each.
    let reviewed = [
        "rating:>=4",
        "rating:5",
        "rating:<2",
        "tag:keeper",
        "picked",
        "tag:night picked",
        "fox rating:>=4",
        "tag:keeper river",
    ];
    let mut reviews: Vec<(&str, Vec<Duration>)> = reviewed.iter().map(|t| (*t, Vec::new())).collect();
    for _ in 0..10 {
        for (text, times) in &mut reviews {
            let q = HistoryQuery { text: text.to_string(), ..Default::default() };
            let t = Instant::now();
            let rows = query::history(&db, &q, None, reel::tui::history::PAGE).expect("search");
            times.push(t.elapsed());
            assert!(!rows.is_empty(), "{text}");
        }
    }

    // Scrolling one row at a time through 2,000 rows: frame time, and the frames that waited
    // for a page (which the real loop reads on another thread).
    let mut app = open();
    let e = app.update(Action::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT)), NOW);
    serve(&mut app, &db, e);
    let (mut frames, mut with_pages) = (Vec::new(), Vec::new());
    for _ in 0..2_000 {
        let t = Instant::now();
        let e = app.update(Action::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), NOW);
        let paged = e.iter().any(|x| matches!(x, Effect::HistoryPage { .. }));
        serve(&mut app, &db, e);
        let after_page = t.elapsed();
        let t = Instant::now();
        terminal.draw(|f| views::draw(f, &app)).expect("draw");
        frames.push(t.elapsed());
        if paged {
            with_pages.push(after_page);
        }
    }
    println!("tasks:                              {TASKS}");
    println!("database size:                      {:.0} MiB", size as f64 / 1048576.0);
    println!(
        "H to first history frame:           median {}  p95 {}",
        ms(quantile(first.clone(), 0.5)),
        ms(quantile(first, 0.95))
    );
    println!(
        "one-word search, first page:        median {}  p95 {}  max {}",
        ms(quantile(search.clone(), 0.5)),
        ms(quantile(search.clone(), 0.95)),
        ms(quantile(search, 1.0))
    );
    println!(
        "rare word with two filters:         median {}  p95 {}",
        ms(quantile(rare.clone(), 0.5)),
        ms(quantile(rare, 0.95))
    );
    for (text, times) in reviews {
        println!(
            "search {:<28} median {}  p95 {}",
            format!("{text:?}:"),
            ms(quantile(times.clone(), 0.5)),
            ms(quantile(times, 0.95))
        );
    }
    println!(
        "frame while scrolling (160x48):     median {}  p95 {}",
        ms(quantile(frames.clone(), 0.5)),
        ms(quantile(frames, 0.95))
    );
    println!(
        "reading the next page of 200:       median {} over {} pages",
        ms(quantile(with_pages.clone(), 0.5)),
        with_pages.len()
    );
}
