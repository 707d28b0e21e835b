//! The log file written in whole lines: `reel.YYYY-MM-DD.log` (UTC), a new one each day, the
//! last few kept. A write that fails (a full disk) leaves no half line: the file is cut back to
//! where the line began, the line is counted as lost, and the next line that fits says how many
//! were lost. Logging never stops for good and never fails the program.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use reel_store::disk::{self, Site};

pub struct WholeLines {
    dir: PathBuf,
    kept: usize,
    open: Option<Open>,
    /// Lines lost since the last one written.
    lost: u64,
}

struct Open {
    day: String,
    path: PathBuf,
    file: File,
}

/// The file name for a day: the names tracing-appender used, so older files are still found.
pub fn file_name(day: &str) -> String {
    format!("reel.{day}.log")
}

fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

impl WholeLines {
    pub fn new(dir: &Path, kept: usize) -> WholeLines {
        WholeLines { dir: dir.to_path_buf(), kept: kept.max(1), open: None, lost: 0 }
    }

    /// The file of `day`, opened (and older files pruned) when the day changes.
    fn file(&mut self, day: &str) -> io::Result<&mut Open> {
        if self.open.as_ref().is_none_or(|o| o.day != day) {
            let path = self.dir.join(file_name(day));
            let file = OpenOptions::new().create(true).append(true).open(&path)?;
            self.open = Some(Open { day: day.to_string(), path, file });
            self.prune();
        }
        self.open.as_mut().ok_or_else(|| io::Error::other("no log file"))
    }

    /// Removes the oldest files beyond `kept`.
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut logs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("reel.") && n.ends_with(".log"))
            })
            .collect();
        logs.sort();
        let extra = logs.len().saturating_sub(self.kept);
        for old in &logs[..extra] {
            let _ = std::fs::remove_file(old);
        }
    }

    /// Writes `lines` (one or more whole lines) to the file of `day`, or none of them.
    pub fn write_day(&mut self, day: &str, lines: &[u8]) {
        let lost = self.lost;
        let notice = (lost > 0).then(|| {
            let at = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.6fZ");
            format!("{at}  WARN crate::logging: {lost} log lines were lost: the disk was full\n")
        });
        let written = self.file(day).and_then(|open| {
            let mut out = Vec::with_capacity(lines.len() + 100);
            out.extend_from_slice(notice.as_deref().unwrap_or_default().as_bytes());
            out.extend_from_slice(lines);
            // The length now, not remembered: other reel processes append to the same file.
            let before = open.file.metadata()?.len();
            let tried = disk::check(Site::Log, &open.path).and_then(|()| open.file.write_all(&out));
            if tried.is_err() {
                // Cut what part of it went in: the file ends with a whole line.
                let _ = open.file.set_len(before);
            }
            tried
        });
        match written {
            Ok(()) => self.lost = 0,
            Err(_) => {
                // Opened again for the next line (the file may have been removed or rotated).
                self.open = None;
                self.lost += bytecount_lines(lines);
            }
        }
    }
}

fn bytecount_lines(lines: &[u8]) -> u64 {
    (lines.iter().filter(|b| **b == b'\n').count() as u64).max(1)
}

impl Write for WholeLines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_day(&today(), buf);
        // Never an error: a line the disk has no room for is counted as lost, not retried.
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(dir: &Path, day: &str) -> String {
        std::fs::read_to_string(dir.join(file_name(day))).unwrap_or_default()
    }

    #[test]
    fn a_full_disk_loses_whole_lines_and_says_how_many_when_there_is_room() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut log = WholeLines::new(dir.path(), 7);
        log.write_day("2026-11-28", b"one\n");
        disk::inject::arm(Site::Log, dir.path());
        log.write_day("2026-11-28", b"two\n");
        log.write_day("2026-11-28", b"three\nfour\n");
        disk::inject::disarm(dir.path());
        log.write_day("2026-11-28", b"five\n");
        let text = read(dir.path(), "2026-11-28");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "one");
        assert!(lines[1].ends_with("WARN crate::logging: 3 log lines were lost: the disk was full"), "{text}");
        assert_eq!(lines[2], "five");
        assert!(text.ends_with('\n'), "whole lines only");
    }

    #[test]
    fn a_write_cut_short_by_a_full_disk_is_taken_back() {
        let Some(small) = reel_store::disk::testing::Tmpfs::mount(64 * 1024) else { return };
        let mut log = WholeLines::new(small.path(), 7);
        let line = format!("{}\n", "x".repeat(999));
        for _ in 0..200 {
            log.write_day("2026-11-28", line.as_bytes());
        }
        let text = read(small.path(), "2026-11-28");
        assert!(!text.is_empty() && text.len().is_multiple_of(line.len()), "whole lines only ({} bytes)", text.len());
        assert!(log.lost > 0, "the disk filled");
    }

    #[test]
    fn a_new_day_starts_a_new_file_and_old_ones_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut log = WholeLines::new(dir.path(), 2);
        for day in ["2026-11-25", "2026-11-26", "2026-11-27"] {
            log.write_day(day, format!("{day}\n").as_bytes());
        }
        assert_eq!(read(dir.path(), "2026-11-25"), "", "the oldest beyond two is removed");
        assert_eq!(read(dir.path(), "2026-11-26"), "2026-11-26\n");
        assert_eq!(read(dir.path(), "2026-11-27"), "2026-11-27\n");
    }
}
