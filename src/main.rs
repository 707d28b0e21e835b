//! reel: a terminal dashboard for asynchronous video-generation APIs.
//!
//! The crates, bottom up (each uses only those above it in this list):
//! - `reel-rules`  the spec's rules, pure: model ids, catalog, validation, billing; batch files; safe text
//! - `reel-api`    the HTTP API: wire types and body forms, client, downloads, errors
//! - `reel-store`  the SQLite journal: schema, task rows, events, history, the writer thread
//! - `reel-sim`    the embedded simulator of the API: a real HTTP server on loopback
//! - `reel-engine` the engine (journal, poll scheduler, downloads, recovery, its service and
//!   client), config, media, previews, the JSON of tasks, logging, the session wiring
//! - `reel-tui`    the dashboard: state, update, view, keymap, event loop
//! - `reel-mcp`    `reel mcp`: the engine offered to agents over MCP
//! - `reel-cli`    the headless commands: arguments and one module per subcommand
//! - this binary: reads the config, finds the engine, runs a command or the dashboard

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use reel_cli as cli;
use reel_cli::engine::EngineCommand;
use reel_cli::output::note;
use reel_cli::{Cli, Command};
use reel_engine::service::Launch;
use reel_engine::service::ssh::{SshReach, SshTarget};
use reel_engine::session::Reach;
use reel_engine::{config, logging};
use reel_tui::keymap;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            note(&cli::report(e.as_ref()));
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut settings = config::load(cli.config.as_deref(), cli.profile.as_deref())?;
    if let Some(dir) = &cli.data_dir {
        settings.data_dir = home_relative(dir, settings.home.as_deref());
    }
    if let Some(url) = &cli.engine {
        settings.engine_url = Some(url.clone());
    }
    // Every command refuses a mistake in `[keys]` or `[[actions]]`, not only the dashboard.
    keymap::check_config(&settings)?;
    for warning in &settings.warnings {
        note(&format!("warning: {warning}"));
    }
    // The dashboard owns the terminal: its log goes to the file only.
    let mirror = cli.verbose && cli.command.is_some();
    let _log = logging::init(&settings.data_dir, settings.log_filter.as_deref(), mirror)
        .inspect_err(|e| note(&format!("warning: no log file: {e}")))
        .ok();
    let reach = reach(&cli, &settings)?;
    match cli.command {
        Some(command) => Ok(cli::run(command, &settings, &reach).await?),
        // Without a terminal the dashboard could only write escape codes into a pipe or file.
        None if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) => {
            note(NO_TERMINAL);
            Ok(ExitCode::from(2))
        }
        None => reel_tui::event_loop::run(settings, reach).await,
    }
}

const NO_TERMINAL: &str = "the dashboard needs a terminal, and standard input or output is not one; \
     without a terminal use the headless commands: `reel submit --model M --prompt P --wait`, \
     `reel list`, `reel show ID`, `reel wait --all`, `reel history export --format csv` (`reel --help` lists them all)";

/// `~/x` in the home folder (a data folder given over SSH is often given so).
fn home_relative(dir: &Path, home: Option<&Path>) -> PathBuf {
    match (dir.strip_prefix("~"), home) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => dir.to_path_buf(),
    }
}

/// The engine of another machine's data folder over SSH (`--engine`, REEL_ENGINE, a profile's
/// `engine`); else the data folder's engine process, started from this very program with the
/// same config and profile (its environment is inherited), unless `--no-service` keeps the
/// engine in here. The host's end of a link (`engine attach`) and `engine run` are always this
/// machine's.
fn reach(cli: &Cli, settings: &config::Settings) -> anyhow::Result<Reach> {
    let here = matches!(
        &cli.command,
        Some(Command::Engine(e)) if matches!(e.command, EngineCommand::Attach(_) | EngineCommand::Run(_))
    ) || matches!(cli.command, Some(Command::Sim(_)));
    if let Some(url) = settings.engine_url.as_deref().filter(|_| !here) {
        if cli.no_service {
            anyhow::bail!(
                "--no-service runs the engine here, and --engine (or REEL_ENGINE) names one elsewhere: choose one"
            );
        }
        let target = SshTarget::parse(url)?;
        let remote = &settings.remote;
        return Ok(Reach::Ssh(SshReach { target, ssh: remote.ssh.clone(), reel: remote.reel.clone() }));
    }
    let exe = std::env::current_exe().ok();
    Ok(match exe {
        Some(exe) if !cli.no_service && cfg!(unix) => {
            let mut args: Vec<OsString> = Vec::new();
            if let Some(path) = &cli.config {
                args.extend([OsString::from("--config"), path.clone().into_os_string()]);
            }
            if let Some(profile) = &cli.profile {
                args.extend([OsString::from("--profile"), OsString::from(profile)]);
            }
            if cli.data_dir.is_some() {
                args.extend([OsString::from("--data-dir"), settings.data_dir.clone().into_os_string()]);
            }
            args.extend(["engine", "run", "--spawned"].map(OsString::from));
            let log = logging::folder(&settings.data_dir).join("engine.out");
            Reach::Service(Launch { exe, args, env: Vec::new(), log })
        }
        _ => Reach::InProcess,
    })
}
