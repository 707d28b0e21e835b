//! The engine in this process: the runner task, its command channel and the data folder's lock.

use std::fs::File;
use std::path::Path;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::journal::Part;
use super::{Activity, Command, EngineConfig, EngineError, Event, Reply, run};
use crate::api::Client;
use crate::store::{Store, TaskRecord};

pub struct LocalEngine {
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
    /// Becomes true when the runner has stopped.
    done: watch::Receiver<bool>,
    _lock: File,
}

/// Takes the data folder's lock so that two engines never work on the same tasks.
fn lock(path: &Path) -> Result<File, EngineError> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| EngineError::Io { path: path.to_path_buf(), source })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(EngineError::Busy(path.parent().unwrap_or(path).to_path_buf())),
        Err(std::fs::TryLockError::Error(source)) => Err(EngineError::Io { path: path.to_path_buf(), source }),
    }
}

impl LocalEngine {
    /// Resumes every unfinished task from the store and starts working.
    pub async fn start(
        config: EngineConfig,
        client: Client,
        store: Store,
    ) -> Result<(LocalEngine, mpsc::UnboundedReceiver<Event>), EngineError> {
        let lock = lock(&store.path().with_extension("lock"))?;
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (events, events_rx) = mpsc::unbounded_channel();
        let runner = run::Runner::start(config, client, store, events, commands_rx).await?;
        let (done_tx, done) = watch::channel(false);
        let task = tokio::spawn(async move {
            runner.run().await;
            let _ = done_tx.send(true);
        });
        Ok((LocalEngine { commands, task: Some(task), done, _lock: lock }, events_rx))
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, EngineError> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(make(tx)).map_err(|_| EngineError::Stopped)?;
        rx.await.map_err(|_| EngineError::Stopped)?
    }

    /// Journals the tasks of every part (they exist once this returns), one batch when they
    /// are several, and queues their submission.
    pub async fn submit(&self, parts: Vec<Part>) -> Result<Vec<TaskRecord>, EngineError> {
        self.ask(|reply| Command::Submit { parts, reply }).await
    }

    pub async fn resend(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Resend { id, reply }).await
    }

    pub async fn recheck(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Recheck { id, reply }).await
    }

    pub async fn download(&self, id: i64) -> Result<(), EngineError> {
        self.ask(|reply| Command::Download { id, reply }).await
    }

    pub async fn delete(&self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        self.ask(|reply| Command::Delete { id, remove_file, reply }).await
    }

    pub async fn import(&self, entries: Vec<(TaskRecord, String)>) -> Result<Vec<TaskRecord>, EngineError> {
        self.ask(|reply| Command::Import { entries, reply }).await
    }

    pub async fn tasks(&self, ids: Vec<i64>) -> Result<Vec<TaskRecord>, EngineError> {
        self.ask(|reply| Command::Tasks { ids, reply }).await
    }

    pub async fn review(&self, id: i64, change: crate::store::review::Change) -> Result<TaskRecord, EngineError> {
        self.ask(|reply| Command::Review { id, change, reply }).await
    }

    /// What the engine is working on.
    pub async fn activity(&self) -> Result<Activity, EngineError> {
        self.ask(|reply| Command::Activity { reply }).await
    }

    /// Asks the engine to stop without waiting (see [`LocalEngine::stopped`]).
    pub fn request_shutdown(&self) {
        let _ = self.commands.send(Command::Shutdown);
    }

    /// Returns once the engine has stopped.
    pub async fn stopped(&self) {
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d).await;
    }

    /// Stops the engine; downloads under way resume at the next start.
    pub async fn shutdown(mut self) {
        let _ = self.commands.send(Command::Shutdown);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for LocalEngine {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown);
    }
}
