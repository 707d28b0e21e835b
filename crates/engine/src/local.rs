//! The engine in this process: the runner task, its command channel and the data folder's lock.

use std::fs::File;
use std::path::Path;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::service::reads;
use super::{Answer, Command, EngineConfig, EngineError, Event, Refused, Request, run};
use reel_api::Client;
use reel_store::Store;

pub struct LocalEngine {
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
    /// Becomes true when the runner has stopped.
    done: watch::Receiver<bool>,
    /// The journal, read for clients that cannot open it (over SSH).
    db: std::path::PathBuf,
    /// Makes the stills such clients fetch, where none were made yet.
    previewer: Option<crate::preview::Previewer>,
    /// Asks the service what it lists, beside the runner's work.
    client: Client,
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
        let (db, previewer) = (store.path().to_path_buf(), config.previews.clone());
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (events, events_rx) = mpsc::unbounded_channel();
        let runner = run::Runner::start(config, client.clone(), store, events, commands_rx).await?;
        let (done_tx, done) = watch::channel(false);
        let task = tokio::spawn(async move {
            runner.run().await;
            let _ = done_tx.send(true);
        });
        Ok((LocalEngine { commands, task: Some(task), done, db, previewer, client, _lock: lock }, events_rx))
    }

    /// Any operation of the engine's API: reads of the journal and its files on blocking
    /// threads (a slow read never holds the engine's work up), the rest by the runner.
    pub async fn call(&self, request: Request) -> Result<Answer, EngineError> {
        match request {
            Request::Read { read } => {
                let db = self.db.clone();
                let found = tokio::task::spawn_blocking(move || reads::answer(&db, read))
                    .await
                    .map_err(Refused::failed)?
                    .map_err(Refused::failed)?;
                Ok(Answer::Found(Box::new(found)))
            }
            Request::Fetch { file, offset, len } => {
                use base64::Engine as _;
                let (db, previewer) = (self.db.clone(), self.previewer.clone());
                let chunk =
                    tokio::task::spawn_blocking(move || reads::fetch(&db, previewer.as_ref(), &file, offset, len))
                        .await
                        .map_err(Refused::failed)?
                        .map_err(Refused::failed)?;
                let data = base64::engine::general_purpose::STANDARD.encode(&chunk.bytes);
                Ok(Answer::Chunk { total: chunk.total, data })
            }
            // One GET with the API's timeouts and size cap, never queued behind the runner's work.
            Request::Models => {
                let list = self.client.list_models().await.map_err(|e| Refused::failed(e.to_string()))?;
                Ok(Answer::Models(list))
            }
            Request::Status | Request::Stop { .. } => {
                Err(Refused::failed("this engine runs inside this command; it has no process to ask").into())
            }
            request => {
                let (reply, rx) = oneshot::channel();
                self.commands.send(Command::Call { request, reply }).map_err(|_| EngineError::Stopped)?;
                rx.await.map_err(|_| EngineError::Stopped)?
            }
        }
    }

    /// What the engine is working on.
    pub async fn activity(&self) -> Result<super::Activity, EngineError> {
        match self.call(Request::Activity).await? {
            Answer::Activity(a) => Ok(a),
            other => Err(EngineError::Unexpected(other.kind())),
        }
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
