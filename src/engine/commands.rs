//! The engine's answers to commands: journal new submissions, send again, check again,
//! download again, delete, review. The decisions are in `manual.rs`; this is their I/O.

use std::path::PathBuf;

use super::journal::{self, Origin, Part};
use super::manual::{self, Recheck};
use super::queue::Job;
use super::run::{Runner, now};
use super::timeline::Entry;
use super::{Command, EngineError};
use crate::store::tasks::{self, NewTask};
use crate::store::{LocalState, TaskRecord};

fn idempotency_key(rng: &mut fastrand::Rng) -> String {
    (0..32).map(|_| format!("{:x}", rng.u8(..16))).collect()
}

impl Runner {
    pub(super) async fn command(&mut self, command: Command) {
        match command {
            Command::Submit { parts, reply } => {
                let _ = reply.send(self.submit(&parts).await);
            }
            Command::Resend { id, reply } => {
                let _ = reply.send(self.resend(id).await);
            }
            Command::Recheck { id, reply } => {
                let _ = reply.send(self.recheck(id).await);
            }
            Command::Download { id, reply } => {
                let _ = reply.send(self.redownload(id).await);
            }
            Command::Delete { id, remove_file, reply } => {
                let _ = reply.send(self.delete(id, remove_file).await);
            }
            Command::Import { entries, reply } => {
                let _ = reply.send(self.import(entries).await);
            }
            Command::Tasks { ids, reply } => {
                let _ = reply.send(self.tasks(ids).await);
            }
            Command::Review { id, change, reply } => {
                let _ = reply.send(self.review(id, change).await);
            }
            Command::Activity { reply } => {
                let _ = reply.send(Ok(self.activity()));
            }
            Command::Shutdown => {}
        }
    }

    /// Journals every task of a submission in one transaction (all or none), as one batch
    /// when there are several, then queues them.
    async fn submit(&mut self, parts: &[Part]) -> Result<Vec<TaskRecord>, EngineError> {
        // Uploads happen in the client that holds the storage credentials; a path never
        // reaches the service, whichever client forgot.
        for part in parts {
            if let Some(i) = part.submission.media.iter().position(|m| m.awaits_upload()) {
                return Err(EngineError::NotUploaded(i + 1));
            }
        }
        let now = now();
        let service = self.queue.service(now);
        if service.refuses_sends() {
            // Journaling it would only add tasks that wait for a key nobody has given yet.
            let why = service.detail.unwrap_or_else(|| "the service refused the API key".into());
            return Err(EngineError::KeyRefused(why));
        }
        let mut rows: Vec<NewTask> = Vec::new();
        for part in parts {
            for _ in 0..part.count.max(1) {
                let origin = Origin {
                    parent_id: part.parent,
                    idempotency_key: idempotency_key(&mut self.rng),
                    profile: self.cfg.profile.clone(),
                    base_url: self.client.base_url().to_string(),
                    created_at: now.ms,
                };
                rows.push(journal::new_task(&part.submission, origin));
            }
        }
        let records = self
            .store
            .write(move |c| {
                let tx = c.transaction()?;
                let out = tasks::insert_batch(&tx, &rows)?;
                tx.commit()?;
                Ok(out)
            })
            .await?;
        let models: Vec<String> = parts.iter().map(|p| p.submission.model.to_string()).collect();
        let batch = records.first().and_then(|r| r.batch_id);
        tracing::info!(count = records.len(), models = ?models, batch, "journaled new tasks");
        self.emit_all(&records);
        for r in &records {
            self.queue.track(r.clone(), Job::Send, now.at);
        }
        Ok(records)
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
                    out.extend(crate::store::imported::insert_imported(&tx, record, origin)?);
                }
                tx.commit()?;
                Ok(out)
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
        self.store.read(move |c| tasks::get(c, id)).await?.ok_or(EngineError::NoTask(id))
    }

    /// Journals a row the user's request changed, then works on it.
    async fn take_up(&mut self, record: TaskRecord, event: &str, job: Job) -> Result<(), EngineError> {
        let now = now();
        self.write(vec![super::queue::Write {
            record: record.clone(),
            event: Some(Entry::said(event)),
            sidecar: false,
        }])
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
        self.take_up(r, manual::DOWNLOAD_REQUESTED, job).await
    }

    async fn delete(&mut self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        manual::deletable(id, self.queue.get(id).map(|r| r.state))?;
        let task =
            self.store.write(move |c| crate::store::history::delete(c, id)).await?.ok_or(EngineError::NoTask(id))?;
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

    /// Journals a change of a task's review (rating, pick, tags; with its timeline) and announces the task.
    async fn review(&mut self, id: i64, change: crate::store::review::Change) -> Result<TaskRecord, EngineError> {
        let at = now().ms;
        let write = move |c: &mut rusqlite::Connection| {
            // The review and its timeline lines, all or none.
            let tx = c.transaction()?;
            let task = crate::store::tasks::write_review(&tx, id, &change, at)?;
            tx.commit()?;
            Ok(task)
        };
        let task = self.store.write(write).await.map_err(|e| match e {
            crate::store::StoreError::Missing(id) => EngineError::NoTask(id),
            e => e.into(),
        })?;
        self.queue.reviewed(id, &task.review);
        tracing::info!(task = id, review = ?task.review, "reviewed");
        self.emit(&task);
        Ok(task)
    }
}
