//! `reel completions SHELL` and `reel man`: what a shell and `man` need, made from the
//! command-line definition itself, so they never fall behind it.

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::output::Output;
use super::{Cli, CliError};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {}

pub fn completions(args: &CompletionsArgs, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "reel", &mut script);
    out.text(&String::from_utf8_lossy(&script))?;
    Ok(())
}

/// The manual page (roff) of reel; its COMMANDS section lists every command, whose options
/// `reel help COMMAND` gives.
pub fn man(_: &ManArgs, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page).map_err(write_failed)?;
    out.text(&String::from_utf8_lossy(&page))?;
    Ok(())
}

fn write_failed(e: std::io::Error) -> CliError {
    CliError::Usage(format!("cannot make the manual page: {e}"))
}
