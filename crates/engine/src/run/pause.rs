//! The engine's pause while the disk is full: what could not be journaled is held in order,
//! nothing new starts, and about once a second the runner looks for room and goes on by itself.

use std::path::PathBuf;
use std::time::Instant;

use super::{Runner, WriteError, now, now_ms};
use crate::EngineError;
use crate::disk::{self, DiskFull};
use crate::download::FetchError;
use crate::provenance;
use crate::queue::{Start, Write};

/// The engine's writing work, held while the disk is full: the rows not yet journaled and the
/// work that may leave only after them, in the order they came.
pub(crate) struct Paused {
    pub(crate) disk: DiskFull,
    pub(crate) writes: Vec<Write>,
    pub(crate) starts: Vec<Start>,
    /// When to look again whether there is room.
    pub(crate) next_probe: Instant,
}

impl Runner {
    /// The disk that `e` found full, if that is why the write failed.
    pub(crate) fn full_disk(&self, e: &WriteError) -> Option<DiskFull> {
        let ms = now_ms();
        match e {
            WriteError::Store(e) if disk::store_is_full(e) => {
                let dir = self.store.path().parent().map(PathBuf::from).unwrap_or_default();
                Some(full(dir, None, "the journal".into(), ms))
            }
            WriteError::Sidecar { path, source } if disk::is_full(source) => {
                let dir = path.parent().map(PathBuf::from).unwrap_or_default();
                Some(full(dir, None, format!("the sidecar {}", path.display()), ms))
            }
            _ => None,
        }
    }

    /// Holds `writes` and `starts` until the disk has room; already paused, adds them.
    pub(crate) fn pause(&mut self, disk: DiskFull, writes: Vec<Write>, starts: Vec<Start>) {
        match &mut self.paused {
            Some(p) => {
                p.disk = DiskFull { since_ms: p.disk.since_ms, ..disk };
                p.writes.extend(writes);
                p.starts.extend(starts);
            }
            None => {
                tracing::warn!(what = %disk.what, "{}", disk.summary());
                let next_probe = Instant::now() + disk::PROBE;
                self.paused = Some(Paused { disk, writes, starts, next_probe });
            }
        }
        self.announce_service();
    }

    /// Looks for room; with room, journals what waited and lets its work leave.
    pub(crate) async fn try_resume(&mut self) {
        let Some(mut p) = self.paused.take() else { return };
        p.next_probe = Instant::now() + disk::PROBE;
        p.disk.free_bytes = disk::free_bytes(&p.disk.dir);
        if p.disk.free_bytes.is_some_and(|free| !p.disk.room_in(free)) {
            self.paused = Some(p);
            self.announce_service();
            return;
        }
        match self.write(&p.writes).await {
            Ok(()) => {
                tracing::info!(rows = p.writes.len(), starts = p.starts.len(), "the disk has room again; resuming");
                self.announce_service();
                for start in p.starts {
                    self.launch(start);
                }
            }
            Err(e) => match self.full_disk(&e) {
                Some(disk) => {
                    p.disk = DiskFull { since_ms: p.disk.since_ms, needed_bytes: p.disk.needed_bytes, ..disk };
                    self.paused = Some(p);
                    self.announce_service();
                }
                None => {
                    // Another failure: the work waits and is tried again, as any failed write.
                    self.trouble(&e);
                    let later = Instant::now() + self.cfg.policy.backoff_base;
                    for start in &p.starts {
                        self.queue.not_started(start.id(), later);
                    }
                    self.announce_service();
                }
            },
        }
    }

    /// The service as the engine knows it, with the pause of its writing work.
    pub(crate) fn service(&self) -> crate::ServiceState {
        let mut service = self.queue.service(now());
        service.disk = self.paused.as_ref().map(|p| p.disk.clone());
        service
    }

    /// The pause of the engine's writing work, said to whoever asks to write now.
    pub(crate) fn refuse_while_paused(&self) -> Result<(), EngineError> {
        match &self.paused {
            Some(p) => Err(crate::Refused::failed(format!(
                "{}; nothing was changed: try again when there is room (the engine resumes by itself)",
                p.disk.summary()
            ))
            .into()),
            None => Ok(()),
        }
    }
}

/// The full disk a failed tagging met, if that is why: the tagged copy needs the file's size
/// again beside it.
pub(crate) fn tagging_found_full(
    e: &provenance::ProvenanceError,
    file: &std::path::Path,
    size: u64,
) -> Option<FetchError> {
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let full = |source| FetchError::DiskFull { dir: dir.clone(), needed: Some(size), source };
    match e {
        provenance::ProvenanceError::Io { source, .. } if disk::is_full(source) => {
            Some(full(std::io::Error::from_raw_os_error(source.raw_os_error().unwrap_or(libc::ENOSPC))))
        }
        provenance::ProvenanceError::Ffmpeg { message, .. } => {
            let short = disk::free_bytes(&dir).is_some_and(|free| free < size.saturating_add(disk::MARGIN));
            short.then(|| full(std::io::Error::other(format!("ffmpeg could not write the tagged copy: {message}"))))
        }
        _ => None,
    }
}

pub(crate) fn full(dir: PathBuf, needed_bytes: Option<u64>, what: String, since_ms: i64) -> DiskFull {
    let free_bytes = disk::free_bytes(&dir);
    DiskFull { dir, free_bytes, needed_bytes, what, since_ms }
}
