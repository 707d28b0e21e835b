//! The server's way to the data folder's engine: attached when a tool first needs it, like any
//! reel command, and attached again (which starts an engine when none runs) once the one it
//! had is gone, so a `wait` goes on from the journal after the engine process dies.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{Mutex, Notify};
use tokio::time::Instant;

use reel_engine::config::Settings;
use reel_engine::reader::Reader;
use reel_engine::session::{self, Reach, Session, SessionError};
use reel_engine::{Engine, EngineError};
use reel_store::TaskRecord;

/// An attached engine. Its events only wake waiters: what they wait for is read again with
/// [`Engine::tasks`], so no event can be missed in between.
pub struct Live {
    pub engine: Arc<Engine>,
    changed: Arc<Notify>,
    alive: Arc<AtomicBool>,
    /// The engine's session with `--no-service` (it lives as long as the engine).
    _session: Option<Session>,
}

impl Live {
    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }
}

pub struct Link {
    settings: Settings,
    reach: Reach,
    current: Mutex<Option<Arc<Live>>>,
}

impl Link {
    pub fn new(settings: Settings, reach: Reach) -> Link {
        Link { settings, reach, current: Mutex::new(None) }
    }

    /// The engine, attached again when the last one is gone.
    pub async fn engine(&self) -> Result<Arc<Live>, SessionError> {
        let mut current = self.current.lock().await;
        if let Some(live) = current.as_ref().filter(|l| l.is_alive()) {
            return Ok(live.clone());
        }
        let attached = session::attach(&self.settings, &self.reach).await?;
        let changed = Arc::new(Notify::new());
        let alive = Arc::new(AtomicBool::new(true));
        let mut events = attached.events;
        let (woken, flag) = (changed.clone(), alive.clone());
        tokio::spawn(async move {
            while events.recv().await.is_some() {
                woken.notify_waiters();
            }
            // The socket closed: the engine process is gone (or was told to stop).
            flag.store(false, Ordering::SeqCst);
            woken.notify_waiters();
        });
        let live = Arc::new(Live { engine: Arc::new(attached.engine), changed, alive, _session: attached.session });
        *current = Some(live.clone());
        Ok(live)
    }

    /// Where the journal is read: this machine's file, or through the engine when it is on
    /// another machine (then it is attached first).
    pub async fn reader(&self) -> Result<Reader, SessionError> {
        match self.reach.far() {
            Some(_) => Ok(Reader::Engine(self.engine().await?.engine.clone())),
            None => Ok(Reader::Store(session::db_path(&self.settings))),
        }
    }

    /// Forgets an engine that failed to answer: the next call attaches again.
    fn drop_engine(&self, live: &Live) {
        live.alive.store(false, Ordering::SeqCst);
    }

    /// Follows `ids` until every one has settled or `deadline` passes; `seen` is told each
    /// time the tasks change. An engine that dies meanwhile is replaced, and the tasks read
    /// again from its journal. Returns the tasks as they stand and whether all settled.
    pub async fn wait(
        &self,
        ids: &[i64],
        deadline: Instant,
        mut seen: impl FnMut(&[TaskRecord]) -> BoxFuture<'static, ()> + Send,
    ) -> Result<(Vec<TaskRecord>, bool), WaitError> {
        let mut last: Vec<TaskRecord> = Vec::new();
        let mut trouble: Option<String> = None;
        loop {
            let live = match self.engine().await {
                Ok(live) => Some(live),
                Err(e) => {
                    tracing::warn!(error = %e, "mcp wait: cannot attach to the engine; trying again");
                    trouble = Some(e.to_string());
                    None
                }
            };
            if let Some(live) = &live {
                // Registered before reading, so a change between the read and the sleep wakes it.
                let woken = live.changed.notified();
                tokio::pin!(woken);
                woken.as_mut().enable();
                match live.engine.tasks(ids.to_vec()).await {
                    Ok(records) => {
                        trouble = None;
                        if let Some(missing) = ids.iter().find(|id| !records.iter().any(|r| r.id == **id)) {
                            return Err(WaitError::Engine(EngineError::from(reel_engine::Refused::NoTask {
                                id: *missing,
                            })));
                        }
                        if records != last {
                            seen(&records).await;
                            last = records;
                        }
                        if last.iter().all(|r| r.state.is_settled()) {
                            return Ok((last, true));
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "mcp wait: the engine did not answer; attaching again");
                        trouble = Some(e.to_string());
                        self.drop_engine(live);
                    }
                }
                if Instant::now() >= deadline {
                    return timed_out(last, trouble);
                }
                // Events wake it; the second bounds a change the engine does not announce.
                let pause = if trouble.is_some() { Duration::from_millis(200) } else { Duration::from_secs(1) };
                tokio::select! {
                    _ = woken => {}
                    _ = tokio::time::sleep(pause) => {}
                    _ = tokio::time::sleep_until(deadline) => {}
                }
            } else {
                if Instant::now() >= deadline {
                    return timed_out(last, trouble);
                }
                tokio::time::sleep(Duration::from_millis(200).min(deadline - Instant::now())).await;
            }
        }
    }
}

fn timed_out(last: Vec<TaskRecord>, trouble: Option<String>) -> Result<(Vec<TaskRecord>, bool), WaitError> {
    match (last.is_empty(), trouble) {
        (true, Some(why)) => Err(WaitError::Unreachable(why)),
        _ => Ok((last, false)),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("the engine could not be reached before the timeout: {0}")]
    Unreachable(String),
}
