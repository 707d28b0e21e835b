//! Headless commands: argument definitions and one file per subcommand.

pub mod batch;
pub mod completions;
pub mod doctor;
pub mod download;
pub mod engine;
pub mod error;
pub mod follow;
pub mod history;
pub mod import;
pub mod list;
pub mod mcp;
pub mod models;
pub mod open;
pub mod output;
pub mod pick;
pub mod progress;
pub mod pull;
pub mod rate;
pub mod reading;
pub mod rerun;
pub mod resend;
pub mod review;
pub mod rm;
pub mod show;
pub mod sim;
mod sim_upstream;
pub mod submit;
pub mod tag;
pub mod vary;
pub mod wait;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use futures_util::future::LocalBoxFuture;

pub use error::{CliError, report};
use output::{Output, OutputError};

use reel_engine::config::Settings;
use reel_engine::session::Reach;

pub(crate) const AFTER_HELP: &str = "\
Without a command, reel opens the dashboard.

Exit codes:
  0    success
  1    a task ended badly (failed, rejected, cancelled, expired, stalled, …)
  2    invalid input or configuration, any other error, or the service could not be reached
  3    submit without --wait: journaled but held, not sent yet (the engine sends it by itself)
  130  interrupted (Ctrl-C); unfinished tasks go on in the engine process

Examples:
  reel submit --model acme/aurora-3.0/text-to-video --prompt \"a red fox in snow\" --wait
  reel submit -m aurora-3.0/t2v -s 10 -n 2 \"a red fox in snow\"
  echo \"a red fox in snow\" | reel submit -
  reel vary 12 --prompt \"a grey wolf in snow\" --ratio 16:9
  reel --profile gw doctor
  reel rate 12 4 && reel tag 12 keeper && reel history search \"rating:>=4 tag:keeper fox\"
  reel history export --format csv --output tasks.csv";

/// `--status`: one of the local states, named to the shells' completion.
fn state_names() -> impl clap::builder::TypedValueParser<Value = reel_store::LocalState> {
    use clap::builder::TypedValueParser as _;
    let names = reel_store::LocalState::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>();
    clap::builder::PossibleValuesParser::new(names).try_map(|s| s.parse::<reel_store::LocalState>())
}

#[derive(Debug, Parser)]
#[command(
    name = "reel",
    version,
    about = "A terminal dashboard for asynchronous video-generation APIs",
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// Config file to use instead of the default one.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Profile of the config file to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
    /// Also print the log (transitions, HTTP statuses, retries) on stderr; commands only.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// Run the engine inside this reel instead of the data folder's engine process: work stops
    /// when this reel ends.
    #[arg(long, global = true)]
    pub no_service: bool,
    /// Use the engine of a data folder on another machine, over SSH:
    /// ssh://[user@]host[:port][/data/dir] (also REEL_ENGINE, or `engine` in a profile).
    #[arg(long, global = true, value_name = "URL")]
    pub engine: Option<String>,
    /// The data folder to use (instead of REEL_DATA_DIR or the config's data_dir).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Submit a video task (validated before anything is sent).
    Submit(submit::SubmitArgs),
    /// Run the engine until tasks end and their files are saved.
    Wait(wait::WaitArgs),
    /// List tasks, newest first.
    List(list::ListArgs),
    /// Show one task: parameters, timeline, file.
    Show(show::ShowArgs),
    /// Fetch a task's file again.
    Download(download::DownloadArgs),
    /// Search past tasks, see the ledger, export everything.
    History(history::HistoryArgs),
    /// Run the API simulator on 127.0.0.1 (for trying reel, demos and tests).
    Sim(sim::SimArgs),
    /// List the models reel knows (the built-in catalog plus the config's), or with --service
    /// those the service offers.
    Models(models::ModelsArgs),
    /// Check a profile against its service without spending (GETs only): the key, the models
    /// it lists, the base URL, the body and download route it expects, the clock; and print
    /// what to set. Exit 0: all is well; 1: something needs setting; 2: unreachable.
    Doctor(doctor::DoctorArgs),
    /// The data folder's engine process: run it in the foreground, see it, stop it.
    Engine(engine::EngineArgs),
    /// Send a task again as it was (recorded as derived from it).
    Rerun(rerun::RerunArgs),
    /// Send a variation of a task: its parameters, the flags given replacing them.
    Vary(vary::VaryArgs),
    /// Send a submit_unknown or rejected task again, with its idempotency key.
    Resend(resend::ResendArgs),
    /// Delete a task from the journal (and with --file its saved video).
    Rm(rm::RmArgs),
    /// Rate a task 1 to 5 (0 or --clear removes the rating).
    Rate(rate::RateArgs),
    /// Tag a task (--remove takes tags off); search them with `tag:WORD`.
    Tag(tag::TagArgs),
    /// Pick a task as the winner of its batch or comparison (--clear takes it back).
    Pick(pick::PickArgs),
    /// Play a task's saved video with $REEL_PLAYER (else xdg-open or open).
    Open(open::OpenArgs),
    /// Bring saved videos into a folder here, checked against their sha256 (from the engine's
    /// machine when it is another one).
    Pull(pull::PullArgs),
    /// Rebuild history entries from a folder of videos and their sidecars or embedded
    /// provenance (no network request; files already in the history are left out).
    Import(import::ImportArgs),
    /// Serve MCP on stdio: AI agents list models, check, search and show tasks (and send them
    /// when `[agents] submit = true`), through this data folder's engine.
    Mcp(mcp::McpArgs),
    /// Print a completion script for bash, zsh, fish, elvish or powershell (see README).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), or with --dir write one per command.
    Man(completions::ManArgs),
}

/// Runs a headless command, writing to standard output.
///
/// Boxed, so that the commands' code is compiled in this crate, beside the dashboard's, and not
/// in the binary that awaits it (an `async fn`'s body is compiled where it is awaited).
#[inline(never)]
pub fn run<'a>(
    command: Command,
    settings: &'a Settings,
    reach: &'a Reach,
) -> LocalBoxFuture<'a, Result<ExitCode, CliError>> {
    Box::pin(run_command(command, settings, reach))
}

async fn run_command(command: Command, settings: &Settings, reach: &Reach) -> Result<ExitCode, CliError> {
    // `reel mcp` and the host's end of a link over SSH write messages on standard output
    // themselves: nothing here may hold it.
    let owns_stdout = match &command {
        Command::Mcp(_) => true,
        Command::Engine(e) => matches!(e.command, engine::EngineCommand::Attach(_)),
        _ => false,
    };
    if owns_stdout {
        return dispatch(command, settings, reach, &mut Output::new(std::io::sink(), "nowhere")).await;
    }
    let mut out = Output::stdout();
    let ran = dispatch(command, settings, reach, &mut out).await;
    settle(ran, out.flush())
}

async fn dispatch(
    command: Command,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let done = |()| ExitCode::SUCCESS;
    match command {
        Command::Submit(mut args) => {
            if let Err(e) = args.take_stdin(std::io::stdin()) {
                return Ok(submit::usage(&e.to_string()));
            }
            if args.is_batch() {
                batch::run(&args, settings, reach, out).await
            } else {
                submit::run(&args, settings, reach, out).await
            }
        }
        Command::Wait(args) => wait::run(&args, settings, reach, out).await,
        Command::Download(args) => download::run(&args, settings, reach, out).await,
        Command::Engine(args) => engine::run(&args, settings, reach, out).await,
        Command::Doctor(args) => doctor::run(&args, settings, out).await,
        Command::List(args) => list::run(&args, settings, reach, out).await.map(done),
        Command::Show(args) => show::run(&args, settings, reach, out).await.map(done),
        Command::History(args) => history::run(&args, settings, reach, out).await.map(done),
        Command::Pull(args) => pull::run(&args, settings, reach, out).await,
        Command::Models(args) => models::run(&args, settings, out).await.map(done),
        Command::Rerun(args) => rerun::run(&args, settings, reach, out).await,
        Command::Vary(args) => vary::run(&args, settings, reach, out).await,
        Command::Resend(args) => resend::run(&args, settings, reach, out).await,
        Command::Rm(args) => rm::run(&args, settings, reach, out).await.map(done),
        Command::Rate(args) => {
            review::run(&args.id, rate::change(&args), args.json, settings, reach, out).await.map(done)
        }
        Command::Tag(args) => {
            review::run(&args.id, tag::change(&args), args.json, settings, reach, out).await.map(done)
        }
        Command::Pick(args) => {
            review::run(&args.id, pick::change(&args), args.json, settings, reach, out).await.map(done)
        }
        Command::Open(args) => open::run(&args, settings, reach, out).await,
        Command::Import(args) => import::run(&args, settings, reach, out).await,
        Command::Mcp(args) => mcp::run(&args, settings, reach).await,
        Command::Completions(args) => completions::completions(&args, out).map(done),
        Command::Man(args) => completions::man(&args, out).map(done),
        Command::Sim(args) => sim::run(&args, settings.catalog.clone(), out).await.map(done),
    }
}

/// A closed pipe is the reader's choice, not a failure: a command stopped by one exits 0, and
/// one that had finished its work keeps the exit code it chose.
fn settle(ran: Result<ExitCode, CliError>, flushed: Result<(), OutputError>) -> Result<ExitCode, CliError> {
    match (ran, flushed) {
        (Err(e), _) if e.is_closed_pipe() => Ok(ExitCode::SUCCESS),
        (Err(e), _) => Err(e),
        (Ok(_), Err(e)) if !e.is_closed() => Err(e.into()),
        (Ok(code), _) => Ok(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_pipes_settle_quietly_other_failures_do_not() {
        let closed = || Err(OutputError::Closed);
        let full = || Err(OutputError::Csv("disk full".into()));
        let stopped: Result<ExitCode, CliError> = Err(OutputError::Closed.into());
        assert_eq!(settle(stopped, closed()).ok(), Some(ExitCode::SUCCESS));
        assert_eq!(settle(Ok(ExitCode::from(1)), closed()).ok(), Some(ExitCode::from(1)), "the code chosen stays");
        assert_eq!(settle(Ok(ExitCode::from(1)), Ok(())).ok(), Some(ExitCode::from(1)));
        assert!(settle(Ok(ExitCode::SUCCESS), full()).is_err());
        assert!(settle(Err(CliError::Usage("bad".into())), closed()).is_err());
    }

    #[test]
    fn every_option_of_every_command_is_described() {
        use clap::CommandFactory;
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                if arg.get_help().is_none() && !["help", "version"].contains(&arg.get_id().as_str()) {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {}", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "reel", &mut missing);
        assert!(missing.is_empty(), "without a description: {missing:?}");
        Cli::command().debug_assert();
    }
}
