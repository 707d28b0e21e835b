//! Headless commands: argument definitions and one file per subcommand.

pub mod models;
pub mod sim;

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
    /// Run the API simulator on 127.0.0.1 (for trying reel, demos and tests).
    Sim(sim::SimArgs),
    /// List the models reel knows: the built-in catalog plus the config's.
    Models(models::ModelsArgs),
}
