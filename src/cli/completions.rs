//! `reel completions SHELL` and `reel man`: what a shell and `man` need, made from the
//! command-line definition itself, so they never fall behind it.

use std::io::Write;
use std::path::PathBuf;

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
pub struct ManArgs {
    /// Write reel.1 and a page per command (reel-submit.1, …) into this folder instead of
    /// printing reel.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(args: &CompletionsArgs, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "reel", &mut script);
    out.text(&String::from_utf8_lossy(&script))?;
    Ok(())
}

/// The manual page (roff) of reel, or with `--dir` the pages of reel and of every command.
pub fn man(args: &ManArgs, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let failed = |e: std::io::Error| {
        let place = args.dir.as_ref().map(|d| format!(" to {}", d.display())).unwrap_or_default();
        CliError::Usage(format!("cannot write the manual pages{place}: {e}"))
    };
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).map_err(failed)?;
        clap_mangen::generate_to(Cli::command(), dir).map_err(failed)?;
        out.line(&format!("Wrote the manual pages to {}", dir.display()))?;
        return Ok(());
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page).map_err(failed)?;
    out.text(&String::from_utf8_lossy(&page))?;
    Ok(())
}
