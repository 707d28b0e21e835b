//! A task's poster frame for `show`: read from the previews cache, made there with ffmpeg
//! first when missing (only for a video inside the data folder), or why there is none.

use std::path::Path;

use base64::Engine as _;

use reel_engine::Engine;
use reel_engine::config::Settings;
use reel_engine::preview::Previewer;
use reel_store::{LocalState, TaskRecord};

/// The poster as a path in the cache and as base64 JPEG for MCP image content.
pub struct Poster {
    pub path: String,
    pub base64: String,
}

/// Why a task has no video to show a frame of, by its state.
fn no_video(task: &TaskRecord) -> String {
    let (id, state) = (task.id, task.state);
    if state.is_polled() || state.is_sending() || state.needs_download() {
        format!("task {id} has no saved video yet ({state}); its poster frame comes once it is saved")
    } else if matches!(state, LocalState::Expired | LocalState::DownloadFailed) {
        format!("task {id} has no saved video ({state})")
    } else {
        format!("task {id} ended {state} without a video: there is no poster frame")
    }
}

/// `far`: the engine on another machine, whose stills are fetched into this one's cache.
pub async fn of(settings: &Settings, task: &TaskRecord, far: Option<&Engine>) -> Result<Poster, String> {
    let (Some(video), Some(sha)) = (&task.file_path, &task.sha256) else { return Err(no_video(task)) };
    let previewer = Previewer::from_settings(settings);
    if let Some(engine) = far {
        reel_engine::fetched::stills(engine, sha, &previewer.cache_dir)
            .await
            .map_err(|e| format!("no poster frame from the engine's machine: {e}"))?;
    }
    let cached = previewer.cached(sha).map_err(|e| e.to_string())?;
    let paths = match cached {
        Some(paths) => paths,
        None => {
            // Agents' tools touch no file outside the data folder, an imported video included.
            if !Path::new(video).starts_with(&settings.data_dir) {
                return Err(format!(
                    "no poster frame is cached for task {}, and its video is outside reel's data folder, so none is \
                     made here",
                    task.id
                ));
            }
            let (maker, video, hash) = (previewer.clone(), video.clone(), sha.clone());
            tokio::task::spawn_blocking(move || maker.ensure(Path::new(&video), &hash))
                .await
                .map_err(|e| format!("making the poster frame stopped: {e}"))?
                .map_err(|e| format!("no poster frame: {e}"))?;
            previewer.cached(sha).map_err(|e| e.to_string())?.ok_or("the preview cache changed meanwhile")?
        }
    };
    let bytes = std::fs::read(&paths.poster).map_err(|e| format!("cannot read {}: {e}", paths.poster.display()))?;
    Ok(Poster {
        path: paths.poster.display().to_string(),
        base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}
