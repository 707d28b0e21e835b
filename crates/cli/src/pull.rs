//! `reel pull ID…`: saved videos brought into a folder of this machine, checked against the
//! sums the journal holds. With the engine on another machine (`--engine ssh://…`) they are
//! fetched through it; with a local engine they are copied from where they were saved.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::follow::stderr_is_tty;
use super::output::{Output, note};
use super::progress::FetchBar;
use super::reading::{reader, resolve_all};
use reel_engine::config::Settings;
use reel_engine::fetched::{self, FetchError};
use reel_engine::reader::Reader;
use reel_engine::session::Reach;
use reel_rules::text::{one_line, size};
use reel_store::TaskRecord;

#[derive(Debug, Args)]
pub struct PullArgs {
    /// Task ids: local id, remote id, or a unique prefix of either.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// The folder the files go to (made when missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub to: PathBuf,
}

/// The name a pulled file gets: the saved file's own name (reel's id and prompt slug), made
/// safe, or the task's id when it has none.
pub fn file_name(task: &TaskRecord) -> String {
    let saved = task.file_path.as_deref().and_then(|p| Path::new(p).file_name()).and_then(|n| n.to_str());
    let safe: String = saved
        .unwrap_or("")
        .chars()
        .filter(|c| !reel_rules::text::is_unsafe(*c) && !c.is_control() && !matches!(c, '/' | '\\'))
        .collect();
    match safe.trim_start_matches('.') {
        "" => format!("{}.mp4", task.id),
        name => name.to_string(),
    }
}

pub async fn run(
    args: &PullArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let reader = reader(settings, reach).await?;
    let tasks = resolve_all(&reader, &args.ids).await?;
    let mut failed = false;
    for task in tasks {
        let dest = args.to.join(file_name(&task));
        match pull(&reader, &task, &dest).await {
            Ok(Pulled::Fetched(bytes)) => out.line(&format!(
                "Pulled task {} to {} ({}, sha256 checked)",
                task.id,
                one_line(&dest.display().to_string()),
                size(bytes)
            ))?,
            Ok(Pulled::AlreadyHere) => out.line(&format!(
                "Task {} is already at {} (same sha256)",
                task.id,
                one_line(&dest.display().to_string())
            ))?,
            Err(e) => {
                failed = true;
                note(&format!("cannot pull task {}: {e}", task.id));
            }
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

enum Pulled {
    Fetched(u64),
    AlreadyHere,
}

#[derive(Debug, thiserror::Error)]
enum PullError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("{0} exists and is another file; move it away or pull --to another folder")]
    Exists(String),
    #[error("its saved file {0} is missing: moved or deleted")]
    Missing(String),
    #[error("cannot copy {from} to {to}: {source}")]
    Copy { from: String, to: String, source: std::io::Error },
}

async fn pull(reader: &Reader, task: &TaskRecord, dest: &Path) -> Result<Pulled, PullError> {
    let want = fetched::saved_sum(task).ok_or(FetchError::NoFile(task.id))?;
    if dest.exists() {
        let here = dest.to_path_buf();
        let sum = tokio::task::spawn_blocking(move || reel_engine::provenance::sha256_of(&here))
            .await
            .ok()
            .and_then(Result::ok);
        return match sum {
            Some(sum) if sum.eq_ignore_ascii_case(want) => Ok(Pulled::AlreadyHere),
            _ => Err(PullError::Exists(dest.display().to_string())),
        };
    }
    match reader.far_engine() {
        Some(engine) => {
            let mut bar = FetchBar::new(stderr_is_tty(), format!("task {}", task.id));
            let fetched = fetched::fetch_to(engine, task, dest, |done, total| bar.show(done, total)).await;
            bar.end();
            fetched?;
        }
        None => {
            let from = task.file_path.clone().ok_or(FetchError::NoFile(task.id))?;
            if !Path::new(&from).is_file() {
                return Err(PullError::Missing(from));
            }
            copy_checked(Path::new(&from), dest, task.id, want).await?;
        }
    }
    let bytes = tokio::fs::metadata(dest).await.map(|m| m.len()).unwrap_or(0);
    Ok(Pulled::Fetched(bytes))
}

/// A local copy, written beside `dest` and renamed into place once its sum is the journal's.
async fn copy_checked(from: &Path, dest: &Path, id: i64, want: &str) -> Result<(), PullError> {
    let copy_err =
        |source| PullError::Copy { from: from.display().to_string(), to: dest.display().to_string(), source };
    if let Some(dir) = dest.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(copy_err)?;
    }
    let temp = dest.with_extension(format!("part-{}", std::process::id()));
    if let Err(e) = tokio::fs::copy(from, &temp).await {
        let _ = tokio::fs::remove_file(&temp).await;
        return Err(copy_err(e));
    }
    let check = temp.clone();
    let got = tokio::task::spawn_blocking(move || reel_engine::provenance::sha256_of(&check))
        .await
        .map_err(|e| copy_err(std::io::Error::other(e)))?
        .map_err(copy_err)?;
    if !got.eq_ignore_ascii_case(want) {
        let _ = tokio::fs::remove_file(&temp).await;
        return Err(FetchError::Damaged { what: format!("the copy of task {id}"), got, want: want.to_string() }.into());
    }
    tokio::fs::rename(&temp, dest).await.map_err(copy_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::{LocalState, fixtures::record};

    #[test]
    fn a_pulled_file_keeps_the_saved_name_made_safe() {
        let named = |path: Option<&str>| {
            let mut t = record(7, LocalState::Downloaded);
            t.file_path = path.map(String::from);
            file_name(&t)
        };
        assert_eq!(named(Some("/srv/reel/videos/2026-11-25/7-a-fox.mp4")), "7-a-fox.mp4");
        assert_eq!(named(Some("/srv/x/..")), "7.mp4");
        assert_eq!(named(Some("/srv/x/\u{1b}[2Jfox.mp4")), "[2Jfox.mp4");
        assert_eq!(named(Some("/srv/x/.hidden")), "hidden");
        assert_eq!(named(Some("/srv/x/a\u{202e}4pm.exe")), "a4pm.exe", "no bidi override from the host");
        assert_eq!(named(None), "7.mp4");
    }
}
