//! Which way pictures are drawn: the terminal is asked once (ratatui-image's query) for kitty,
//! sixel or iTerm2 and its cell size; half blocks wherever that cannot work.

use std::io::Write;
use std::time::{Duration, Instant};

use ratatui_image::picker::Picker;
use ratatui_image::picker::cap_parser::QueryStdioOptions;

/// How long the terminal has to answer. Terminals answer in milliseconds; this bounds the
/// wait at start for one that never does.
const ANSWER: Duration = Duration::from_millis(800);

/// Asks the terminal, unless inside tmux or screen: there the query must pass through to an
/// outer terminal that may not be attached (and tmux would have to be reconfigured for it), so
/// half blocks are used there. Call it before anything reads input.
pub fn picker(multiplexer: bool) -> Picker {
    if multiplexer {
        return Picker::halfblocks();
    }
    let started = Instant::now();
    let options = QueryStdioOptions { timeout: ANSWER, ..QueryStdioOptions::default() };
    let picker = Picker::from_query_stdio_with_options(options).unwrap_or_else(|_| Picker::halfblocks());
    if started.elapsed() >= ANSWER {
        // No answer came: the query's reader thread still waits on the terminal and would take
        // the user's first keys. A status report, which every terminal answers, ends its wait.
        let mut out = std::io::stdout();
        let _ = out.write_all(b"\x1b[5n").and_then(|()| out.flush());
    }
    picker
}
