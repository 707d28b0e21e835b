//! Stills made for the engine after each download, so that the dashboard finds them cached.
//!
//! One worker task takes saved files from a queue and makes their stills one at a time on
//! tokio's blocking pool: ffmpeg never runs on the engine's async threads, never more than once
//! at a time, and a download or poll never waits for it. Failures are only logged.

use std::path::PathBuf;

use tokio::sync::mpsc;

use super::{PreviewError, Previewer};

/// The queue's sending end; dropping it (with the engine) ends the worker after its current file.
#[derive(Debug, Clone)]
pub struct Background {
    queue: mpsc::UnboundedSender<(PathBuf, String)>,
}

impl Background {
    /// Starts the worker; call inside a tokio runtime.
    pub fn start(previewer: Previewer) -> Background {
        let (queue, mut saved) = mpsc::unbounded_channel::<(PathBuf, String)>();
        tokio::spawn(async move {
            let mut told_no_ffmpeg = false;
            while let Some((video, sha256)) = saved.recv().await {
                let p = previewer.clone();
                let path = video.clone();
                let made = tokio::task::spawn_blocking(move || p.ensure(&path, &sha256)).await;
                match made {
                    Ok(Ok(())) => tracing::debug!(video = %video.display(), "preview stills ready"),
                    Ok(Err(PreviewError::NoFfmpeg { program })) => {
                        if !std::mem::replace(&mut told_no_ffmpeg, true) {
                            tracing::debug!(program, "no previews: ffmpeg does not start");
                        }
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(video = %video.display(), error = %crate::text::safe(&e.to_string()), "no preview stills")
                    }
                    Err(e) => tracing::warn!(error = %e, "preview stills task ended"),
                }
            }
        });
        Background { queue }
    }

    /// Queues the stills of a file just saved.
    pub fn saved(&self, video: PathBuf, sha256: String) {
        let _ = self.queue.send((video, sha256));
    }
}
