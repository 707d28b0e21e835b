//! From a video saved to its poster on screen, in the real dashboard: event loop, engine (in
//! process) and previews, drawn on a TestBackend at 160x48, against the simulator on 127.0.0.1.
//! Tasks are sent one after another; for each, the time from the first frame that shows it
//! `downloaded` to the first frame whose detail pane shows its poster in colour. Then the size of
//! the preview cache per task.
//!
//! Run: `cargo bench --bench preview_screen` (needs ffmpeg on the PATH).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use reel_engine::config::{self, ConfigFile, EngineSettings, Env};
use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
use reel_tui::event_loop::Dashboard;
use reel_tui::terminal::Headless;
use tokio::sync::mpsc;

const TASKS: usize = 12;
const SIZE: (u16, u16) = (160, 48);

fn text(b: &Buffer, area: Rect) -> String {
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            out.push_str(b[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// Cells of `area` painted with a picture's colours.
fn painted(b: &Buffer, area: Rect) -> usize {
    let mut n = 0;
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            n += usize::from(matches!(b[(x, y)].bg, Color::Rgb(..)));
        }
    }
    n
}

fn dir_size(dir: &Path) -> (u64, usize) {
    let (mut bytes, mut files) = (0, 0);
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            let (b, f) = dir_size(&p);
            bytes += b;
            files += f;
        } else {
            bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
            files += 1;
        }
    }
    (bytes, files)
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * q).round() as usize]
}

async fn run() {
    let sim = SimHandle::start(
        SimConfig {
            lifecycle: LifecycleConfig {
                queue_time: Duration::from_millis(50),
                render_min: Duration::from_millis(200),
                render_max: Duration::from_millis(300),
                failure_rate: 0.0,
            },
            seed: Some(7),
            ..SimConfig::default()
        },
        0,
    )
    .await
    .expect("sim");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let file = ConfigFile {
        engine: EngineSettings {
            first_poll_secs: 0.2,
            poll_interval_secs: 0.2,
            max_poll_interval_secs: 0.5,
            ..EngineSettings::default()
        },
        ..ConfigFile::default()
    };
    let env = Env {
        base_url: Some(sim.base_url()),
        api_key: Some(sim.api_key().to_string()),
        data_dir: Some(data.clone()),
        ..Env::default()
    };
    let settings = config::resolve(&file, &env, None, None).expect("settings");
    let dashboard = Dashboard::start(&settings, &reel_engine::session::Reach::InProcess).await.expect("engine");
    let (mut console, mut frames) = Headless::new(TestBackend::new(SIZE.0, SIZE.1)).expect("console");
    let (tx, rx) = mpsc::unbounded_channel::<std::io::Result<Input>>();
    let input = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|ev| (ev, rx)) }));
    let running = tokio::spawn(async move { dashboard.run(&mut console, input).await });
    let press = |code: KeyCode, mods: KeyModifiers| tx.send(Ok(Input::Key(KeyEvent::new(code, mods)))).expect("keys");
    let detail = reel_tui::layout::areas(
        Rect::new(0, 0, SIZE.0, SIZE.1),
        &reel_tui::compose::Form::new(&settings.catalog, &settings.pricing),
    )
    .detail;

    frames.wait_for(|b| text(b, b.area).contains("Compose")).await.expect("dashboard");
    for c in "a lighthouse at dusk, waves".chars() {
        press(KeyCode::Char(c), KeyModifiers::NONE);
    }
    let mut delays = Vec::new();
    for n in 1..=TASKS {
        press(KeyCode::Char('s'), KeyModifiers::CONTROL);
        let title = format!("Task {n} ");
        let saved = |b: &Buffer| {
            let t = text(b, detail);
            t.contains(&title) && t.contains("downloaded")
        };
        let on_screen = |b: &Buffer| saved(b) && !text(b, detail).contains("preview…") && painted(b, detail) > 100;
        let deadline = Duration::from_secs(60);
        tokio::time::timeout(deadline, frames.wait_for(|b| saved(b))).await.expect("saved in time").expect("frames");
        let t0 = Instant::now();
        tokio::time::timeout(deadline, frames.wait_for(|b| on_screen(b)))
            .await
            .expect("poster in time")
            .expect("frames");
        delays.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    press(KeyCode::Esc, KeyModifiers::NONE);
    press(KeyCode::Char('q'), KeyModifiers::NONE);
    let _ = tokio::time::timeout(Duration::from_secs(30), running).await;
    let (bytes, files) = dir_size(&data.join("previews"));
    let videos = dir_size(&data.join("videos"));
    println!(
        "download to poster on screen, {TASKS} tasks at 160x48 (ms): min {:.0} / p50 {:.0} / p95 {:.0} / max {:.0}",
        quantile(delays.clone(), 0.0),
        quantile(delays.clone(), 0.5),
        quantile(delays.clone(), 0.95),
        quantile(delays, 1.0)
    );
    println!(
        "preview cache: {:.1} KiB per task ({files} files for {TASKS} tasks); the videos themselves: {:.0} KiB per task",
        bytes as f64 / 1024.0 / TASKS as f64,
        videos.0 as f64 / 1024.0 / TASKS as f64
    );
}

fn main() {
    tokio::runtime::Runtime::new().expect("runtime").block_on(run());
}
