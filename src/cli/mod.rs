//! Headless commands: argument definitions and one file per subcommand.

pub mod download;
pub mod follow;
pub mod history;
pub mod list;
pub mod models;
pub mod progress;
pub mod show;
pub mod sim;
pub mod submit;
pub mod wait;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "reel", version, about = "A terminal dashboard for asynchronous video-generation APIs")]
pub struct Cli {
    /// Config file to use instead of the default one.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Profile of the config file to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
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
    /// List the models reel knows: the built-in catalog plus the config's.
    Models(models::ModelsArgs),
}
