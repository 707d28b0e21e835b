//! The engine process's side of the socket: one connection per client, every event to every
//! client, requests passed to the engine, and the decision to exit when idle.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::sync::{Notify, broadcast, mpsc, watch};
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};

use super::ServiceError;
use super::protocol::{self, Answer, FromEngine, MAX_LINE, PROTOCOL, Request, Served, Status, ToEngine};
use crate::{EngineError, Event, LocalEngine, Refused, now_ms};

pub struct ServeOptions {
    pub socket: PathBuf,
    /// How long the engine stays once no client is attached and it is idle (`idle::idle`).
    pub grace: Duration,
    /// How long a service that cannot be reached is waited for before tasks that only wait for
    /// it no longer keep the engine.
    pub give_up_after: Duration,
    pub serves: Served,
    /// The settings this engine decides by, for clients to compare with their config.
    pub decides: super::protocol::Decides,
}

struct Shared {
    engine: LocalEngine,
    opts: ServeOptions,
    clients: AtomicUsize,
    started_at_ms: i64,
    events: broadcast::Sender<Event>,
    stop: Notify,
    stopping: watch::Sender<bool>,
}

impl Shared {
    async fn status(&self) -> Result<Status, EngineError> {
        let a = self.engine.activity().await?;
        Ok(Status {
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            started_at_ms: self.started_at_ms,
            socket: self.opts.socket.display().to_string(),
            clients: self.clients.load(Ordering::Relaxed),
            unfinished: a.unfinished,
            requests_in_flight: a.requests_in_flight,
            downloads: a.downloads,
            service: a.service,
            serves: self.opts.serves.clone(),
            decides: self.opts.decides.clone(),
        })
    }

    /// A client's call: the process's own questions here, everything else by the engine, the
    /// same handler a client in the engine's process uses.
    async fn handle(&self, request: Request) -> Result<Answer, Refused> {
        match request {
            Request::Status => Ok(Answer::Status(Box::new(self.status().await.map_err(EngineError::refusal)?))),
            Request::Stop { force } => {
                let unfinished = self.engine.activity().await.map_err(EngineError::refusal)?.unfinished;
                if unfinished > 0 && !force {
                    return Err(Refused::Unfinished { unfinished });
                }
                tracing::info!(force, unfinished, "stop requested");
                self.stop.notify_one();
                Ok(Answer::Done)
            }
            request => self.engine.call(request).await.map_err(EngineError::refusal),
        }
    }
}

#[cfg(unix)]
fn bind(socket: &std::path::Path) -> Result<tokio::net::UnixListener, ServiceError> {
    use std::os::unix::fs::PermissionsExt as _;
    let io = |source| ServiceError::Io { path: socket.to_path_buf(), source };
    // The caller holds the data folder's lock: a socket file left here is a dead engine's.
    match std::fs::remove_file(socket) {
        Ok(()) => tracing::info!(socket = %socket.display(), "replaced a stale engine socket"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let listener = tokio::net::UnixListener::bind(socket).map_err(io)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    Ok(listener)
}

/// Serves `engine` on the socket until it is told to stop, or it has been idle (no client, and
/// nothing unfinished or nothing it can progress) for the grace period.
#[cfg(unix)]
pub async fn serve(
    opts: ServeOptions,
    engine: LocalEngine,
    mut events: mpsc::UnboundedReceiver<Event>,
) -> Result<(), ServiceError> {
    let listener = bind(&opts.socket)?;
    let (events_tx, _) = broadcast::channel(4096);
    let (stopping, _) = watch::channel(false);
    let shared = Arc::new(Shared {
        engine,
        opts,
        clients: AtomicUsize::new(0),
        started_at_ms: now_ms(),
        events: events_tx,
        stop: Notify::new(),
        stopping,
    });
    tracing::info!(socket = %shared.opts.socket.display(), pid = std::process::id(), "engine serving");
    let forward = {
        let shared = shared.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                let _ = shared.events.send(event);
            }
        })
    };
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut idle_since: Option<Instant> = None;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|source| ServiceError::Io { path: shared.opts.socket.clone(), source })?;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, shared.clone()));
                }
                Err(e) => tracing::warn!(error = %e, "accept failed"),
            },
            () = shared.stop.notified() => break,
            _ = terminate.recv() => {
                tracing::info!("terminated by a signal");
                break;
            }
            _ = tokio::signal::ctrl_c() => break,
            _ = tick.tick() => {
                // Nothing can reach an engine whose socket is gone (its data folder deleted, as
                // test folders are): its work resumes with the next engine from the journal.
                if !shared.opts.socket.exists() {
                    tracing::warn!(socket = %shared.opts.socket.display(), "the engine's socket is gone; exiting");
                    break;
                }
                let clients = shared.clients.load(Ordering::Relaxed);
                let idle = shared.engine.activity().await.ok().and_then(|a| {
                    super::idle::idle(clients, &a, shared.opts.give_up_after, now_ms())
                });
                match idle {
                    None => idle_since = None,
                    Some(why) if idle_since.get_or_insert_with(Instant::now).elapsed() >= shared.opts.grace => {
                        tracing::info!(%why, "idle: the engine exits");
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }
    let _ = shared.stopping.send(true);
    let _ = std::fs::remove_file(&shared.opts.socket);
    forward.abort();
    // Give connections a moment to say goodbye, then stop the engine itself.
    tokio::time::sleep(Duration::from_millis(50)).await;
    shared.engine.request_shutdown();
    shared.engine.stopped().await;
    tracing::info!("engine process exits");
    Ok(())
}

#[cfg(not(unix))]
pub async fn serve(
    _opts: ServeOptions,
    _engine: LocalEngine,
    _events: mpsc::UnboundedReceiver<Event>,
) -> Result<(), ServiceError> {
    Err(ServiceError::Unsupported)
}

/// Counts a client while its connection lives.
struct Attached(Arc<Shared>);

impl Drop for Attached {
    fn drop(&mut self) {
        self.0.clients.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(unix)]
async fn connection(stream: tokio::net::UnixStream, shared: Arc<Shared>) {
    // Same user only (the socket's mode says so too; this holds even if the mode is changed).
    let same_user = stream.peer_cred().is_ok_and(|c| c.uid() == current_uid());
    if !same_user {
        tracing::warn!("refused a connection from another user");
        return;
    }
    shared.clients.fetch_add(1, Ordering::Relaxed);
    let _attached = Attached(shared.clone());
    let (read, write) = stream.into_split();
    let mut lines = FramedRead::new(read, LinesCodec::new_with_max_length(MAX_LINE));
    let mut sink = FramedWrite::new(write, LinesCodec::new_with_max_length(super::protocol::MAX_ANSWER));
    let send = |m: &FromEngine| protocol::encode(m).unwrap_or_default();

    let version = env!("CARGO_PKG_VERSION");
    match lines.next().await {
        Some(Ok(line)) => match protocol::decode::<ToEngine>(&line) {
            Ok(ToEngine::Hello { protocol, version: theirs }) if protocol == PROTOCOL && theirs == version => {}
            Ok(ToEngine::Hello { version: theirs, .. }) => {
                let idle = shared.engine.activity().await.is_ok_and(|a| a.unfinished == 0);
                let reason = if idle {
                    format!("it is reel {version} and this reel {theirs}; it stops so that a new one can start")
                } else {
                    format!(
                        "it is reel {version} and this reel {theirs}, and it has unfinished tasks; it exits when they \
                         are done, or stop it with `reel engine stop`"
                    )
                };
                let _ = sink.send(send(&FromEngine::Refused { reason, replaceable: idle })).await;
                if idle {
                    shared.stop.notify_one();
                }
                return;
            }
            _ => return,
        },
        _ => return,
    }
    let status = match shared.status().await {
        Ok(s) => s,
        Err(_) => return,
    };
    if sink.send(send(&FromEngine::Welcome { protocol: PROTOCOL, status: Box::new(status) })).await.is_err() {
        return;
    }

    let (replies, mut replies_rx) = mpsc::unbounded_channel::<FromEngine>();
    let mut events = shared.events.subscribe();
    let mut stopping = shared.stopping.subscribe();
    let writer = tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                reply = replies_rx.recv() => match reply {
                    Some(r) => r,
                    None => break,
                },
                event = events.recv() => match event {
                    Ok(event) => FromEngine::Event { event },
                    Err(broadcast::error::RecvError::Lagged(_)) => FromEngine::Lagged,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = stopping.changed() => {
                    let _ = sink.send(send(&FromEngine::Stopping)).await;
                    break;
                }
            };
            if sink.send(send(&message)).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(line)) = lines.next().await {
        match protocol::decode::<ToEngine>(&line) {
            Ok(ToEngine::Request { seq, request }) => {
                let (shared, replies) = (shared.clone(), replies.clone());
                tokio::spawn(async move {
                    let result = shared.handle(request).await;
                    let _ = replies.send(FromEngine::Reply { seq, result });
                });
            }
            Ok(ToEngine::Hello { .. }) => {}
            Err(e) => tracing::warn!(error = %e, "unreadable request from a client"),
        }
    }
    // The client is gone: what it asked is done by the engine anyway; its answers are not.
    writer.abort();
}

/// This process's user id.
#[cfg(unix)]
fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions, cannot fail and touches no memory of ours.
    unsafe { libc::getuid() }
}
