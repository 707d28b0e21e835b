use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use reel::cli::output::note;
use reel::cli::{self, Cli};
use reel::engine::service::Launch;
use reel::session::Reach;
use reel::tui::keymap;
use reel::{config, logging};

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
    let settings = config::load(cli.config.as_deref(), cli.profile.as_deref())?;
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
    let reach = reach(&cli, &settings);
    match cli.command {
        Some(command) => Ok(cli::run(command, &settings, &reach).await?),
        // Without a terminal the dashboard could only write escape codes into a pipe or file.
        None if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) => {
            note(NO_TERMINAL);
            Ok(ExitCode::from(2))
        }
        None => reel::tui::event_loop::run(settings, reach).await,
    }
}

const NO_TERMINAL: &str = "the dashboard needs a terminal, and standard input or output is not one; \
     without a terminal use the headless commands: `reel submit --model M --prompt P --wait`, \
     `reel list`, `reel show ID`, `reel wait --all`, `reel history export --format csv` (`reel --help` lists them all)";

/// The data folder's engine process, started from this very program with the same config and
/// profile (its environment is inherited), unless `--no-service` keeps the engine in here.
fn reach(cli: &Cli, settings: &config::Settings) -> Reach {
    let exe = std::env::current_exe().ok();
    match exe {
        Some(exe) if !cli.no_service && cfg!(unix) => {
            let mut args: Vec<OsString> = Vec::new();
            if let Some(path) = &cli.config {
                args.extend([OsString::from("--config"), path.clone().into_os_string()]);
            }
            if let Some(profile) = &cli.profile {
                args.extend([OsString::from("--profile"), OsString::from(profile)]);
            }
            args.extend(["engine", "run", "--spawned"].map(OsString::from));
            let log = logging::folder(&settings.data_dir).join("engine.out");
            Reach::Service(Launch { exe, args, env: Vec::new(), log })
        }
        _ => Reach::InProcess,
    }
}
