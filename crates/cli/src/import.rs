//! `reel import DIR`: history entries rebuilt from video files and what they say of themselves
//! (a sidecar .json beside each, or the provenance written into it), without a network
//! request; a file already in the history is not imported again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;

use super::CliError;
use super::output::{Output, note};
use reel_engine::config::Settings;
use reel_engine::import::{Found, NotImported, entry, origin};
use reel_engine::provenance::{ffmetadata, from_metadata, sha256_of};
use reel_engine::session::{self, Reach};
use reel_rules::text::one_line;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A folder of videos (searched with its subfolders), e.g. another machine's videos folder.
    pub dir: PathBuf,
    /// Print the imported tasks as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Files with these extensions are looked at.
const VIDEOS: [&str; 5] = ["mp4", "mov", "m4v", "webm", "mkv"];
/// Folders deeper than this are not searched (a link loop cannot hold the command).
const MAX_DEPTH: usize = 16;

/// Every video file under `dir`, sorted.
fn videos(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() && depth < MAX_DEPTH {
            videos(&path, depth + 1, out)?;
        } else if kind.is_file()
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| VIDEOS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// What a file says of itself: its sidecar, else its embedded provenance (read with ffmpeg).
fn record_of(path: &Path, ffmpeg: &str) -> Option<Value> {
    let sidecar = path.with_extension("json");
    if let Ok(bytes) = std::fs::read(&sidecar)
        && let Ok(v) = serde_json::from_slice::<Value>(&bytes)
    {
        return Some(v);
    }
    let out = std::process::Command::new(ffmpeg)
        .args(["-v", "error", "-nostdin", "-i"])
        .arg(path)
        .args(["-f", "ffmetadata", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    from_metadata(&ffmetadata(&String::from_utf8_lossy(&out.stdout)))
}

pub async fn run(
    args: &ImportArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    // The entries would point at files on this machine, which the engine's machine cannot see.
    if let Some(host) = reach.far() {
        return Err(CliError::Usage(format!(
            "reel import reads a folder of this machine, and the engine runs on {host}: run `reel import DIR` there, \
             on a folder of that machine"
        )));
    }
    let dir = std::path::absolute(&args.dir).unwrap_or_else(|_| args.dir.clone());
    let mut files = Vec::new();
    if let Err(e) = videos(&dir, 0, &mut files) {
        note(&format!("cannot read {}: {e}", dir.display()));
        return Ok(ExitCode::from(2));
    }
    files.sort();
    let from = dir.to_string_lossy().into_owned();
    let now = reel_engine::now_ms();
    let (mut entries, mut skipped) = (Vec::new(), Vec::new());
    for path in &files {
        let (sha, size) = match (sha256_of(path), std::fs::metadata(path)) {
            (Ok(sha), Ok(meta)) => (sha, meta.len()),
            (Err(e), _) | (_, Err(e)) => {
                skipped.push(format!("{}: cannot read it: {e}", one_line(&path.to_string_lossy())));
                continue;
            }
        };
        let found = Found { path, size, sha256: &sha, from: &from };
        let made = record_of(path, &settings.programs.ffmpeg)
            .ok_or(NotImported::NoRecord)
            .and_then(|record| Ok((entry(&record, &found, now)?, origin(&record, &found))));
        match made {
            Ok(e) => entries.push(e),
            Err(why) => skipped.push(format!("{}: {why}", one_line(&path.to_string_lossy()))),
        }
    }
    let candidates = entries.len();
    let imported = if entries.is_empty() {
        Vec::new()
    } else {
        let attached = session::attach(settings, reach).await?;
        let imported = attached.engine.import(entries).await;
        attached.engine.shutdown().await;
        imported?
    };
    for s in &skipped {
        note(&format!("skipped {s}"));
    }
    let known = candidates - imported.len();
    note(&format!(
        "imported {} from {} ({} already in the history, {} skipped)",
        reel_rules::text::count(imported.len(), "task"),
        one_line(&from),
        known,
        skipped.len()
    ));
    if args.json {
        out.json(&reel_engine::public::tasks(&imported))?;
    } else {
        for t in &imported {
            out.line(&format!(
                "{}\t{}\t{}",
                t.id,
                one_line(t.file_path.as_deref().unwrap_or_default()),
                one_line(&t.prompt)
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
