//! `reel engine run|status|stop`: the data folder's engine process.

use std::io::{IsTerminal as _, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::CliError;
use super::output::{Output, note};
use reel_engine::config::Settings;
use reel_engine::service::{self, ServeOptions, Status};
use reel_engine::session::{self, Reach, SessionError};
use reel_engine::{EngineError, LocalEngine, now_ms};
use reel_rules::text;

#[derive(Debug, Args)]
pub struct EngineArgs {
    #[command(subcommand)]
    pub command: EngineCommand,
}

#[derive(Debug, Subcommand)]
pub enum EngineCommand {
    /// Run the engine in the foreground (for a systemd user unit); clients attach to it.
    Run(RunArgs),
    /// Show the running engine: pid, uptime, socket, clients, work in flight, the service's health.
    Status(StatusArgs),
    /// Stop the running engine; asks first when tasks are unfinished.
    Stop(StopArgs),
    /// Bridge standard input and output to this data folder's engine (starting it if needed):
    /// what `reel --engine ssh://…` runs on the host over SSH.
    Attach(AttachArgs),
}

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// Speak the engine's protocol on standard input and output (the only way there is).
    #[arg(long, required = true)]
    pub stdio: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Never exit when idle (by default the engine exits once no client has been attached for
    /// [engine] idle_exit_secs and nothing is unfinished, or its tasks only wait for a service
    /// unreachable for [engine] give_up_after_secs or for a status reel does not know).
    #[arg(long)]
    pub stay: bool,
    /// Started by another reel: an engine that already runs here is not an error.
    #[arg(long, hide = true)]
    pub spawned: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print the status as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StopArgs {
    /// Stop even with unfinished tasks (they resume when the engine next starts).
    #[arg(long)]
    pub force: bool,
}

pub async fn run(
    args: &EngineArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    match &args.command {
        EngineCommand::Run(a) => serve(a, settings).await,
        EngineCommand::Attach(_) => {
            let Reach::Service(launch) = reach else {
                return Err(CliError::Usage(
                    "`reel engine attach` bridges to this machine's engine process; it cannot be used with \
                     --no-service or --engine"
                        .into(),
                ));
            };
            let socket = service::socket_path(&settings.data_dir);
            std::fs::create_dir_all(&settings.data_dir).map_err(|source| {
                SessionError::from(service::ServiceError::DataFolder { path: settings.data_dir.clone(), source })
            })?;
            service::bridge(&socket, launch, &session::served(settings)?).await.map_err(SessionError::from)?;
            Ok(ExitCode::SUCCESS)
        }
        EngineCommand::Status(a) => status(a, settings, reach, out).await,
        EngineCommand::Stop(a) => stop(a, settings, reach, out).await,
    }
}

async fn serve(args: &RunArgs, settings: &Settings) -> Result<ExitCode, CliError> {
    restrict_new_files();
    let session = session::open(settings).await?;
    let started = LocalEngine::start(session.engine.clone(), session.client.clone(), session.store.clone()).await;
    let (engine, events) = match started {
        Ok(e) => e,
        // Another client started one at the same moment, and it won: use that one.
        Err(EngineError::Busy(_)) if args.spawned => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(SessionError::Engine(e).into()),
    };
    let grace = if args.stay {
        Duration::from_secs(u64::MAX / 4)
    } else {
        Duration::from_secs_f64(settings.engine.idle_exit_secs)
    };
    let opts = ServeOptions {
        socket: service::socket_path(&settings.data_dir),
        grace,
        give_up_after: Duration::from_secs_f64(settings.engine.give_up_after_secs),
        serves: session::served(settings)?,
        decides: session::decides(settings),
    };
    service::serve(opts, engine, events).await.map_err(SessionError::from)?;
    drop(session);
    Ok(ExitCode::SUCCESS)
}

/// Files the engine creates (its socket first) are for this user only.
#[cfg(unix)]
fn restrict_new_files() {
    // SAFETY: umask only sets this process's file mode mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

#[cfg(not(unix))]
fn restrict_new_files() {}

fn describe(s: &Status, now: i64) -> Vec<String> {
    let uptime = Duration::from_millis((now - s.started_at_ms).max(0) as u64);
    let mut lines = vec![
        format!("Engine {} (reel {}), up {}", s.pid, s.version, text::clock(uptime.as_secs() as i64)),
        format!("Socket    {}", s.socket),
        format!(
            "Serves    {}{}",
            s.serves.base_url.as_deref().unwrap_or("the demo simulator"),
            s.serves.profile.as_deref().map(|p| format!(" (profile {p})")).unwrap_or_default()
        ),
        format!("Clients   {}", s.clients.saturating_sub(1)),
        format!(
            "Work      {} unfinished, {} {} in flight, {} {}",
            s.unfinished,
            s.requests_in_flight,
            if s.requests_in_flight == 1 { "request" } else { "requests" },
            s.downloads,
            if s.downloads == 1 { "download" } else { "downloads" }
        ),
        format!("Service   {}", s.service.service_summary(now)),
    ];
    if let Some(disk) = &s.service.disk {
        // Above the service: it is why nothing moves.
        lines.insert(lines.len() - 1, format!("Writing   {}", disk.summary()));
    }
    if let Some(detail) = s.service.detail.as_deref().filter(|_| s.service.health != reel_engine::Health::Ok) {
        lines.push(format!("Because   {}", text::one_line(detail)));
    }
    lines
}

/// The engine to ask: this data folder's when it runs (`None` otherwise), or the one on another
/// machine (reached over SSH, which starts it there if none runs).
async fn running(
    settings: &Settings,
    reach: &Reach,
) -> Result<Option<(service::RemoteEngine, tokio::sync::mpsc::UnboundedReceiver<reel_engine::Event>)>, CliError> {
    Ok(match reach {
        Reach::Ssh(far) => Some(far.connect().await.map_err(SessionError::from)?),
        _ => service::attach_if_running(&service::socket_path(&settings.data_dir)).await.map_err(SessionError::from)?,
    })
}

async fn status(
    args: &StatusArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let socket = service::socket_path(&settings.data_dir);
    let Some((engine, _events)) = running(settings, reach).await? else {
        if args.json {
            out.json(&serde_json::json!({ "running": false, "socket": socket.display().to_string() }))?;
        } else {
            out.line(&format!("No engine is running for {}.", settings.data_dir.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let s = engine.status().await?;
    engine.detach().await;
    if args.json {
        out.json(&reel_engine::public::engine_status(&s))?;
    } else {
        for line in describe(&s, now_ms()) {
            out.line(&line)?;
        }
        // Over SSH the host's config decides; this machine's is not compared.
        if reach.far().is_none() {
            let differs = session::decides(settings).differences(&s.decides);
            if differs.is_empty() {
                out.line("Config    as this command's (the limits, prices and polling it decides by)")?;
            } else {
                out.line("Config    the one it started with, which differs from this command's:")?;
                for d in differs {
                    out.line(&format!("          {d}"))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn confirmed(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    let _ = write!(std::io::stderr(), "{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).is_ok() && matches!(answer.trim(), "y" | "Y" | "yes")
}

async fn stop(
    args: &StopArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let Some((engine, mut events)) = running(settings, reach).await? else {
        out.line(&format!("No engine is running for {}.", settings.data_dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    };
    match engine.stop(args.force).await {
        Ok(()) => {}
        Err(EngineError::Refused(why @ reel_engine::Refused::Unfinished { .. })) if !args.force => {
            let why = why.to_string();
            if !confirmed(&format!("reel: {why}. Stop anyway?")) {
                note(&why);
                engine.detach().await;
                return Ok(ExitCode::from(1));
            }
            engine.stop(true).await?;
        }
        Err(e) => return Err(e.into()),
    }
    // The connection closes when the engine has stopped.
    let _ = tokio::time::timeout(Duration::from_secs(10), async { while events.recv().await.is_some() {} }).await;
    engine.detach().await;
    out.line("Engine stopped.")?;
    Ok(ExitCode::SUCCESS)
}
