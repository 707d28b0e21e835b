//! Taking and giving back the terminal: on start, on every exit path (a guard), on panic,
//! around $EDITOR and Ctrl-Z. The event loop sees only a [`Console`], so tests can run the
//! whole dashboard on ratatui's `TestBackend` ([`Headless`]).

use std::io::{self, Stdout, Write, stdout};

use crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use tokio::sync::watch;

use super::app::App;
use super::views;

/// Where the dashboard draws, and what it asks of the terminal besides drawing.
pub trait Console {
    /// Columns and rows.
    fn size(&self) -> io::Result<(u16, u16)>;
    fn draw(&mut self, app: &App) -> io::Result<()>;
    /// Hands the terminal to a child program (the editor) until [`Console::reclaim`].
    fn release(&mut self);
    /// Takes the terminal back and redraws everything at the next draw.
    fn reclaim(&mut self) -> io::Result<()>;
    /// Stops the process as the shell's job control expects (Ctrl-Z).
    fn suspend(&mut self) -> io::Result<()>;
    /// Writes a control sequence around the drawing (the bell, OSC 52 for the clipboard).
    fn emit(&mut self, sequence: &str) -> io::Result<()>;
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture, EnableBracketedPaste)
}

/// Gives the terminal back as it was; safe to call more than once.
fn leave() {
    let _ = execute!(stdout(), DisableBracketedPaste, DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
    let _ = disable_raw_mode();
    let _ = stdout().flush();
}

/// Restores the terminal before the panic message is printed, so it is readable.
fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        default(info);
    }));
}

/// Leaves raw mode and the alternate screen when dropped: whatever way the dashboard ends
/// (a quit, an error, a panic that unwinds), the shell gets its terminal back.
struct Guard;

impl Guard {
    fn enter() -> io::Result<Guard> {
        // Made before entering, so that a half-done enter is undone too.
        let guard = Guard;
        enter()?;
        Ok(guard)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        leave();
    }
}

/// The real terminal on stdout. Dropping it restores the terminal.
pub struct Tty {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    _guard: Guard,
}

/// Takes the terminal: raw mode, the alternate screen, mouse and bracketed paste.
pub fn open() -> io::Result<Tty> {
    install_panic_hook();
    let guard = Guard::enter()?;
    Ok(Tty { terminal: Terminal::new(CrosstermBackend::new(stdout()))?, _guard: guard })
}

impl Console for Tty {
    fn size(&self) -> io::Result<(u16, u16)> {
        let size = self.terminal.size()?;
        Ok((size.width, size.height))
    }

    fn draw(&mut self, app: &App) -> io::Result<()> {
        self.terminal
            .draw(|f| {
                views::draw(f, app);
                if super::theme::colours_off() {
                    super::theme::without_colours(f.buffer_mut());
                }
            })
            .map(drop)
    }

    fn release(&mut self) {
        leave();
    }

    fn reclaim(&mut self) -> io::Result<()> {
        enter()?;
        self.terminal.clear()
    }

    fn suspend(&mut self) -> io::Result<()> {
        leave();
        #[cfg(unix)]
        // SAFETY: raise() with a valid signal number has no preconditions; SIGTSTP stops the
        // process until the shell sends SIGCONT.
        unsafe {
            libc::raise(libc::SIGTSTP);
        }
        self.reclaim()
    }

    fn emit(&mut self, sequence: &str) -> io::Result<()> {
        let mut out = stdout();
        out.write_all(sequence.as_bytes())?;
        out.flush()
    }
}

/// A console with no terminal behind it (any ratatui backend, such as `TestBackend`): every
/// drawn frame is published, control sequences are kept, giving the terminal away does nothing.
pub struct Headless<B: Backend> {
    terminal: Terminal<B>,
    frames: watch::Sender<Buffer>,
    /// Bells and clipboard sequences, in order.
    pub emitted: Vec<String>,
}

fn backend_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

impl<B: Backend> Headless<B> {
    /// The console and a receiver that sees each frame once it is drawn.
    pub fn new(backend: B) -> io::Result<(Headless<B>, watch::Receiver<Buffer>)> {
        let terminal = Terminal::new(backend).map_err(backend_error)?;
        let (frames, rx) = watch::channel(Buffer::default());
        Ok((Headless { terminal, frames, emitted: Vec::new() }, rx))
    }
}

impl<B: Backend> Console for Headless<B> {
    fn size(&self) -> io::Result<(u16, u16)> {
        let size = self.terminal.size().map_err(backend_error)?;
        Ok((size.width, size.height))
    }

    fn draw(&mut self, app: &App) -> io::Result<()> {
        let frame = self.terminal.draw(|f| views::draw(f, app)).map_err(backend_error)?;
        self.frames.send_replace(frame.buffer.clone());
        Ok(())
    }

    fn release(&mut self) {}

    fn reclaim(&mut self) -> io::Result<()> {
        self.terminal.clear().map_err(backend_error)
    }

    fn suspend(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn emit(&mut self, sequence: &str) -> io::Result<()> {
        self.emitted.push(sequence.to_string());
        Ok(())
    }
}
