//! Reaching the data folder's engine: attach to the running one, or start one, detached from
//! the terminal, and wait until it answers. Two clients starting one at the same moment end with
//! exactly one: the engine process takes the data folder's lock before it listens, and the
//! loser exits.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::sync::mpsc;

use super::ServiceError;
use super::client::{Hello, RemoteEngine};
use super::protocol::Served;
use crate::Event;

/// How to start an engine process: this program, with the arguments that select the same
/// config and profile, its output appended to `log`.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub exe: PathBuf,
    pub args: Vec<OsString>,
    /// Set on top of this process's environment (which the engine inherits).
    pub env: Vec<(OsString, OsString)>,
    pub log: PathBuf,
}

/// How long a new engine may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(20);
const RESPAWN_GAP: Duration = Duration::from_millis(250);

fn start(launch: &Launch) -> Result<std::process::Child, ServiceError> {
    let spawn_error = |source| ServiceError::Spawn { exe: launch.exe.clone(), source };
    if let Some(dir) = launch.log.parent() {
        std::fs::create_dir_all(dir).map_err(spawn_error)?;
    }
    let log = std::fs::OpenOptions::new().create(true).append(true).open(&launch.log).map_err(spawn_error)?;
    let log2 = log.try_clone().map_err(spawn_error)?;
    let mut command = std::process::Command::new(&launch.exe);
    command
        .args(&launch.args)
        .envs(launch.env.iter().cloned())
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(log2);
    detach(&mut command);
    tracing::info!(exe = %launch.exe.display(), "starting the engine process");
    command.spawn().map_err(spawn_error)
}

/// A session of its own: no controlling terminal, so closing the terminal or Ctrl-C there
/// never reaches the engine.
#[cfg(unix)]
fn detach(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setsid is async-signal-safe and the closure touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn detach(_: &mut std::process::Command) {}

/// Attaches to the engine on `socket`, starting one with `launch` when none answers (or when an
/// idle one of another version steps aside). The engine must serve what `serves` says.
pub async fn connect_or_start(
    socket: &Path,
    launch: &Launch,
    serves: &Served,
) -> Result<(RemoteEngine, mpsc::UnboundedReceiver<Event>), ServiceError> {
    let deadline = Instant::now() + START_TIMEOUT;
    let mut child: Option<std::process::Child> = None;
    let mut last_start: Option<Instant> = None;
    loop {
        match RemoteEngine::connect(socket).await {
            Ok(Hello::Attached(engine, events)) => {
                let Some(difference) = serves.difference(&engine.welcome().serves) else {
                    reap(&mut child);
                    return Ok((*engine, events));
                };
                if key_replaces(serves, engine.welcome()) {
                    // Its key is refused, so it can send nothing: its tasks wait in the journal
                    // and go with the key this reel brings (downloads resume where they were).
                    let stopped = engine.stop(true).await.is_ok();
                    engine.detach().await;
                    if !stopped {
                        return Err(ServiceError::Mismatch(difference));
                    }
                    tracing::info!("replacing an engine whose API key the service refused");
                    wait_gone(socket).await;
                    continue;
                }
                // An idle engine that serves another target, with nobody else attached, steps
                // aside; one with work or other clients is never switched under them. A client
                // that has just finished may still count for a moment: allow it to leave.
                let mut busy = None;
                for _ in 0..25 {
                    let status = engine.status().await.map_err(|e| ServiceError::Protocol(e.to_string()))?;
                    busy = Busy::of(&status);
                    if !matches!(busy, Some(Busy::Clients(_))) {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(40)).await;
                }
                let stopped = busy.is_none() && engine.stop(false).await.is_ok();
                engine.detach().await;
                if !stopped {
                    let why = busy.map(|b| b.to_string()).unwrap_or_default();
                    return Err(ServiceError::Mismatch(format!("{difference} ({why})")));
                }
                tracing::info!(%difference, "replacing an idle engine that served another target");
                wait_gone(socket).await;
            }
            Ok(Hello::Refused { reason, replaceable: false }) => return Err(ServiceError::Refused(reason)),
            Ok(Hello::Refused { replaceable: true, reason }) => {
                tracing::info!(%reason, "replacing an idle engine of another version");
                wait_gone(socket).await;
            }
            Err(ServiceError::NotRunning(_)) => {
                // Start one, or another if the one started has exited (it lost the race for the
                // lock to an engine that is about to answer, or it failed: see its log).
                // (Not more often than every quarter second: an engine that is stopping still
                // holds the folder's lock for a moment.)
                let exited = child.as_mut().is_none_or(|c| c.try_wait().ok().flatten().is_some());
                if exited && last_start.is_none_or(|t| t.elapsed() >= RESPAWN_GAP) {
                    child = Some(start(launch)?);
                    last_start = Some(Instant::now());
                }
            }
            Err(e) => return Err(e),
        }
        if Instant::now() >= deadline {
            return Err(ServiceError::NoAnswer(START_TIMEOUT.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// Why a running engine that serves another target is kept rather than replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
enum Busy {
    /// Other clients are attached (one that has just finished may still be leaving).
    #[error("{} other {} attached", .0, if *.0 == 1 { "client is" } else { "clients are" })]
    Clients(usize),
    /// It has tasks to finish.
    #[error("it has {} unfinished {}", .0, if *.0 == 1 { "task" } else { "tasks" })]
    Tasks(usize),
}

impl Busy {
    /// Why the engine that answered `status` to this client cannot be replaced, if it can't.
    fn of(status: &super::Status) -> Option<Busy> {
        match (status.unfinished, status.clients.saturating_sub(1)) {
            (0, 0) => None,
            (0, others) => Some(Busy::Clients(others)),
            (tasks, _) => Some(Busy::Tasks(tasks)),
        }
    }
}

/// Whether a reel that would serve `serves` replaces the running engine: it serves the same
/// profile and service with another key, and the service refused the engine's key.
fn key_replaces(serves: &Served, running: &super::Status) -> bool {
    let theirs = &running.serves;
    running.service.refuses_sends()
        && serves.profile == theirs.profile
        && serves.base_url == theirs.base_url
        && serves.key_id != theirs.key_id
}

/// Waits (a few seconds at most) for a stopping engine to remove its socket.
async fn wait_gone(socket: &Path) {
    let until = Instant::now() + Duration::from_secs(5);
    while socket.exists() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Collects an engine process that has already exited, so it does not linger as a zombie.
fn reap(child: &mut Option<std::process::Child>) {
    if let Some(c) = child.as_mut() {
        let _ = c.try_wait();
    }
}

/// Attaches to the engine on `socket` if one runs; never starts one.
pub async fn attach_if_running(
    socket: &Path,
) -> Result<Option<(RemoteEngine, mpsc::UnboundedReceiver<Event>)>, ServiceError> {
    match RemoteEngine::connect(socket).await {
        Ok(Hello::Attached(engine, events)) => Ok(Some((*engine, events))),
        Ok(Hello::Refused { reason, .. }) => Err(ServiceError::Refused(reason)),
        Err(ServiceError::NotRunning(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Health, ServiceState};

    fn serves(key: &str) -> Served {
        Served { profile: None, base_url: Some("https://a/".into()), key_id: Some(key.into()) }
    }

    fn running(key: &str, health: Health) -> super::super::Status {
        super::super::Status {
            pid: 1,
            version: "0".into(),
            started_at_ms: 0,
            socket: "s".into(),
            clients: 1,
            unfinished: 3,
            requests_in_flight: 0,
            downloads: 0,
            service: ServiceState { health, ..ServiceState::default() },
            serves: serves(key),
            decides: Default::default(),
        }
    }

    #[test]
    fn an_engine_with_work_or_other_clients_is_kept_and_says_why() {
        // (clients attached, this one included; unfinished tasks) → why it is kept
        let cases = [
            (1, 0, None),
            (0, 0, None),
            (2, 0, Some("1 other client is attached")),
            (4, 0, Some("3 other clients are attached")),
            (1, 1, Some("it has 1 unfinished task")),
            (3, 5, Some("it has 5 unfinished tasks")),
        ];
        for (clients, unfinished, want) in cases {
            let status = super::super::Status { clients, unfinished, ..running("k", Health::Ok) };
            let busy = Busy::of(&status);
            assert_eq!(busy.map(|b| b.to_string()).as_deref(), want, "{clients} clients, {unfinished} tasks");
        }
        let waits_for_leaving_clients = |clients, unfinished| {
            let status = super::super::Status { clients, unfinished, ..running("k", Health::Ok) };
            matches!(Busy::of(&status), Some(Busy::Clients(_)))
        };
        assert!(waits_for_leaving_clients(2, 0));
        assert!(!waits_for_leaving_clients(2, 1), "tasks do not leave: it is kept at once");
    }

    #[test]
    fn only_an_engine_whose_key_is_refused_is_replaced_by_another_key() {
        let cases = [
            ("refused, another key", serves("k2"), running("k1", Health::KeyRefused), true),
            ("refused, the same key", serves("k1"), running("k1", Health::KeyRefused), false),
            ("working, another key", serves("k2"), running("k1", Health::Ok), false),
            ("unreachable, another key", serves("k2"), running("k1", Health::Unreachable), false),
            (
                "refused, another service",
                Served { base_url: Some("https://b/".into()), ..serves("k2") },
                running("k1", Health::KeyRefused),
                false,
            ),
        ];
        for (name, wanted, engine, replaced) in cases {
            assert_eq!(key_replaces(&wanted, &engine), replaced, "{name}");
        }
    }
}
