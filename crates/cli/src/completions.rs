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
    page_of(&mut page).map_err(failed)?;
    out.text(&String::from_utf8_lossy(&page))?;
    Ok(())
}

/// reel.1: clap_mangen's sections, then the notes after the help as sections of their own
/// (`EXIT STATUS`, `EXAMPLES`, titled as man pages title them), their lines kept as written.
fn page_of(page: &mut Vec<u8>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(Cli::command());
    man.render_title(page)?;
    man.render_name_section(page)?;
    man.render_synopsis_section(page)?;
    man.render_description_section(page)?;
    man.render_options_section(page)?;
    man.render_subcommands_section(page)?;
    page.extend_from_slice(notes_roff(super::AFTER_HELP).as_bytes());
    man.render_version_section(page)
}

/// The notes after the help (paragraphs, each headed `Title:` but the first) as roff sections:
/// the first as NOTES, `Exit codes:` as EXIT STATUS, the others by their titles; every line kept
/// as it is (`.nf`), escaped so that none is read as a roff request.
pub fn notes_roff(notes: &str) -> String {
    let mut out = String::new();
    for paragraph in notes.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let mut lines = paragraph.lines();
        let first = lines.clone().next().unwrap_or_default();
        let (title, body): (String, Vec<&str>) = match first.strip_suffix(':') {
            Some(t) if !t.contains(' ') || t.eq_ignore_ascii_case("exit codes") => {
                lines.next();
                let title = if t.eq_ignore_ascii_case("exit codes") { "EXIT STATUS".into() } else { t.to_uppercase() };
                (title, lines.collect())
            }
            _ => ("NOTES".into(), lines.collect()),
        };
        out.push_str(&format!(".SH \"{title}\"\n.nf\n"));
        for line in body {
            let line = line.replace('\\', "\\e");
            let line = if line.starts_with(['.', '\'']) { format!("\\&{line}") } else { line };
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(".fi\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notes_are_sections_of_their_own_with_their_lines_kept() {
        let roff = notes_roff(super::super::AFTER_HELP);
        assert!(!roff.contains("EXTRA"), "{roff}");
        assert!(roff.contains(".SH \"EXIT STATUS\"\n.nf\n  0    success\n"), "{roff}");
        assert!(roff.contains(".SH \"EXAMPLES\"\n.nf\n"), "{roff}");
        assert!(roff.starts_with(".SH \"NOTES\"\n.nf\nWithout a command"), "{roff}");
        let tricky = notes_roff("Odd:\n.start with a dot\n'a quote\nback\\slash");
        assert_eq!(tricky, ".SH \"ODD\"\n.nf\n\\&.start with a dot\n\\&'a quote\nback\\eslash\n.fi\n");
        let mut page = Vec::new();
        page_of(&mut page).expect("rendered");
        let page = String::from_utf8(page).expect("utf-8");
        assert!(page.contains(".SH \"EXIT STATUS\"") && !page.contains(".SH EXTRA"), "{page}");
    }
}
