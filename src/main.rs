use std::process::ExitCode;

use clap::Parser;
use reel::cli::{Cli, Command, download, history, list, models, show, sim, submit, wait};
use reel::config;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        // A closed pipe (`reel list | head`) is the reader's choice, not an error.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
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
    let mut out = std::io::stdout().lock();
    match cli.command {
        Some(Command::Submit(args)) => return submit::run(&args, &settings, &mut out).await,
        Some(Command::Wait(args)) => return wait::run(&args, &settings, &mut out).await,
        Some(Command::Download(args)) => return download::run(&args, &settings, &mut out).await,
        Some(Command::List(args)) => list::run(&args, &settings, &mut out)?,
        Some(Command::Show(args)) => show::run(&args, &settings, &mut out)?,
        Some(Command::History(args)) => history::run(&args, &settings, &mut out)?,
        Some(Command::Models(args)) => models::run(&args, &settings.catalog, &mut out)?,
        Some(Command::Sim(args)) => sim::run(&args, settings.catalog).await?,
        None => return reel::tui::event_loop::run(settings).await,
    }
    Ok(ExitCode::SUCCESS)
}
