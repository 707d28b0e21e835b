//! The engine's answers to commands: journal new submissions, send again, check again,
//! download again, delete, review. The decisions are in `manual.rs`; this is their I/O.

use std::path::PathBuf;

use super::manual::{self, Recheck};
use super::queue::Job;
use super::run::{Runner, now};
use super::timeline::Entry;
use super::{Answer, Command, EngineError, Refused, Request};
use reel_store::tasks;
use reel_store::{LocalState, TaskRecord};

impl Runner {
    pub(super) async fn command(&mut self, command: Command) {
        match command {
            Command::Call { request, reply } => {
                let _ = reply.send(self.handle(request).await);
            }
            Command::Shutdown => {}
        }
    }

    /// The runner's part of the engine's API: everything that changes what the engine works on.
    async fn handle(&mut self, request: Request) -> Result<Answer, EngineError> {
        if !matches!(request, Request::Tasks { .. } | Request::Activity) {
            // While the disk is full nothing can be journaled, so nothing may change.
            self.refuse_while_paused()?;
        }
        Ok(match request {
            Request::Submit(s) => Answer::Submitted(Box::new(self.submit(*s).await?)),
            Request::Resend { id } => self.resend(id).await.map(|()| Answer::Done)?,
            Request::Recheck { id } => self.recheck(id).await.map(|()| Answer::Done)?,
            Request::Download { id } => self.redownload(id).await.map(|()| Answer::Done)?,
            Request::Delete { id, remove_file } => Answer::Task(Box::new(self.delete(id, remove_file).await?)),
            Request::Import { entries } => Answer::Tasks(self.import(entries).await?),
            Request::Tasks { ids } => Answer::Tasks(self.tasks(ids).await?),
            Request::Review { id, change } => Answer::Task(Box::new(self.review(id, change).await?)),
            Request::Activity => Answer::Activity(self.activity()),
            // Reads, fetches and the process's own questions are answered before the runner.
            other @ (Request::Read { .. }
            | Request::Fetch { .. }
            | Request::Models
            | Request::Status
            | Request::Stop { .. }) => {
                return Err(Refused::failed(format!("the engine's runner does not answer {other:?}")).into());
            }
        })
    }

    /// Journals imported entries in one transaction, leaving out files already known (and a
    /// file given twice), then announces them. They are settled: nothing is sent or polled.
    async fn import(&mut self, entries: Vec<(TaskRecord, String)>) -> Result<Vec<TaskRecord>, EngineError> {
        // Whatever a client sent, an imported entry is settled: nothing to send, poll or fetch.
        let entries: Vec<(TaskRecord, String)> = entries
            .into_iter()
            .map(|(r, origin)| {
                let imported_from = r.imported_from.clone().or_else(|| Some(String::new()));
                let settled = TaskRecord {
                    state: LocalState::Downloaded,
                    url: None,
                    url_deadline: None,
                    next_poll_at: None,
                    error: None,
                    imported_from,
                    ..r
                };
                (settled, origin)
            })
            .collect();
        let records = self
            .store
            .write(move |c| {
                let tx = c.transaction()?;
                let mut out = Vec::new();
                for (record, origin) in &entries {
                    if let Some(t) = reel_store::imported::insert_imported(&tx, record, origin)? {
                        out.push((record.id, t));
                    }
                }
                reel_store::imported::relink(&tx, &mut out)?;
                tx.commit()?;
                Ok(out.into_iter().map(|(_, t)| t).collect::<Vec<_>>())
            })
            .await?;
        tracing::info!(count = records.len(), "imported tasks");
        self.emit_all(&records);
        Ok(records)
    }

    /// The engine's own copy of what it works on, the journal's for the rest.
    async fn tasks(&self, ids: Vec<i64>) -> Result<Vec<TaskRecord>, EngineError> {
        let (mut out, mut read) = (Vec::with_capacity(ids.len()), Vec::new());
        for id in ids {
            match self.queue.get(id) {
                Some(r) => out.push(r.clone()),
                None => read.push(id),
            }
        }
        if !read.is_empty() {
            let stored = self
                .store
                .read(move |c| {
                    read.iter().filter_map(|&id| tasks::get(c, id).transpose()).collect::<Result<Vec<_>, _>>()
                })
                .await?;
            out.extend(stored);
        }
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    async fn load(&self, id: i64) -> Result<TaskRecord, EngineError> {
        if let Some(r) = self.queue.get(id) {
            return Ok(r.clone());
        }
        self.store.read(move |c| tasks::get(c, id)).await?.ok_or(EngineError::from(Refused::NoTask { id }))
    }

    /// Journals a row the user's request changed, then works on it.
    async fn take_up(&mut self, record: TaskRecord, event: &str, job: Job) -> Result<(), EngineError> {
        let now = now();
        self.write(&[super::queue::Write { record: record.clone(), event: Some(Entry::said(event)), sidecar: false }])
            .await?;
        self.queue.track(record, job, now.at);
        Ok(())
    }

    async fn resend(&mut self, id: i64) -> Result<(), EngineError> {
        let r = manual::resend(&self.load(id).await?, now().ms)?;
        self.take_up(r, manual::RESENT, Job::Send).await
    }

    async fn recheck(&mut self, id: i64) -> Result<(), EngineError> {
        match manual::recheck(&self.load(id).await?)? {
            Recheck::Download => self.redownload(id).await,
            Recheck::Poll(r) => {
                self.queue.track(*r, Job::Poll, now().at);
                Ok(())
            }
        }
    }

    async fn redownload(&mut self, id: i64) -> Result<(), EngineError> {
        if self.queue.get(id).is_some_and(|r| r.state.needs_download()) {
            // Already on its way (a download a crash interrupted resumes by itself).
            return Ok(());
        }
        let (r, job) = manual::redownload(&self.load(id).await?, self.queue.is_busy(id), now().ms)?;
        let on_disk = match &r.file_path {
            Some(path) => Some(tokio::fs::try_exists(path).await.unwrap_or(false)),
            None => None,
        };
        self.take_up(r, manual::DOWNLOAD_REQUESTED, job).await?;
        if let Some(on_disk) = on_disk {
            self.queue.file_on_disk(id, on_disk);
        }
        Ok(())
    }

    async fn delete(&mut self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        let running = self.queue.get(id).map(|r| (r.state, self.queue.is_busy(id)));
        if manual::deletable(id, running)? == manual::Deletion::Held {
            // Nothing more is sent or asked for it; a task the service has may still render there.
            let remote = self.queue.get(id).and_then(|r| r.remote_id.clone());
            self.queue.forget(id);
            tracing::info!(task = id, remote = ?remote, "no longer followed: deleted while held");
        }
        let task = self
            .store
            .write(move |c| reel_store::history::delete(c, id))
            .await?
            .ok_or(EngineError::from(Refused::NoTask { id }))?;
        tracing::info!(task = id, remove_file, "deleted");
        // Only reel's own files: an imported entry's file stays in the folder it came from.
        let own = |p: &PathBuf| p.starts_with(&self.cfg.videos_dir) && task.imported_from.is_none();
        if remove_file && let Some(path) = task.file_path.as_ref().map(PathBuf::from).filter(own) {
            for p in [path.with_extension("json"), path] {
                match tokio::fs::remove_file(&p).await {
                    Ok(()) => {}
                    // Moved or deleted already: that is what the user wants anyway.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => return Err(EngineError::Io { path: p, source }),
                }
            }
        }
        Ok(task)
    }

    /// Journals a change of a task's review (rating, pick, tags; with its timeline) and announces
    /// the task. A pick is the winner of its batch: the batch's other picks are taken back in the
    /// same transaction, whoever sent it (the dashboard, a command, an agent).
    async fn review(&mut self, id: i64, change: reel_store::review::Change) -> Result<TaskRecord, EngineError> {
        let at = now().ms;
        let write = move |c: &mut rusqlite::Connection| {
            // The review and its timeline lines, all or none.
            let tx = c.transaction()?;
            let done = match change {
                reel_store::review::Change::Pick(true) => reel_store::reviewing::pick_alone(&tx, id, at)?,
                _ => (reel_store::reviewing::write_review(&tx, id, &change, at)?, Vec::new()),
            };
            tx.commit()?;
            Ok(done)
        };
        let (task, unpicked) = self.store.write(write).await.map_err(|e| match e {
            reel_store::StoreError::Missing(id) => EngineError::from(Refused::NoTask { id }),
            e => e.into(),
        })?;
        for t in unpicked.iter().chain(std::iter::once(&task)) {
            self.queue.reviewed(t.id, &t.review);
            tracing::info!(task = t.id, review = ?t.review, "reviewed");
            self.emit(t);
            keep_sidecar(t).await;
        }
        Ok(task)
    }
}

/// The sidecar of a saved task written again with its review, so that the folder carries it
/// (`reel import` on another machine keeps ratings, tags and picks). A task without a sidecar
/// (its file moved or deleted) is left as it is; a failed write is logged, the review stands.
async fn keep_sidecar(t: &TaskRecord) {
    // An imported file is in a folder of another history (a colleague's): never written to.
    if t.imported_from.is_some() {
        return;
    }
    let Some(path) = t.file_path.as_deref() else { return };
    let sidecar = std::path::Path::new(path).with_extension("json");
    if !tokio::fs::try_exists(&sidecar).await.unwrap_or(false) {
        return;
    }
    let body = serde_json::to_vec_pretty(&super::files::sidecar(t)).unwrap_or_default();
    if let Err(e) = super::download::write_atomic(&sidecar, &body).await {
        tracing::warn!(task = t.id, path = %sidecar.display(), error = %e, "cannot write the sidecar again");
    }
}
