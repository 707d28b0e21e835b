//! `reel open ID`: the task's saved video in the player ($REEL_PLAYER, else the desktop's
//! opener), as the dashboard opens it.

use std::io::Write;
use std::path::Path;
use std::process::{ExitCode, Stdio};

use clap::Args;

use super::CliError;
use super::output::{Output, note};
use reel_engine::config::Settings;
use reel_engine::session::Reach;
use reel_rules::text::one_line;

#[derive(Debug, Args)]
pub struct OpenArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
}

pub async fn run(
    args: &OpenArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let reader = super::reading::reader(settings, reach).await?;
    let task = super::reading::resolve_all(&reader, std::slice::from_ref(&args.id)).await?.remove(0);
    // The file of an engine on another machine is fetched into this machine's cache first.
    let fetched = match reader.far_engine() {
        Some(engine) if task.file_path.is_some() => {
            let mut bar = super::progress::FetchBar::new(super::follow::stderr_is_tty(), format!("task {}", task.id));
            let cache = reel_engine::fetched::cache_dir(&settings.data_dir);
            let got = reel_engine::fetched::video(engine, &task, &cache, |d, t| bar.show(d, t)).await;
            bar.end();
            match got {
                Ok(path) => Some(path.display().to_string()),
                Err(e) => {
                    note(&format!("cannot open task {}: {e}", task.id));
                    return Ok(ExitCode::from(1));
                }
            }
        }
        _ => None,
    };
    let Some(path) = fetched.as_deref().or(task.file_path.as_deref()).filter(|p| Path::new(p).is_file()) else {
        let why = match &task.file_path {
            Some(p) => format!("its file {} is missing: moved or deleted", one_line(p)),
            None => format!(
                "it has no saved video ({}); reel download {} fetches one while its URL works",
                task.state, task.id
            ),
        };
        note(&format!("cannot open task {}: {why}", task.id));
        return Ok(ExitCode::from(1));
    };
    let Some((program, first)) = settings.programs.player.split_first() else {
        note("no player: set $REEL_PLAYER (for example REEL_PLAYER=mpv)");
        return Ok(ExitCode::from(2));
    };
    // Started and left to run: the player outlives this command, as from the dashboard.
    let started = std::process::Command::new(program)
        .args(first)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match started {
        Ok(_) => {
            out.line(&format!("Opening {}", one_line(path)))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            note(&format!("cannot play the video with {program}: {e}; set $REEL_PLAYER (for example REEL_PLAYER=mpv)"));
            Ok(ExitCode::from(2))
        }
    }
}
