//! Preview stills: time to make them (cold cache: two ffmpeg runs), time to read them back from
//! the cache and decode them, and the cache's size per task. For the simulator's videos (flat
//! colours, tiny JPEGs) and for detailed H.264 High footage made by ffmpeg's own test sources
//! (`testsrc2` at 720p, `mandelbrot` at 1080p), closer to what a provider sends.
//! Needs ffmpeg on the PATH (or REEL_FFMPEG). Run: `cargo bench --bench preview`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::path::Path;
use std::time::{Duration, Instant};

use reel_engine::preview::Previewer;
use reel_sim::video::{VideoSpec, render_mp4};
use sha2::Digest;

const COLD_RUNS: usize = 5;
const WARM_RUNS: usize = 50;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn folder_kib(folder: &Path) -> f64 {
    let bytes: u64 =
        std::fs::read_dir(folder).expect("cache folder").flatten().map(|e| e.metadata().expect("meta").len()).sum();
    bytes as f64 / 1024.0
}

fn main() {
    let ffmpeg = std::env::var("REEL_FFMPEG").unwrap_or_else(|_| "ffmpeg".into());
    let dir = tempfile::tempdir().expect("tempdir");
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for (label, width, height, seconds) in [("sim, 5 s 720p", 1280, 720, 5), ("sim, 15 s 1080p", 1920, 1080, 15)] {
        inputs.push((label.into(), render_mp4(&VideoSpec { width, height, seconds, seed: 3, label: label.into() })));
    }
    for (label, source) in [
        ("testsrc2, 5 s 720p", "testsrc2=size=1280x720:rate=24"),
        ("mandelbrot, 5 s 1080p", "mandelbrot=size=1920x1080:rate=24"),
    ] {
        let out = dir.path().join("made.mp4");
        let made = std::process::Command::new(&ffmpeg)
            .args([
                "-v",
                "error",
                "-y",
                "-f",
                "lavfi",
                "-i",
                source,
                "-t",
                "5",
                "-c:v",
                "libx264",
                "-profile:v",
                "high",
            ])
            .args(["-pix_fmt", "yuv420p"])
            .arg(&out)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            inputs.push((label.into(), std::fs::read(&out).expect("made")));
        } else {
            println!("{label}: skipped (this ffmpeg cannot make it)");
        }
    }
    for (n, (label, bytes)) in inputs.into_iter().enumerate() {
        let video = dir.path().join(format!("{n}.mp4"));
        std::fs::write(&video, &bytes).expect("video");
        let sha: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();

        let mut cold = Vec::new();
        let mut cache = dir.path().join("unused");
        for run in 0..COLD_RUNS {
            cache = dir.path().join(format!("cache-{n}-{run}"));
            let previewer = Previewer::new(cache.clone(), ffmpeg.clone());
            let started = Instant::now();
            previewer.ensure(&video, &sha).expect("stills made (is ffmpeg installed?)");
            cold.push(started.elapsed());
        }
        let previewer = Previewer::new(cache.clone(), ffmpeg.clone());
        let mut warm = Vec::new();
        let mut poster_only = Vec::new();
        for _ in 0..WARM_RUNS {
            let started = Instant::now();
            let stills = previewer.stills(&video, &sha).expect("cached");
            warm.push(started.elapsed());
            std::hint::black_box(stills);
            let started = Instant::now();
            std::hint::black_box(previewer.poster(&video, &sha).expect("cached"));
            poster_only.push(started.elapsed());
        }
        let folder = cache.join(&sha[..2]).join(&sha);
        println!("{label} ({} KiB video):", bytes.len() / 1024);
        println!("  make stills, cold cache (median of {COLD_RUNS}):           {}", ms(median(cold)));
        println!("  read + decode poster and strip (median of {WARM_RUNS}):   {}", ms(median(warm)));
        println!("  read + decode poster only (median of {WARM_RUNS}):        {}", ms(median(poster_only)));
        println!("  cache size per task:                             {:.1} KiB", folder_kib(&folder));
    }
}
