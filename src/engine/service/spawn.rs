//! Reaching the data folder's engine: attach to the running one, or start one, detached from
//! the terminal, and wait until it answers. Two clients starting one at the same moment end with
//! exactly one: the engine process takes the data folder's lock before it listens, and the
//! loser exits.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::ServiceError;
use super::client::{Hello, RemoteEngine};
use super::protocol::Served;
use crate::engine::Event;

/// How to start an engine process: this program, with the arguments that select the same
/// config and profile, its output appended to `log`.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub exe: PathBuf,
    pub args: Vec<OsString>,
    pub log: PathBuf,
}

/// How long a new engine may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(20);

fn start(launch: &Launch) -> Result<std::process::Child, ServiceError> {
    let spawn_error = |source| ServiceError::Spawn { exe: launch.exe.clone(), source };
    if let Some(dir) = launch.log.parent() {
        std::fs::create_dir_all(dir).map_err(spawn_error)?;
    }
    let log = std::fs::OpenOptions::new().create(true).append(true).open(&launch.log).map_err(spawn_error)?;
    let log2 = log.try_clone().map_err(spawn_error)?;
    let mut command = std::process::Command::new(&launch.exe);
    command.args(&launch.args).stdin(std::process::Stdio::null()).stdout(log).stderr(log2);
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
    loop {
        match RemoteEngine::connect(socket).await {
            Ok(Hello::Attached(engine, events)) => {
                if let Some(difference) = serves.difference(&engine.welcome().serves) {
                    engine.detach().await;
                    return Err(ServiceError::Mismatch(difference));
                }
                reap(&mut child);
                return Ok((*engine, events));
            }
            Ok(Hello::Refused { reason, replaceable: false }) => return Err(ServiceError::Refused(reason)),
            Ok(Hello::Refused { replaceable: true, reason }) => {
                tracing::info!(%reason, "replacing an idle engine of another version");
            }
            Err(ServiceError::NotRunning(_)) => {
                // Start one, or another if the one started has exited (it lost the race for the
                // lock to an engine that is about to answer, or it failed: see its log).
                let exited = child.as_mut().is_none_or(|c| c.try_wait().ok().flatten().is_some());
                if exited {
                    child = Some(start(launch)?);
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

/// Collects an engine process that has already exited, so it does not linger as a zombie.
fn reap(child: &mut Option<std::process::Child>) {
    if let Some(c) = child.as_mut() {
        let _ = c.try_wait();
    }
}
