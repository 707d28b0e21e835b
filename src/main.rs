use std::process::ExitCode;

use clap::Parser;
use reel::cli::output::note;
use reel::cli::{self, Cli};
use reel::config;

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
    match cli.command {
        Some(command) => Ok(cli::run(command, &settings).await?),
        None => reel::tui::event_loop::run(settings).await,
    }
}
