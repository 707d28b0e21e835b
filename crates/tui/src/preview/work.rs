//! Carrying out the preview effects off the event loop: stills and grid posters read (or made
//! with ffmpeg) on the blocking pool, and the one inline player started, paused and stopped.

use std::path::Path;
use std::sync::Mutex;

use image::RgbImage;
use image::imageops::FilterType;
use tokio::sync::mpsc::UnboundedSender;

use super::PreviewFailure;
use crate::app::{Action, Effect};
use crate::latest::Ticket;
use reel_engine::preview::clip;
use reel_engine::preview::play::Player;
use reel_engine::preview::{PreviewError, Previewer};

pub struct PreviewWork {
    previewer: Previewer,
    slot: Mutex<Slot>,
    posters: Mutex<Posters>,
}

/// Grid posters to read or make, by one worker: paging through a thousand results must not start
/// a thousand ffmpeg runs at once. The newest asked (what is on screen now) go first.
#[derive(Default)]
struct Posters {
    /// (sha256, path, width, height), the next at the end.
    jobs: Vec<(String, String, u32, u32)>,
    working: bool,
}

/// The one player. Starting one runs on the blocking pool, so what the dashboard asked for last
/// (`wanted`, `paused`) is kept here and a player that starts after it was stopped is dropped.
#[derive(Default)]
struct Slot {
    wanted: Option<Ticket>,
    paused: bool,
    /// The player and the start it belongs to.
    player: Option<(Ticket, Player)>,
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
        PreviewWork { previewer, slot: Mutex::new(Slot::default()), posters: Mutex::new(Posters::default()) }
    }

    /// This machine's preview cache.
    pub fn cache_dir(&self) -> &Path {
        &self.previewer.cache_dir
    }

    fn with_slot<T>(&self, f: impl FnOnce(&mut Slot) -> T) -> T {
        f(&mut self.slot.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn set_paused(&self, paused: bool) {
        self.with_slot(|s| {
            s.paused = paused;
            if let Some((_, p)) = &s.player {
                p.set_paused(paused);
            }
        });
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
                let start = {
                    let mut q = self.posters.lock().unwrap_or_else(|e| e.into_inner());
                    q.jobs.extend(files.into_iter().rev().map(|(sha, path)| (sha, path, width, height)));
                    !std::mem::replace(&mut q.working, true)
                };
                if start {
                    let (work, tx) = (std::sync::Arc::clone(self), tx.clone());
                    tokio::task::spawn_blocking(move || work.make_posters(&tx));
                }
            }
            Effect::Play { ticket, path, width, height, fps, .. } => {
                // The old player goes first: one ffmpeg decodes for the screen at a time.
                let old = self.with_slot(|s| {
                    s.wanted = Some(ticket);
                    s.paused = false;
                    s.player.take()
                });
                let (work, tx) = (std::sync::Arc::clone(self), tx.clone());
                // Stopping waits for ffmpeg and a thread, starting runs a process: not on the loop.
                tokio::task::spawn_blocking(move || {
                    drop(old);
                    let frames = tx.clone();
                    let shown = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                    let first = std::sync::Arc::clone(&shown);
                    let on_frame = Box::new(move |frame: RgbImage| {
                        first.store(true, std::sync::atomic::Ordering::Relaxed);
                        let _ = frames.send(Action::PlayFrame(ticket, frame));
                    });
                    match Player::start(&work.previewer.ffmpeg, Path::new(&path), width, height, fps, on_frame) {
                        Ok(player) => {
                            let late = work.with_slot(|s| {
                                if s.wanted != Some(ticket) {
                                    return Some(player);
                                }
                                player.set_paused(s.paused);
                                s.player = Some((ticket, player));
                                None
                            });
                            match late {
                                Some(stopped_meanwhile) => drop(stopped_meanwhile),
                                None => work.watch(ticket, tx, shown),
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Action::PlayFailed(ticket, e.to_string()));
                        }
                    }
                });
            }
            Effect::LoadClips { ticket, files, width, height, fps, frames } => {
                let (previewer, tx) = (self.previewer.clone(), tx.clone());
                // One after another: the machine's cores are the engine's and the terminal's too.
                tokio::task::spawn_blocking(move || {
                    for (take, _, path) in files {
                        let clip = clip::decode(&previewer.ffmpeg, Path::new(&path), width, height, fps, frames)
                            .map_err(|e| failure(&e));
                        if tx.send(Action::Clip(ticket, take, clip)).is_err() {
                            return;
                        }
                    }
                });
            }
            Effect::PlayPause(paused) => self.set_paused(paused),
            Effect::PlayStop => {
                let old = self.with_slot(|s| {
                    s.wanted = None;
                    s.player.take()
                });
                if let Some((_, old)) = old {
                    tokio::task::spawn_blocking(move || drop(old));
                }
            }
            _ => {}
        }
    }

    /// The grid's poster worker: until no job is left.
    fn make_posters(&self, tx: &UnboundedSender<Action>) {
        loop {
            let job = {
                let mut q = self.posters.lock().unwrap_or_else(|e| e.into_inner());
                let job = q.jobs.pop();
                q.working = job.is_some();
                job
            };
            let Some((sha256, path, width, height)) = job else { return };
            let result = self.previewer.poster(Path::new(&path), &sha256).map_err(|e| failure(&e));
            if tx.send(Action::Thumb(sha256, result.map(|p| shrink(p, width, height)))).is_err() {
                return;
            }
        }
    }

    /// Reports it if the player of `ticket` cannot play its file (ffmpeg could not read
    /// or decode it), looking until its first frame has come.
    fn watch(
        self: &std::sync::Arc<Self>,
        ticket: Ticket,
        tx: UnboundedSender<Action>,
        shown: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) {
        let work = std::sync::Arc::clone(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(FAILURE_CHECK).await;
                // Until frames flow: after that, nothing is left to watch (and an idle,
                // paused player wakes nobody).
                let flowing = shown.load(std::sync::atomic::Ordering::Relaxed);
                let state = work.with_slot(|s| match &s.player {
                    Some((g, player)) if *g == ticket => Some((player.failure(), flowing)),
                    _ => None,
                });
                match state {
                    None | Some((None, true)) => return,
                    Some((Some(why), _)) => {
                        let _ = tx.send(Action::PlayFailed(ticket, why));
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
        let playing = self.with_slot(|s| s.player.is_some() && !s.paused);
        if playing {
            self.set_paused(true);
        }
        playing
    }

    pub fn resume(&self, was_playing: bool) {
        if was_playing {
            self.set_paused(false);
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

#[cfg(test)]
mod player_tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use reel_sim::video::testing::{have_ffmpeg, video};

    #[tokio::test(flavor = "multi_thread")]
    async fn a_player_stopped_while_it_starts_never_plays_and_the_next_one_does() {
        if !have_ffmpeg() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = video(dir.path()).display().to_string();
        let work = Arc::new(PreviewWork::new(Previewer::new(dir.path().join("cache"), "ffmpeg".into())));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut starts = crate::latest::Latest::default();
        let (first, second) = (starts.issue(), starts.issue());
        let play = |ticket| Effect::Play {
            ticket,
            sha256: String::new(),
            path: path.clone(),
            width: 160,
            height: 90,
            fps: 10,
        };
        work.perform(play(first), &tx);
        work.perform(Effect::PlayStop, &tx);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(work.with_slot(|s| s.player.is_none()), "a player started after its stop is dropped");
        while let Ok(a) = rx.try_recv() {
            assert!(!matches!(a, Action::PlayFrame(t, _) if t == first), "a stopped start played");
        }
        work.perform(play(second), &tx);
        let frame = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                match rx.recv().await {
                    Some(Action::PlayFrame(t, f)) if t == second => return f,
                    Some(_) => {}
                    None => panic!("channel closed"),
                }
            }
        })
        .await
        .expect("the next start plays");
        assert_eq!((frame.width(), frame.height()), (160, 90));
        // A paused player is not held again (so a suspend does not resume what the user paused).
        work.perform(Effect::PlayPause(true), &tx);
        assert!(!work.hold(), "hold finds it paused already");
        work.perform(Effect::PlayStop, &tx);
    }
}
