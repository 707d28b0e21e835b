//! Stills made for the engine after each download, so that the dashboard finds them cached.
//!
//! One thread of its own takes saved files from a queue and makes their stills one at a time:
//! ffmpeg never runs on the engine's async threads, never more than once at a time, and only
//! once no download has waited or run for [`QUIET`] (the engine says so through `idle`), so
//! that a burst of finished tasks is saved first and previewed after. The thread and the ffmpeg
//! it starts run at a lower CPU priority: a download that starts meanwhile is not slowed by
//! them. Failures are only logged.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::{PreviewError, Previewer};

/// How long downloads must have been idle before a preview starts.
pub const QUIET: Duration = Duration::from_millis(500);
/// The niceness of the previews' thread (and of the ffmpeg it starts).
const NICENESS: i32 = 10;

/// The queue's sending end; dropping it (with the engine) ends the worker after its current file.
#[derive(Debug, Clone)]
pub struct Background {
    queue: mpsc::UnboundedSender<(PathBuf, String)>,
}

impl Background {
    /// Starts the worker; `idle` is `true` while no download waits or runs. Call inside a tokio
    /// runtime.
    pub fn start(previewer: Previewer, idle: watch::Receiver<bool>) -> Background {
        let (queue, saved) = mpsc::unbounded_channel::<(PathBuf, String)>();
        let runtime = tokio::runtime::Handle::current();
        let spawned = std::thread::Builder::new()
            .name("reel-previews".into())
            .spawn(move || work(&previewer, saved, idle, &runtime));
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no preview stills: cannot start their thread");
        }
        Background { queue }
    }

    /// Queues the stills of a file just saved.
    pub fn saved(&self, video: PathBuf, sha256: String) {
        let _ = self.queue.send((video, sha256));
    }
}

/// Waits until downloads have been idle for `wait`; `false` once the engine is gone.
async fn quiet(idle: &mut watch::Receiver<bool>, wait: Duration) -> bool {
    loop {
        if idle.wait_for(|idle| *idle).await.is_err() {
            return false;
        }
        // Idle now: previews go only if it stays so (the next download of a burst is near).
        match tokio::time::timeout(wait, idle.wait_for(|idle| !*idle)).await {
            Err(_) => return true,
            Ok(Ok(_)) => continue,
            Ok(Err(_)) => return false,
        }
    }
}

fn work(
    previewer: &Previewer,
    mut saved: mpsc::UnboundedReceiver<(PathBuf, String)>,
    mut idle: watch::Receiver<bool>,
    runtime: &tokio::runtime::Handle,
) {
    lower_priority();
    let mut told_no_ffmpeg = false;
    while let Some((video, sha256)) = saved.blocking_recv() {
        if !runtime.block_on(quiet(&mut idle, QUIET)) {
            return;
        }
        match previewer.ensure(&video, &sha256) {
            Ok(()) => tracing::debug!(video = %video.display(), "preview stills ready"),
            Err(PreviewError::NoFfmpeg { program }) => {
                if !std::mem::replace(&mut told_no_ffmpeg, true) {
                    tracing::debug!(program, "no previews: ffmpeg does not start");
                }
            }
            Err(e) => {
                tracing::warn!(video = %video.display(), error = %reel_rules::text::safe(&e.to_string()), "no preview stills")
            }
        }
    }
}

/// Lowers the calling thread's CPU priority (on Linux `setpriority` with no id applies to the
/// calling thread, and the processes it starts inherit it). A hint: failing changes only speed.
#[cfg(target_os = "linux")]
fn lower_priority() {
    if let Err(e) = rustix::process::setpriority_process(None, NICENESS) {
        tracing::debug!(error = %e, "previews keep their priority");
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Previews wait while downloads are under way and go once they have been idle a while.
    #[tokio::test]
    async fn previews_wait_for_downloads_to_be_idle() {
        let short = Duration::from_millis(10);
        let (tx, mut rx) = watch::channel(false);
        let waiting = tokio::spawn(async move { quiet(&mut rx, short).await });
        tokio::time::sleep(short * 20).await;
        assert!(!waiting.is_finished(), "no preview while a download runs");
        tx.send_replace(true);
        let went = tokio::time::timeout(Duration::from_secs(30), waiting).await;
        assert_eq!(went.ok().and_then(Result::ok), Some(true), "previews go once downloads are idle");
        let (tx, mut rx) = watch::channel(false);
        drop(tx);
        assert!(!quiet(&mut rx, short).await, "an engine that is gone makes no more previews");
    }
}
