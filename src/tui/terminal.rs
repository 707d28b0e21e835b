//! Taking and giving back the terminal: on start, on exit, on panic, around $EDITOR and Ctrl-Z.

use std::io::{Stdout, Write, stdout};

use crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

pub fn enter() -> std::io::Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture, EnableBracketedPaste)
}

/// Gives the terminal back as it was; safe to call more than once.
pub fn leave() {
    let _ = execute!(stdout(), DisableBracketedPaste, DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
    let _ = disable_raw_mode();
    let _ = stdout().flush();
}

/// Restores the terminal before the panic message is printed, so it is readable.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        default(info);
    }));
}

pub fn open() -> std::io::Result<Term> {
    install_panic_hook();
    enter()?;
    Terminal::new(CrosstermBackend::new(stdout()))
}

/// Stops the process as the shell's job control expects (Ctrl-Z), and takes the terminal back
/// when it continues.
pub fn suspend(term: &mut Term) -> std::io::Result<()> {
    leave();
    #[cfg(unix)]
    // SAFETY: raise() with a valid signal number has no preconditions; SIGTSTP stops the
    // process until the shell sends SIGCONT.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    enter()?;
    term.clear()
}
