//! `reel show`: one task's parameters, timeline and file, and with `--preview` its poster frame.

use std::io::Write;
use std::path::Path;

use clap::Args;
use serde_json::json;
use thiserror::Error;

use super::CliError;
use super::output::{Output, OutputError};
use reel_engine::config::Settings;
use reel_engine::preview::{PreviewError, Previewer, StillPaths};
use reel_engine::public;
use reel_engine::reader::Reader;
use reel_engine::session::Reach;
use reel_rules::text::{local_time, one_line, size};
use reel_store::{EventRecord, LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Print the task and its timeline as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also print the video's poster frame (made with ffmpeg the first time, then cached); with
    /// --json, the cached pictures' paths. Without ffmpeg or a saved file a line says why; the
    /// exit code stays 0 either way.
    #[arg(long)]
    pub preview: bool,
}

/// `reel show --json`: the task with its fields in the order `reel list --json` gives them.
#[derive(serde::Serialize)]
struct Shown<'a> {
    task: public::PublicTask<'a>,
    events: Vec<public::PublicEvent<'a>>,
    /// With --preview: the pictures' paths, or null with the reason beside.
    #[serde(skip_serializing_if = "Option::is_none")]
    preview: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preview_unavailable: Option<String>,
}

/// `file_here`: whether the saved file is where the journal says (on the engine's machine).
pub fn render(t: &TaskRecord, events: &[EventRecord], file_here: bool) -> String {
    let mut lines = vec![format!(
        "Task {} ({})",
        t.id,
        t.remote_id.as_deref().map(one_line).unwrap_or_else(|| t.state.without_remote_id().into())
    )];
    let mut field = |name: &str, value: String| lines.push(format!("  {name:<12} {value}"));
    field("state", t.state.to_string());
    if let Some(todo) = t.state.what_to_do(t.id) {
        field("to do", todo);
    }
    if let Some(s) = &t.remote_status {
        field("service says", one_line(s));
    }
    field("model", one_line(&t.model));
    field("prompt", one_line(&t.prompt));
    if let Some(n) = &t.negative_prompt {
        field("negative", one_line(n));
    }
    field(
        "settings",
        format!("{} s, {}, {}, watermark {}", t.seconds, t.resolution, t.ratio, if t.watermark { "on" } else { "off" }),
    );
    if let Some(said) = reel_rules::rendered::said(t.asked(), &t.rendered) {
        field("rendered", one_line(&said));
    }
    for m in &t.media {
        let secs = m.seconds.map(|s| format!(" ({s} s)")).unwrap_or_default();
        let from = m.local.as_ref().map(|l| format!(" from {}", one_line(&l.path))).unwrap_or_default();
        field("media", format!("{} {}{secs}{from}", m.kind, one_line(&m.url)));
    }
    field("billed", reel_engine::ledger::billed_text(t));
    if !t.review.is_empty() {
        field("review", t.review.summary());
    }
    if let Some(p) = t.parent_id {
        field("derived from", format!("task {p}"));
    }
    if let Some(b) = t.batch_id {
        field("batch", format!("{b} (reel list --batch {b})"));
    }
    if let Some(profile) = &t.profile {
        field("profile", one_line(profile));
    }
    field("service", one_line(&t.base_url));
    if let Some(path) = &t.file_path {
        let bytes = t.file_size.map(|s| size(s as u64)).unwrap_or_default();
        let here = if file_here { "" } else { ", missing: moved or deleted" };
        field("file", format!("{} ({bytes}{here})", one_line(path)));
        if let Some(sha) = &t.sha256 {
            field("sha256", sha.clone());
        }
        if let Some(sha) = &t.file_sha256 {
            field("file sha256", format!("{sha} (with its provenance written into it)"));
        }
    }
    if let Some(from) = &t.imported_from {
        field("imported", format!("from {}", one_line(from)));
    }
    if let Some(url) = &t.url {
        let until = t.url_deadline.map(|d| format!(" (valid until about {})", local_time(d))).unwrap_or_default();
        field("url", format!("{}{until}", one_line(url)));
    }
    if let Some(e) = &t.error {
        field("error", one_line(&reel_api::types::message_of(e).unwrap_or_else(|| e.to_string())));
    }
    lines.push("Timeline".into());
    for e in events {
        let detail = e.detail.as_deref().map(|d| format!("  {}", one_line(d))).unwrap_or_default();
        lines.push(format!("  {}  {}{detail}", local_time(e.at), e.state));
    }
    lines.join("\n") + "\n"
}

pub async fn run(
    args: &ShowArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    let reader = super::reading::reader(settings, reach).await?;
    let id = reader.resolve(&args.id).await?;
    let (task, events) = reader.show(id).await?;
    let previewer = Previewer::from_settings(settings);
    let file_here = file_here(&reader, &task).await?;
    // The stills of an engine on another machine come into this machine's preview cache; a
    // failure is why there is no preview, said where the preview would be.
    let fetch_failed = match (args.preview && file_here, reader.far_engine(), task.sha256.as_deref()) {
        (true, Some(engine), Some(sha)) => {
            reel_engine::fetched::stills(engine, sha, &previewer.cache_dir).await.err().map(|e| e.to_string())
        }
        _ => None,
    };
    let failed = || fetch_failed.clone().map(NoPreview::Fetch);
    if args.json {
        let mut shown = Shown {
            task: public::PublicTask::from(&task),
            events: public::events(&events),
            preview: None,
            preview_unavailable: None,
        };
        if args.preview {
            match failed().map_or_else(|| preview_paths(&task, &previewer), Err) {
                Ok(paths) => shown.preview = Some(json!(paths)),
                Err(why) => {
                    shown.preview = Some(serde_json::Value::Null);
                    shown.preview_unavailable = Some(why.to_string());
                }
            }
        }
        out.json(&shown)?;
    } else {
        out.text(&render(&task, &events, file_here))?;
        if args.preview && reel_engine::config::colours_off() {
            // A picture is colours: under NO_COLOR it is not drawn, its file is named instead.
            match failed().map_or_else(|| preview_paths(&task, &previewer), Err) {
                Ok(paths) => out.line(&format!("Preview: {} (not drawn: NO_COLOR is set)", paths.poster.display()))?,
                Err(why) => out.line(&format!("No preview: {why}"))?,
            }
        } else if args.preview {
            match failed().map_or_else(|| poster(&task, &previewer), Err) {
                Ok(image) => {
                    out.flush()?;
                    reel_engine::preview::term::print(&image, settings.multiplexer).map_err(stdout_failed)?;
                }
                Err(why) => out.line(&format!("No preview: {why}"))?,
            }
        }
    }
    Ok(())
}

/// Whether the task's saved file is where the journal says, on the machine the engine runs on.
async fn file_here(reader: &Reader, task: &TaskRecord) -> Result<bool, CliError> {
    let Some(path) = &task.file_path else { return Ok(false) };
    Ok(match reader {
        Reader::Store(_) => Path::new(path).is_file(),
        Reader::Engine(_) => {
            reader.files_present(vec![task.id]).await?.iter().any(|(id, here)| *id == task.id && *here)
        }
    })
}

/// Why a task has no preview, in one line that says what to do.
#[derive(Debug, Error)]
enum NoPreview {
    #[error("task {id} has no saved video yet ({state}); its preview comes once it is saved")]
    NotYet { id: i64, state: LocalState },
    #[error("task {id} has no saved video ({state}); reel download {id} fetches it while its URL works")]
    NotSaved { id: i64, state: LocalState },
    #[error("task {id} ended {state} without a video: there is nothing to preview")]
    NoVideo { id: i64, state: LocalState },
    #[error(transparent)]
    Preview(#[from] PreviewError),
    #[error("the stills could not be fetched from the engine's machine: {0}")]
    Fetch(String),
    #[error("the preview cache was changed meanwhile")]
    CacheChanged,
}

/// The saved file and its hash, or why there is none.
fn saved(task: &TaskRecord) -> Result<(&Path, &str), NoPreview> {
    let (id, state) = (task.id, task.state);
    match (&task.file_path, &task.sha256) {
        (Some(path), Some(sha)) => Ok((Path::new(path), sha)),
        _ if state.is_polled() || state.is_sending() || state.needs_download() => Err(NoPreview::NotYet { id, state }),
        _ if matches!(state, LocalState::Expired | LocalState::DownloadFailed) => {
            Err(NoPreview::NotSaved { id, state })
        }
        _ => Err(NoPreview::NoVideo { id, state }),
    }
}

/// The poster frame, or why there is none.
fn poster(task: &TaskRecord, previewer: &Previewer) -> Result<image::RgbImage, NoPreview> {
    let (path, sha) = saved(task)?;
    Ok(previewer.poster(path, sha)?)
}

/// The cached pictures' paths (made first when missing), or why there are none.
fn preview_paths(task: &TaskRecord, previewer: &Previewer) -> Result<StillPaths, NoPreview> {
    let (path, sha) = saved(task)?;
    previewer.ensure(path, sha)?;
    previewer.cached(sha)?.ok_or(NoPreview::CacheChanged)
}

fn stdout_failed(e: std::io::Error) -> OutputError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        OutputError::Closed
    } else {
        OutputError::Write { target: "standard output".into(), source: e }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures::record;

    #[test]
    fn no_preview_says_what_the_state_allows() {
        let cases = [
            (LocalState::InProgress, "its preview comes once it is saved"),
            (LocalState::Downloading, "its preview comes once it is saved"),
            (LocalState::Expired, "reel download 7 fetches it"),
            (LocalState::DownloadFailed, "reel download 7 fetches it"),
            (LocalState::Failed, "ended failed without a video"),
            (LocalState::Rejected, "ended rejected without a video"),
        ];
        for (state, want) in cases {
            let why = saved(&record(7, state)).expect_err("no file").to_string();
            assert!(why.contains(want), "{state}: {why}");
        }
    }
}
