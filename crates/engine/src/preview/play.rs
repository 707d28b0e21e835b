//! Inline playback: an ffmpeg child decodes the video to raw RGB frames of a given size at a
//! modest frame rate; a reader thread paces them and hands each to a callback.
//!
//! The reader takes one frame (exactly width × height × 3 bytes) at a time from ffmpeg's pipe and
//! shows it when its time comes. Paused, it stops reading, so ffmpeg blocks on the full pipe and
//! nothing piles up to burst out on resume. At the end of the video ffmpeg is started again
//! (a loop). The video's size is read once (ffmpeg's header) to fit the frames to the box.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use image::RgbImage;

use super::{PreviewError, frames, probe, process};

/// The frame size for a video of `video` pixels played in a `width` × `height` box: aspect kept,
/// even sides, never enlarged (the widget scales up if it wants; ffmpeg need not decode more).
pub fn frame_size(video: (u32, u32), width: u32, height: u32) -> (u32, u32) {
    frames::fit(video, (width, height))
}

/// A playing video. Dropping it stops ffmpeg and the reader thread.
#[derive(Debug)]
pub struct Player {
    shared: Arc<Shared>,
    reader: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct State {
    paused: bool,
    stopped: bool,
    /// The ffmpeg running now (the header read, then each pass over the video), for Drop to kill.
    child: Option<Child>,
    /// Why playback ended by itself.
    failure: Option<String>,
    size: Option<(u32, u32)>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn fail(&self, why: String) {
        tracing::debug!(why, "inline preview stopped");
        self.lock().failure = Some(why);
    }

    /// Waits for the running child to end and clears it.
    fn reap(&self) {
        let child = self.lock().child.take();
        if let Some(mut child) = child {
            let _ = child.wait();
        }
    }

    /// Starts the next pass, unless playback was stopped meanwhile.
    fn start_child(&self, program: &str, args: &[std::ffi::OsString]) -> Option<(ChildStdout, ChildStderr)> {
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        let mut child = match process::spawn(program, args, Stdio::piped()) {
            Ok(c) => c,
            Err(e) => {
                state.failure = Some(e.to_string());
                return None;
            }
        };
        let pipes = child.stdout.take().zip(child.stderr.take());
        if pipes.is_none() {
            let _ = child.kill();
        }
        state.child = Some(child);
        pipes
    }

    /// Blocks until the frame due at `due` may be shown (never while paused); false once stopped.
    fn wait_turn(&self, due: &mut Instant, period: Duration) -> bool {
        let mut state = self.lock();
        let mut resumed = false;
        loop {
            if state.stopped {
                return false;
            }
            if state.paused {
                resumed = true;
                state = self.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let now = Instant::now();
            if resumed {
                // The held frame shows at once, then the pace starts over.
                *due = now;
            }
            if now >= *due {
                break;
            }
            state = self.wake.wait_timeout(state, *due - now).unwrap_or_else(PoisonError::into_inner).0;
        }
        let now = Instant::now();
        *due += period;
        if *due + period < now {
            // Decoding fell behind: go on from now rather than rush the missed frames out.
            *due = now;
        }
        true
    }
}

/// What the reader thread plays.
struct Job {
    ffmpeg: String,
    video: PathBuf,
    bound: (u32, u32),
    fps: u32,
    on_frame: Box<dyn Fn(RgbImage) + Send>,
}

impl Job {
    fn run(self, shared: &Shared, header: ChildStderr) {
        let stderr = process::read_stderr(header);
        shared.reap();
        if shared.lock().stopped {
            return;
        }
        let Some(info) = probe::parse(&stderr) else {
            let why = process::failed(&self.video, &process::last_line(&stderr));
            return shared.fail(why.to_string());
        };
        let size = frame_size(info.size(), self.bound.0, self.bound.1);
        shared.lock().size = Some(size);
        let frame_len = size.0 as usize * size.1 as usize * 3;
        let period = Duration::from_secs_f64(1.0 / f64::from(self.fps));
        let args = frames::play_args(&self.video, size, self.fps);
        loop {
            let Some((mut stdout, stderr)) = shared.start_child(&self.ffmpeg, &args) else { return };
            let complaints = std::thread::spawn(move || process::read_stderr(stderr));
            let mut shown = 0u64;
            let mut due = Instant::now();
            loop {
                let mut buf = vec![0u8; frame_len];
                if stdout.read_exact(&mut buf).is_err() {
                    break;
                }
                if !shared.wait_turn(&mut due, period) {
                    break;
                }
                let Some(frame) = RgbImage::from_raw(size.0, size.1, buf) else { break };
                (self.on_frame)(frame);
                shown += 1;
            }
            drop(stdout);
            shared.reap();
            let complaints = complaints.join().unwrap_or_default();
            if shared.lock().stopped {
                return;
            }
            if shown == 0 {
                let why = process::failed(&self.video, &process::last_line(&complaints));
                return shared.fail(why.to_string());
            }
        }
    }
}

impl Player {
    /// Starts playing `video` scaled to fit `width`x`height` pixels (aspect kept) at `fps`,
    /// looping at the end. `on_frame` runs on the reader thread for each frame, in time.
    ///
    /// Returns at once (it only starts ffmpeg): reading the header and decoding happen on the
    /// reader thread. `NoFfmpeg` when ffmpeg cannot start, `Io` when the file cannot be read;
    /// a file ffmpeg cannot decode shows no frames and `failure()` says why.
    pub fn start(
        ffmpeg: &str,
        video: &Path,
        width: u32,
        height: u32,
        fps: u32,
        on_frame: Box<dyn Fn(RgbImage) + Send>,
    ) -> Result<Player, PreviewError> {
        std::fs::File::open(video).map_err(|source| PreviewError::Io { path: video.to_path_buf(), source })?;
        let mut header = process::spawn(ffmpeg, &frames::probe_args(video), Stdio::null())?;
        let Some(stderr) = header.stderr.take() else {
            let _ = header.kill();
            let _ = header.wait();
            return Err(process::failed(video, "no standard error"));
        };
        let shared = Arc::new(Shared::default());
        shared.lock().child = Some(header);
        let job = Job {
            ffmpeg: ffmpeg.to_string(),
            video: video.to_path_buf(),
            bound: (width, height),
            fps: fps.max(1),
            on_frame,
        };
        let for_reader = Arc::clone(&shared);
        let reader =
            std::thread::Builder::new().name("reel-preview-player".into()).spawn(move || job.run(&for_reader, stderr));
        let mut player = Player { shared, reader: None };
        match reader {
            Ok(handle) => {
                player.reader = Some(handle);
                Ok(player)
            }
            // Dropping the player kills the header read.
            Err(source) => Err(PreviewError::Io { path: video.to_path_buf(), source }),
        }
    }

    /// Pauses (no frames, ffmpeg held back by the pipe) or resumes.
    pub fn set_paused(&self, paused: bool) {
        self.shared.lock().paused = paused;
        self.shared.wake.notify_all();
    }

    pub fn paused(&self) -> bool {
        self.shared.lock().paused
    }

    /// The size of the frames handed out, once the video's header has been read.
    pub fn frame_size(&self) -> Option<(u32, u32)> {
        self.shared.lock().size
    }

    /// Why playback ended by itself (ffmpeg could not read the file), if it did.
    pub fn failure(&self) -> Option<String> {
        self.shared.lock().failure.clone()
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        {
            let mut state = self.shared.lock();
            state.stopped = true;
            if let Some(child) = state.child.as_mut() {
                let _ = child.kill();
            }
        }
        self.shared.wake.notify_all();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_fit_the_box() {
        let cases = [
            ((1280, 720), (160, 96), (160, 90)),
            ((1280, 720), (80, 48), (80, 44)),
            ((720, 1280), (160, 96), (54, 96)),
            ((1080, 1080), (320, 96), (96, 96)),
            ((854, 480), (1600, 960), (854, 480)),
        ];
        for (video, (w, h), want) in cases {
            assert_eq!(frame_size(video, w, h), want, "{video:?} in {w}x{h}");
        }
    }

    #[test]
    fn pacing_never_bursts_after_falling_behind() {
        let shared = Shared::default();
        let period = Duration::from_millis(10);
        let mut due = Instant::now() - Duration::from_secs(5);
        assert!(shared.wait_turn(&mut due, period));
        assert!(due + Duration::from_secs(1) > Instant::now(), "the schedule starts over from now");
        shared.lock().stopped = true;
        assert!(!shared.wait_turn(&mut due, period), "stopped");
    }
}
