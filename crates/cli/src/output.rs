//! Where headless commands write: every string made safe for a terminal on its way out (plain
//! text, JSON, CSV), and the one place a closed pipe (`reel list | head -1`) is recognised.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone fails with `BrokenPipe`; that
//! becomes `OutputError::Closed`, which `cli::run` ends quietly on.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use thiserror::Error;

use reel_rules::text;

#[derive(Debug, Error)]
pub enum OutputError {
    /// The reader went away: its choice, never reported.
    #[error("the reader closed the output")]
    Closed,
    #[error("cannot write to {target}: {source}")]
    Write { target: String, source: io::Error },
    #[error("cannot create {}: {source}; check that its folder exists and is writable", path.display())]
    Create { path: PathBuf, source: io::Error },
    #[error("cannot encode the output as JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("cannot write CSV: {0}")]
    Csv(String),
}

impl OutputError {
    pub fn is_closed(&self) -> bool {
        matches!(self, OutputError::Closed)
    }
}

/// The one place a write failure is classified.
fn failed(target: &str, source: io::Error) -> OutputError {
    if source.kind() == io::ErrorKind::BrokenPipe {
        OutputError::Closed
    } else {
        OutputError::Write { target: target.to_string(), source }
    }
}

fn json_failed(target: &str, e: serde_json::Error) -> OutputError {
    if e.is_io() { failed(target, io::Error::from(e)) } else { OutputError::Json(e) }
}

fn csv_failed(target: &str, e: csv::Error) -> OutputError {
    if !e.is_io_error() {
        return OutputError::Csv(e.to_string());
    }
    match e.into_kind() {
        csv::ErrorKind::Io(source) => failed(target, source),
        other => OutputError::Csv(format!("{other:?}")),
    }
}

/// For commands whose work is done before they print (submit, wait, download): a closed pipe
/// keeps the exit code the work chose.
pub fn allow_closed(result: Result<(), OutputError>) -> Result<(), OutputError> {
    match result {
        Err(OutputError::Closed) => Ok(()),
        other => other,
    }
}

/// A message on standard error, made safe (it may quote a server). Failing to write it is
/// ignored: standard error is where failures would be reported.
pub fn note(message: &str) {
    let _ = writeln!(io::stderr(), "reel: {}", text::safe(message));
}

/// A destination for a command's output, named for error messages.
pub struct Output<W: Write> {
    inner: W,
    target: String,
    /// A person reads it (standard output on a terminal): long texts may be cut to fit there.
    terminal: bool,
}

impl Output<BufWriter<io::StdoutLock<'static>>> {
    /// Buffered: an export of a million rows is not a million system calls. `cli::run` flushes.
    pub fn stdout() -> Self {
        let terminal = io::IsTerminal::is_terminal(&io::stdout());
        Output { terminal, ..Output::new(BufWriter::new(io::stdout().lock()), "standard output") }
    }
}

impl Output<BufWriter<File>> {
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        let file = File::create(path).map_err(|source| OutputError::Create { path: path.to_path_buf(), source })?;
        Ok(Output::new(BufWriter::new(file), path.display().to_string()))
    }
}

impl<W: Write> Output<W> {
    pub fn new(inner: W, target: impl Into<String>) -> Self {
        Output { inner, target: target.into(), terminal: false }
    }

    /// Whether a person reads it on a terminal (else a pipe or a file, read whole).
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// Writes `text` with its unsafe characters escaped (already safe text passes unchanged).
    pub fn text(&mut self, text: &str) -> Result<(), OutputError> {
        self.inner.write_all(text::safe(text).as_bytes()).map_err(|e| failed(&self.target, e))
    }

    pub fn line(&mut self, text: &str) -> Result<(), OutputError> {
        self.text(text)?;
        self.text("\n")
    }

    /// Pretty JSON and a newline.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), OutputError> {
        let mut ser = serde_json::Serializer::with_formatter(&mut self.inner, Safe(PrettyFormatter::new()));
        value.serialize(&mut ser).map_err(|e| json_failed(&self.target, e))?;
        self.text("\n")
    }

    /// One line of compact JSON (JSON lines).
    pub fn json_line<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), OutputError> {
        let mut ser = serde_json::Serializer::with_formatter(&mut self.inner, Safe(CompactFormatter));
        value.serialize(&mut ser).map_err(|e| json_failed(&self.target, e))?;
        self.text("\n")
    }

    /// A CSV writer over this output; call `finish` at the end.
    pub fn csv(&mut self) -> CsvOutput<'_, W> {
        CsvOutput { writer: csv::Writer::from_writer(&mut self.inner), target: &self.target }
    }

    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.inner.flush().map_err(|e| failed(&self.target, e))
    }

    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// CSV rows whose cells are made safe: `\n` stays (quoted), `\r` and escapes do not.
pub struct CsvOutput<'a, W: Write> {
    writer: csv::Writer<&'a mut W>,
    target: &'a str,
}

impl<W: Write> CsvOutput<'_, W> {
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) -> Result<(), OutputError> {
        for cell in cells {
            self.writer.write_field(text::safe(cell.as_ref()).as_bytes()).map_err(|e| csv_failed(self.target, e))?;
        }
        self.writer.write_record(None::<&[u8]>).map_err(|e| csv_failed(self.target, e))
    }

    pub fn finish(mut self) -> Result<(), OutputError> {
        self.writer.flush().map_err(|e| failed(self.target, e))
    }
}

/// A serde_json formatter that also escapes what serde_json writes raw: DEL, C1 controls and bidi
/// characters (it escapes C0 itself). The escape is JSON's `\u009b`, so the JSON still decodes to
/// exactly the original strings.
struct Safe<F>(F);

impl<F: Formatter> Formatter for Safe<F> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        writer.write_all(text::safe(fragment).as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "\u{1b}]52;c;eA==\u{7}\u{1b}]0;title\u{7}\u{1b}[2J\u{9b}31m\u{202e}\u{2066}x\u{7f}\r\n";

    fn assert_safe(bytes: &[u8]) {
        let text = std::str::from_utf8(bytes).expect("utf-8");
        let bad: Vec<char> = text.chars().filter(|&c| text::is_unsafe(c)).collect();
        assert!(bad.is_empty(), "unsafe characters {bad:?} in {text:?}");
    }

    /// A writer whose reader has gone.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(28))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn text_json_and_csv_are_safe_and_json_round_trips() {
        let value = serde_json::json!({ "message": HOSTILE, HOSTILE: [HOSTILE], "plain": "日本語 🎬" });
        let mut out = Output::new(Vec::new(), "test");
        out.line(HOSTILE).expect("text");
        out.json(&value).expect("pretty");
        out.json_line(&value).expect("compact");
        let bytes = out.into_inner();
        assert_safe(&bytes);
        let text = String::from_utf8(bytes).expect("utf-8");
        let mut lines = text.splitn(2, '\n');
        assert_eq!(
            lines.next(),
            Some(r"\u001b]52;c;eA==\u0007\u001b]0;title\u0007\u001b[2J\u009b31m\u202e\u2066x\u007f\u000d")
        );
        let mut json = serde_json::Deserializer::from_str(lines.next().expect("json")).into_iter::<serde_json::Value>();
        assert_eq!(json.next().and_then(Result::ok), Some(value.clone()), "pretty JSON decodes to the original");
        assert_eq!(json.next().and_then(Result::ok), Some(value), "JSON lines decode to the original");

        let mut out = Output::new(Vec::new(), "test");
        let mut csv = out.csv();
        csv.row(["id", "error"]).expect("header");
        csv.row(["1", HOSTILE]).expect("row");
        csv.finish().expect("flush");
        let bytes = out.into_inner();
        assert_safe(&bytes);
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let row = reader.records().next().expect("a row").expect("csv");
        assert_eq!(&row[1], text::safe(HOSTILE), "newline kept inside the quoted cell");
    }

    #[test]
    fn a_closed_pipe_is_recognised_in_every_format_and_other_failures_are_named() {
        let mut out = Output::new(ClosedPipe, "standard output");
        assert!(out.line("x").is_err_and(|e| e.is_closed()));
        assert!(out.json(&[1, 2]).is_err_and(|e| e.is_closed()));
        assert!(out.json_line(&[1, 2]).is_err_and(|e| e.is_closed()));
        let mut csv = out.csv();
        csv.row(["a"]).expect("buffered");
        assert!(csv.finish().is_err_and(|e| e.is_closed()));
        assert!(out.flush().is_err_and(|e| e.is_closed()));
        assert!(allow_closed(Err(OutputError::Closed)).is_ok());

        let mut out = Output::new(Full, "out.csv");
        let e = out.line("x").expect_err("disk full");
        assert!(!e.is_closed());
        assert!(e.to_string().starts_with("cannot write to out.csv: "), "{e}");
        assert!(allow_closed(Err(e)).is_err());
    }
}
