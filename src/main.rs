use std::process::ExitCode;

use clap::Parser;
use reel::cli::output::note;
use reel::cli::{self, Cli};
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
    for warning in &settings.warnings {
        note(&format!("warning: {warning}"));
    }
    // The dashboard owns the terminal: its log goes to the file only.
    let mirror = cli.verbose && cli.command.is_some();
    let _log = logging::init(&settings.data_dir, settings.log_filter.as_deref(), mirror)
        .inspect_err(|e| note(&format!("warning: no log file: {e}")))
        .ok();
    match cli.command {
        Some(command) => Ok(cli::run(command, &settings).await?),
        None => reel::tui::event_loop::run(settings).await,
    }
}
