//! Carrying out the preview effects off the event loop: stills and grid posters read (or made
//! with ffmpeg) on the blocking pool, and the one inline player started, paused and stopped.

use std::path::Path;
use std::sync::Mutex;

use image::RgbImage;
use image::imageops::FilterType;
use tokio::sync::mpsc::UnboundedSender;

use crate::preview::play::Player;
use crate::preview::{PreviewError, Previewer};
use crate::tui::app::{Action, Effect, PreviewFailure};

pub struct PreviewWork {
    previewer: Previewer,
    /// The player and the start it belongs to.
    player: Mutex<Option<(u64, Player)>>,
}

/// How often a starting player is looked at for a file ffmpeg turned out unable to play.
const FAILURE_CHECK: std::time::Duration = std::time::Duration::from_millis(250);

fn failure(e: &PreviewError) -> PreviewFailure {
    PreviewFailure { message: e.to_string(), no_ffmpeg: matches!(e, PreviewError::NoFfmpeg { .. }) }
}

/// `image` scaled down to fit `width`x`height` (aspect kept); smaller images stay as they are.
fn shrink(image: RgbImage, width: u32, height: u32) -> RgbImage {
    if image.width() <= width && image.height() <= height {
        return image;
    }
    let scale = f64::min(f64::from(width) / f64::from(image.width()), f64::from(height) / f64::from(image.height()));
    let w = ((f64::from(image.width()) * scale).round() as u32).max(1);
    let h = ((f64::from(image.height()) * scale).round() as u32).max(1);
    image::imageops::resize(&image, w, h, FilterType::Triangle)
}

impl PreviewWork {
    pub fn new(previewer: Previewer) -> PreviewWork {
        PreviewWork { previewer, player: Mutex::new(None) }
    }

    fn with_player<T>(&self, f: impl FnOnce(&mut Option<(u64, Player)>) -> T) -> T {
        f(&mut self.player.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Carries out a preview effect (the others are not its business).
    pub fn perform(self: &std::sync::Arc<Self>, effect: Effect, tx: &UnboundedSender<Action>) {
        match effect {
            Effect::LoadStills { sha256, path } => {
                let (previewer, tx) = (self.previewer.clone(), tx.clone());
                tokio::task::spawn_blocking(move || {
                    let result = previewer.stills(Path::new(&path), &sha256).map_err(|e| failure(&e));
                    let _ = tx.send(Action::Stills(sha256, result));
                });
            }
            Effect::LoadThumbs { files, width, height } => {
                let (previewer, tx) = (self.previewer.clone(), tx.clone());
                tokio::task::spawn_blocking(move || {
                    for (sha256, path) in files {
                        let result = previewer.poster(Path::new(&path), &sha256).map_err(|e| failure(&e));
                        let missing = matches!(&result, Err(f) if f.no_ffmpeg);
                        let result = result.map(|p| shrink(p, width, height));
                        if tx.send(Action::Thumb(sha256, result)).is_err() || missing {
                            break;
                        }
                    }
                });
            }
            Effect::Play { generation, path, width, height, fps } => {
                // The old player goes first: one ffmpeg decodes for the screen at a time.
                let old = self.with_player(Option::take);
                let frames = tx.clone();
                let on_frame = Box::new(move |frame: RgbImage| {
                    let _ = frames.send(Action::PlayFrame(generation, frame));
                });
                match Player::start(&self.previewer.ffmpeg, Path::new(&path), width, height, fps, on_frame) {
                    Ok(player) => {
                        self.with_player(|p| *p = Some((generation, player)));
                        self.watch(generation, tx.clone());
                    }
                    Err(e) => {
                        let _ = tx.send(Action::PlayFailed(generation, e.to_string()));
                    }
                }
                if let Some((_, old)) = old {
                    tokio::task::spawn_blocking(move || drop(old));
                }
            }
            Effect::PlayPause(paused) => self.with_player(|p| {
                if let Some((_, p)) = p {
                    p.set_paused(paused);
                }
            }),
            Effect::PlayStop => {
                if let Some((_, old)) = self.with_player(Option::take) {
                    // Stopping waits for ffmpeg and the reader thread: not on the loop.
                    tokio::task::spawn_blocking(move || drop(old));
                }
            }
            _ => {}
        }
    }

    /// Reports it if the player of `generation` cannot play its file (ffmpeg could not read
    /// it), looking until its frames flow.
    fn watch(self: &std::sync::Arc<Self>, generation: u64, tx: UnboundedSender<Action>) {
        let work = std::sync::Arc::clone(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(FAILURE_CHECK).await;
                // Until frames flow: after that, nothing is left to watch (and an idle,
                // paused player wakes nobody).
                let state = work.with_player(|p| match p {
                    Some((g, player)) if *g == generation => Some((player.failure(), player.frame_size().is_some())),
                    _ => None,
                });
                match state {
                    None | Some((None, true)) => return,
                    Some((Some(why), _)) => {
                        let _ = tx.send(Action::PlayFailed(generation, why));
                        return;
                    }
                    Some((None, false)) => {}
                }
            }
        });
    }

    /// Holds the player back while the dashboard is away (suspended); returns whether it was
    /// playing, for [`PreviewWork::resume`].
    pub fn hold(&self) -> bool {
        self.with_player(|p| match p {
            Some((_, p)) if !p.paused() => {
                p.set_paused(true);
                true
            }
            _ => false,
        })
    }

    pub fn resume(&self, was_playing: bool) {
        if was_playing {
            self.with_player(|p| {
                if let Some((_, p)) = p {
                    p.set_paused(false);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_keeps_the_shape_and_never_enlarges() {
        let cases = [
            ((480, 270), (220, 120), (213, 120)),
            ((160, 90), (220, 120), (160, 90)),
            ((270, 480), (220, 120), (68, 120)),
        ];
        for ((w, h), (bw, bh), want) in cases {
            let got = shrink(RgbImage::new(w, h), bw, bh);
            assert_eq!((got.width(), got.height()), want, "{w}x{h} into {bw}x{bh}");
        }
    }
}
