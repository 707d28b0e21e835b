//! A client's side of the socket: requests with their replies, and the engine's events as the
//! same `Event` stream an engine in this process gives.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};

use super::ServiceError;
use super::protocol::{self, Answer, FromEngine, MAX_ANSWER, MAX_LINE, PROTOCOL, Request, Status, ToEngine};
use crate::{EngineError, Event, Refused};

/// Requests waiting for their replies, and whether the connection has closed (after which no
/// request may wait: nothing would ever answer it).
#[derive(Default)]
struct Waiting {
    replies: HashMap<u64, oneshot::Sender<Result<Answer, Refused>>>,
    closed: bool,
}

type Pending = Arc<Mutex<Waiting>>;

pub struct RemoteEngine {
    /// Encoded messages, one line each.
    outgoing: mpsc::UnboundedSender<String>,
    pending: Pending,
    seq: AtomicU64,
    welcome: Status,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
    /// The SSH link, when the engine is on another machine (its `ssh` ends with this).
    far: Option<Far>,
}

/// The way to an engine on another machine: the `ssh` process that carries the connection.
pub(super) struct Far {
    /// `user@host:port`, as the user wrote it.
    pub label: String,
    /// Killed when the connection is dropped.
    pub _ssh: tokio::process::Child,
}

/// How a connection reached its engine, for what is said when it ends.
pub(super) enum Way {
    Socket(PathBuf),
    Ssh(Far),
}

impl Way {
    fn name(&self) -> String {
        match self {
            Way::Socket(p) => p.display().to_string(),
            Way::Ssh(far) => format!("ssh://{}", far.label),
        }
    }
}

/// Why a hello got no answer.
#[derive(Debug)]
pub(super) enum HandshakeError {
    /// The other end closed before it answered.
    Closed,
    Io(std::io::Error),
    Protocol(String),
}

/// Why the engine turned a client away.
pub(super) enum Hello {
    Attached(Box<RemoteEngine>, mpsc::UnboundedReceiver<Event>),
    /// It is of another version; `replaceable` when it exits now for a new one.
    Refused {
        reason: String,
        replaceable: bool,
    },
}

#[cfg(unix)]
async fn open(
    path: &Path,
) -> Result<(Box<dyn AsyncRead + Send + Unpin>, Box<dyn AsyncWrite + Send + Unpin>), ServiceError> {
    use std::io::ErrorKind;
    match tokio::net::UnixStream::connect(path).await {
        Ok(stream) => {
            let (r, w) = stream.into_split();
            Ok((Box::new(r), Box::new(w)))
        }
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
            Err(ServiceError::NotRunning(path.to_path_buf()))
        }
        Err(source) => Err(ServiceError::Io { path: path.to_path_buf(), source }),
    }
}

#[cfg(not(unix))]
async fn open(
    _: &Path,
) -> Result<(Box<dyn AsyncRead + Send + Unpin>, Box<dyn AsyncWrite + Send + Unpin>), ServiceError> {
    Err(ServiceError::Unsupported)
}

/// An engine's first line that is not this reel's welcome, read as far as any reel's can be:
/// who it is, so that a refusal names both versions.
fn other_hello(line: &str) -> Option<Hello> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    match value.get("type")?.as_str()? {
        "welcome" => {
            let protocol = value.get("protocol")?.as_u64()?;
            let version = value.pointer("/status/version").and_then(|v| v.as_str()).unwrap_or("unknown");
            let reason = format!(
                "it is reel {version} (protocol {protocol}) and this reel is {} (protocol {PROTOCOL}); \
                 use the same version of reel on both sides",
                env!("CARGO_PKG_VERSION")
            );
            Some(Hello::Refused { reason, replaceable: false })
        }
        "refused" => Some(Hello::Refused {
            reason: value.get("reason")?.as_str()?.to_string(),
            replaceable: value.get("replaceable").and_then(|r| r.as_bool()).unwrap_or(false),
        }),
        _ => None,
    }
}

impl RemoteEngine {
    /// Connects to the engine at `socket` and says hello.
    pub(super) async fn connect(socket: &Path) -> Result<Hello, ServiceError> {
        let (read, write) = open(socket).await?;
        RemoteEngine::handshake(read, write, Way::Socket(socket.to_path_buf())).await.map_err(|e| match e {
            HandshakeError::Closed => ServiceError::NotRunning(socket.to_path_buf()),
            HandshakeError::Io(source) => ServiceError::Io { path: socket.to_path_buf(), source },
            HandshakeError::Protocol(why) => ServiceError::Protocol(why),
        })
    }

    /// Says hello over a connection opened `way`, and reads the engine's answer.
    pub(super) async fn handshake(
        read: Box<dyn AsyncRead + Send + Unpin>,
        write: Box<dyn AsyncWrite + Send + Unpin>,
        way: Way,
    ) -> Result<Hello, HandshakeError> {
        use std::io::ErrorKind;
        use tokio_util::codec::LinesCodecError;
        let mut lines = FramedRead::new(read, LinesCodec::new_with_max_length(MAX_ANSWER));
        let mut sink = FramedWrite::new(write, LinesCodec::new_with_max_length(MAX_LINE));
        let hello = ToEngine::Hello { protocol: PROTOCOL, version: env!("CARGO_PKG_VERSION").to_string() };
        let line = protocol::encode(&hello).map_err(|e| HandshakeError::Protocol(e.to_string()))?;
        sink.send(line).await.map_err(|e| match e {
            LinesCodecError::Io(e) if matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => {
                HandshakeError::Closed
            }
            LinesCodecError::Io(e) => HandshakeError::Io(e),
            other => HandshakeError::Protocol(other.to_string()),
        })?;
        let first = match lines.next().await {
            Some(Ok(line)) => line,
            // An engine that closes the connection while saying hello is on its way out.
            Some(Err(LinesCodecError::Io(e)))
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset | ErrorKind::BrokenPipe | ErrorKind::UnexpectedEof
                ) =>
            {
                return Err(HandshakeError::Closed);
            }
            Some(Err(e)) => return Err(HandshakeError::Protocol(e.to_string())),
            None => return Err(HandshakeError::Closed),
        };
        let welcome = match protocol::decode::<FromEngine>(&first) {
            Ok(FromEngine::Welcome { protocol, status }) if protocol == PROTOCOL => *status,
            Ok(FromEngine::Refused { reason, replaceable }) => return Ok(Hello::Refused { reason, replaceable }),
            decoded => match other_hello(&first) {
                Some(refused) => return Ok(refused),
                None => {
                    let what = decoded.map(|m| format!("{m:?}")).unwrap_or_else(|e| e.to_string());
                    return Err(HandshakeError::Protocol(format!("expected a welcome, got {what}")));
                }
            },
        };

        let pending: Pending = Arc::default();
        let (events_tx, events) = mpsc::unbounded_channel();
        let (name, far) = match way {
            Way::Ssh(far) => (format!("ssh://{}", far.label), Some(far)),
            socket => (socket.name(), None),
        };
        let reader = tokio::spawn(read_loop(lines, pending.clone(), events_tx, name, far.is_some()));
        let (outgoing, mut queue) = mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            while let Some(line) = queue.recv().await {
                if sink.send(line).await.is_err() {
                    break;
                }
            }
        });
        let engine = RemoteEngine { outgoing, pending, seq: AtomicU64::new(1), welcome, reader, writer, far };
        Ok(Hello::Attached(Box::new(engine), events))
    }

    /// What the engine said when this client attached.
    pub fn welcome(&self) -> &Status {
        &self.welcome
    }

    /// `user@host:port` of the machine the engine runs on, when that is another one (over
    /// SSH): then its journal and files are read through it.
    pub fn far(&self) -> Option<&str> {
        self.far.as_ref().map(|f| f.label.as_str())
    }

    /// Any operation of the engine's API; a refusal comes back as the kind it was.
    pub async fn call(&self, request: Request) -> Result<Answer, EngineError> {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let line = protocol::encode(&ToEngine::Request { seq, request }).map_err(crate::Refused::failed)?;
        // Past what one message may carry the engine would drop the connection: refused here,
        // by name, with nothing journaled.
        if line.len() > MAX_LINE {
            let limit = crate::admission::Limit::TooLarge { bytes: line.len() as u64, max: MAX_LINE as u64 };
            return Err(crate::Refused::Limit(limit).into());
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if waiting.closed {
                return Err(EngineError::Stopped);
            }
            waiting.replies.insert(seq, tx);
        }
        self.outgoing.send(line).map_err(|_| EngineError::Stopped)?;
        Ok(rx.await.map_err(|_| EngineError::Stopped)??)
    }

    /// A request whose answer is only that it was done.
    async fn done(&self, request: Request) -> Result<(), EngineError> {
        match self.call(request).await? {
            Answer::Done => Ok(()),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    pub async fn status(&self) -> Result<Status, EngineError> {
        match self.call(Request::Status).await? {
            Answer::Status(s) => Ok(*s),
            other => Err(EngineError::Unexpected(other.kind())),
        }
    }

    /// Asks the engine to stop; without `force` it refuses while tasks are unfinished.
    pub async fn stop(&self, force: bool) -> Result<(), EngineError> {
        match self.done(Request::Stop { force }).await {
            // It may stop before its answer leaves: gone is what was asked for.
            Err(EngineError::Stopped) => Ok(()),
            other => other,
        }
    }

    /// Leaves the engine working; pending requests are answered before the connection closes.
    pub async fn detach(self) {
        drop(self.outgoing);
        let _ = self.writer.await;
        self.reader.abort();
    }
}

async fn read_loop(
    mut lines: FramedRead<Box<dyn AsyncRead + Send + Unpin>, LinesCodec>,
    pending: Pending,
    events: mpsc::UnboundedSender<Event>,
    way: String,
    far: bool,
) {
    let mut stopping = false;
    while let Some(Ok(line)) = lines.next().await {
        match protocol::decode::<FromEngine>(&line) {
            Ok(FromEngine::Reply { seq, result }) => {
                if let Some(tx) = pending.lock().unwrap_or_else(|e| e.into_inner()).replies.remove(&seq) {
                    let _ = tx.send(result);
                }
            }
            Ok(FromEngine::Event { event }) => {
                let _ = events.send(event);
            }
            Ok(FromEngine::Lagged) => {
                tracing::warn!("engine events were dropped for this client; it reads the tasks again");
                let _ = events.send(Event::Missed);
            }
            Ok(FromEngine::Stopping) => stopping = true,
            Ok(other) => tracing::warn!(message = ?other, "unexpected message from the engine"),
            Err(e) => tracing::warn!(error = %e, "unreadable message from the engine"),
        }
    }
    if !stopping {
        tracing::warn!(way = %way, "the engine process went away");
        let said = if far {
            format!("the link to the engine at {way} dropped; the engine there goes on, and nothing is lost")
        } else {
            "the engine process stopped; nothing is lost, and the next reel command starts it again".into()
        };
        let _ = events.send(Event::Trouble(said));
    }
    // Requests still waiting learn that the engine is gone, and later ones are refused at once.
    let mut waiting = pending.lock().unwrap_or_else(|e| e.into_inner());
    waiting.closed = true;
    waiting.replies.clear();
}
