use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use reel::cli::{Cli, Command, models, sim};
use reel::config;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("reel: {e:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let settings = config::load(cli.config.as_deref(), cli.profile.as_deref())?;
    for warning in &settings.warnings {
        eprintln!("reel: warning: {warning}");
    }
    match cli.command {
        Some(Command::Models(args)) => models::run(&args, &settings.catalog, &mut std::io::stdout().lock())?,
        Some(Command::Sim(args)) => sim::run(&args, settings.catalog).await?,
        None => {
            // The dashboard is the next milestone; until it lands, show what there is.
            Cli::command().print_long_help()?;
            println!("\nThe dashboard is not built yet: run `reel sim` to try the simulator.");
        }
    }
    Ok(ExitCode::SUCCESS)
}
