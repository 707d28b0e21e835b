//! A batch file's text, read as a stream within bounds: a file past its size, a line past its
//! length, or a stream that never ends (`/dev/zero`, a pipe) is refused after reading at most
//! the bound, never held whole first.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use thiserror::Error;

use crate::text::thousands;

/// How much of a batch file is read (`[batch] max_file_bytes` and `max_line_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBounds {
    pub max_file_bytes: u64,
    pub max_line_bytes: u64,
}

/// Why a batch file's text could not be had. `name` is the file as the user named it.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{name}: the file is {} bytes, more than {} (the [batch] max_file_bytes)", thousands(*size), bytes(*max))]
    FileTooLarge { name: String, size: u64, max: u64 },
    #[error("{name}: more than {} (the [batch] max_file_bytes); reading stopped there", bytes(*max))]
    StreamTooLarge { name: String, max: u64 },
    #[error("{name}:{line}: a line longer than {} (the [batch] max_line_bytes)", bytes(*max))]
    LineTooLong { name: String, line: u64, max: u64 },
    #[error("{name}:{line}: not UTF-8 text")]
    NotUtf8 { name: String, line: u64 },
}

/// A bound as people set it: `64 MiB`, `512 KiB`, or `1,500 bytes`.
fn bytes(n: u64) -> String {
    match n {
        0 => "0 bytes".into(),
        n if n % (1 << 20) == 0 => format!("{} MiB", thousands(n >> 20)),
        n if n % (1 << 10) == 0 => format!("{} KiB", thousands(n >> 10)),
        n => format!("{} bytes", thousands(n)),
    }
}

/// The file at `path` as text, within `bounds`. A regular file is measured before a byte of it
/// is read; anything else (a pipe, a device) is bounded while it is read.
pub fn file(path: &Path, name: &str, bounds: ReadBounds) -> Result<String, ReadError> {
    let io = |source| ReadError::Io { path: path.display().to_string(), source };
    let f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if meta.is_file() && meta.len() > bounds.max_file_bytes {
        return Err(ReadError::FileTooLarge { name: name.to_string(), size: meta.len(), max: bounds.max_file_bytes });
    }
    text(name, f, bounds)
}

/// Everything `reader` yields, as text, within `bounds`: reading stops at the first line longer
/// than `max_line_bytes` (its `\n` not counted) or once more than `max_file_bytes` came, so at
/// most the smaller bound plus one buffer is ever read or held.
pub fn text(name: &str, reader: impl Read, bounds: ReadBounds) -> Result<String, ReadError> {
    let mut reader = BufReader::new(reader);
    let mut out: Vec<u8> = Vec::new();
    let mut line: u64 = 1;
    let mut line_len: u64 = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(ReadError::Io { path: name.to_string(), source }),
        };
        let mut rest = chunk;
        while !rest.is_empty() {
            let (part, more) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (i, Some(i + 1)),
                None => (rest.len(), None),
            };
            line_len += part as u64;
            if line_len > bounds.max_line_bytes {
                return Err(ReadError::LineTooLong { name: name.to_string(), line, max: bounds.max_line_bytes });
            }
            match more {
                Some(next) => {
                    line += 1;
                    line_len = 0;
                    rest = &rest[next..];
                }
                None => rest = &[],
            }
        }
        if (out.len() + chunk.len()) as u64 > bounds.max_file_bytes {
            return Err(ReadError::StreamTooLarge { name: name.to_string(), max: bounds.max_file_bytes });
        }
        out.extend_from_slice(chunk);
        let n = chunk.len();
        reader.consume(n);
    }
    String::from_utf8(out).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + valid.iter().filter(|&&b| b == b'\n').count() as u64;
        ReadError::NotUtf8 { name: name.to_string(), line }
    })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// A reader of `byte` without end that counts what it handed out.
    struct Endless {
        byte: u8,
        read: Rc<Cell<u64>>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(self.byte);
            self.read.set(self.read.get() + buf.len() as u64);
            Ok(buf.len())
        }
    }

    fn endless(byte: u8) -> (Endless, Rc<Cell<u64>>) {
        let read = Rc::new(Cell::new(0));
        (Endless { byte, read: read.clone() }, read)
    }

    const BOUNDS: ReadBounds = ReadBounds { max_file_bytes: 64 << 20, max_line_bytes: 1 << 20 };

    /// BufReader's buffer: what may be read past a bound before it is seen.
    const BUFFER: u64 = 8 << 10;

    #[test]
    fn an_endless_line_is_refused_after_reading_at_most_its_bound() {
        let (zeros, read) = endless(0);
        let e = text("/dev/zero", zeros, BOUNDS).expect_err("refused");
        assert!(matches!(e, ReadError::LineTooLong { line: 1, .. }), "{e:?}");
        assert_eq!(e.to_string(), "/dev/zero:1: a line longer than 1 MiB (the [batch] max_line_bytes)");
        assert!(read.get() <= BOUNDS.max_line_bytes + BUFFER, "read {} bytes", read.get());
    }

    #[test]
    fn an_endless_file_of_short_lines_is_refused_after_reading_at_most_its_bound() {
        let (newlines, read) = endless(b'\n');
        let bounds = ReadBounds { max_file_bytes: 1 << 20, max_line_bytes: 1 << 20 };
        let e = text("yes.txt", newlines, bounds).expect_err("refused");
        assert_eq!(e.to_string(), "yes.txt: more than 1 MiB (the [batch] max_file_bytes); reading stopped there");
        assert!(read.get() <= bounds.max_file_bytes + BUFFER, "read {} bytes", read.get());
    }

    #[test]
    fn lines_and_files_at_and_past_their_bounds() {
        let bounds = ReadBounds { max_file_bytes: 20, max_line_bytes: 5 };
        // (text, the line refused or 0 when the file is too large, None when read)
        let cases: [(&str, Option<u64>); 9] = [
            ("", None),
            ("abcde", None),
            ("abcde\nfghij\n", None),
            ("abcde\r\n", Some(1)),
            ("abcdef", Some(1)),
            ("ab\nabcdef\nab", Some(2)),
            ("a\n\n\nabcdef", Some(4)),
            ("abcd\nabcd\nabcd\nabcd\n", None),
            ("abcd\nabcd\nabcd\nabcd\na", Some(0)),
        ];
        for (input, want) in cases {
            let got = text("p.txt", input.as_bytes(), bounds);
            match (got, want) {
                (Ok(t), None) => assert_eq!(t, input),
                (Err(ReadError::LineTooLong { line, max: 5, .. }), Some(w)) if w > 0 => {
                    assert_eq!(line, w, "{input:?}")
                }
                (Err(ReadError::StreamTooLarge { max: 20, .. }), Some(0)) => {}
                (got, want) => panic!("{input:?}: {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn text_that_is_not_utf8_is_named_by_its_line() {
        let e = text("p.csv", &b"prompt\na fox\nan \xff owl\n"[..], BOUNDS).expect_err("refused");
        assert_eq!(e.to_string(), "p.csv:3: not UTF-8 text");
    }

    #[test]
    fn a_file_larger_than_its_bound_is_refused_unread() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.txt");
        std::fs::write(&path, "a fox\n".repeat(100)).expect("write");
        let small = ReadBounds { max_file_bytes: 599, max_line_bytes: 10 };
        let e = file(&path, "p.txt", small).expect_err("refused");
        assert_eq!(e.to_string(), "p.txt: the file is 600 bytes, more than 599 bytes (the [batch] max_file_bytes)");
        let text = file(&path, "p.txt", ReadBounds { max_file_bytes: 600, ..small }).expect("at the bound");
        assert_eq!(text.len(), 600);
        let e = file(&dir.path().join("none.txt"), "none.txt", BOUNDS).expect_err("missing");
        assert!(matches!(e, ReadError::Io { .. }), "{e:?}");
    }

    #[test]
    fn bounds_are_said_as_they_are_set() {
        let cases =
            [(1 << 20, "1 MiB"), (64 << 20, "64 MiB"), (512 << 10, "512 KiB"), (1500, "1,500 bytes"), (0, "0 bytes")];
        for (n, want) in cases {
            assert_eq!(bytes(n), want);
        }
    }
}
