//! The preview effects when the engine, and so the saved files, are on another machine: the
//! stills are fetched into this machine's preview cache and the videos into its cache of
//! fetched files (both by sha256), then the effect is carried out here as for a local file.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::PreviewFailure;
use super::work::PreviewWork;
use crate::app::{Action, Effect};
use reel_engine::Engine;
use reel_engine::fetched::{self, FetchError};

fn failure(e: &FetchError) -> PreviewFailure {
    PreviewFailure { message: e.to_string(), no_ffmpeg: false }
}

/// Carries out a preview effect for an engine on another machine.
pub fn perform(
    effect: Effect,
    engine: Arc<Engine>,
    work: Arc<PreviewWork>,
    fetched_dir: PathBuf,
    tx: UnboundedSender<Action>,
) {
    // Pausing and stopping are this machine's business, and keep their order with the keys.
    if matches!(effect, Effect::PlayPause(_) | Effect::PlayStop) {
        return work.perform(effect, &tx);
    }
    tokio::spawn(async move {
        if !matches!(&*engine, Engine::Remote(_)) {
            return work.perform(effect, &tx);
        }
        let remote = &*engine;
        match effect {
            Effect::LoadStills { sha256, path } => match fetched::stills(remote, &sha256, work.cache_dir()).await {
                Ok(()) => work.perform(Effect::LoadStills { sha256, path }, &tx),
                Err(e) => drop(tx.send(Action::Stills(sha256, Err(failure(&e))))),
            },
            Effect::LoadThumbs { files, width, height } => {
                let mut ready = Vec::with_capacity(files.len());
                for (sha256, path) in files {
                    match fetched::stills(remote, &sha256, work.cache_dir()).await {
                        Ok(()) => ready.push((sha256, path)),
                        Err(e) => drop(tx.send(Action::Thumb(sha256, Err(failure(&e))))),
                    }
                }
                if !ready.is_empty() {
                    work.perform(Effect::LoadThumbs { files: ready, width, height }, &tx);
                }
            }
            Effect::Play { ticket, sha256, path: _, width, height, fps } => {
                let _ = tx.send(Action::Report(Ok("Fetching the video from the engine's machine…".into())));
                match fetched::video_by_sum(remote, &sha256, &fetched_dir, |_, _| {}).await {
                    Ok(local) => {
                        let path = local.display().to_string();
                        let said = "Playing a copy fetched from the engine's machine (kept in this machine's cache)";
                        let _ = tx.send(Action::Report(Ok(said.into())));
                        work.perform(Effect::Play { ticket, sha256, path, width, height, fps }, &tx);
                    }
                    Err(e) => drop(tx.send(Action::PlayFailed(ticket, e.to_string()))),
                }
            }
            Effect::LoadClips { ticket, files, width, height, fps, frames } => {
                let mut local = Vec::with_capacity(files.len());
                for (take, sha256, _) in files {
                    match fetched::video_by_sum(remote, &sha256, &fetched_dir, |_, _| {}).await {
                        Ok(path) => local.push((take, sha256, path.display().to_string())),
                        Err(e) => drop(tx.send(Action::Clip(ticket, take, Err(failure(&e))))),
                    }
                }
                work.perform(Effect::LoadClips { ticket, files: local, width, height, fps, frames }, &tx);
            }
            other => work.perform(other, &tx),
        }
    });
}
