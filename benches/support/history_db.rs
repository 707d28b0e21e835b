//! The million-task history the history benches measure: built once at
//! `target/bench-history/reel.db` (1,000,000 tasks over a year, prompts of 8 to 15 words from a
//! 207-word vocabulary, 5 models, every state, a person's reviews), reused by later runs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use reel_store::tasks;
use reel_store::{LocalState, open_writer};

pub const TASKS: i64 = 1_000_000;
pub const NOW: i64 = 1_800_000_000_000;

pub const WORDS: &str = "red blue green gold silver black white amber violet crimson fox wolf bear owl whale eagle horse cat dog deer \
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

pub const MODELS: [&str; 5] = [
    "acme/aurora-3.0/text-to-video",
    "acme/aurora-3.0/image-to-video",
    "acme/aurora-2.7/text-to-video",
    "acme/swift-1.5/text-to-video",
    "acme/aurora-3.0/reference-to-video-global",
];

pub fn build(db: &Path) {
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
pub fn review(db: &Path) {
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

/// The database at `target/bench-history/reel.db` (or `HISTORY_DB`), built first when it does not
/// hold the million tasks.
pub fn ensure() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-history");
    std::fs::create_dir_all(&dir).expect("dir");
    let db: PathBuf = std::env::var_os("HISTORY_DB").map_or_else(|| dir.join("reel.db"), std::path::PathBuf::from);
    let count = |db: &Path| {
        reel_store::open_reader(db)
            .ok()
            .and_then(|c| c.query_row("SELECT count(*) FROM tasks", [], |r| r.get::<_, i64>(0)).ok())
    };
    if count(&db) != Some(TASKS) {
        let _ = std::fs::remove_file(&db);
        eprintln!("building {} (once)…", db.display());
        build(&db);
    }
    review(&db);
    db
}
