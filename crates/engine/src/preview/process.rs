//! Runs ffmpeg: spawning (a program that cannot start is `NoFfmpeg`), collecting what it says on
//! standard error (capped), and a time limit after which it is killed.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::PreviewError;

/// A hostile or huge file cannot hold a thread longer than this.
pub const TIME_LIMIT: Duration = Duration::from_secs(60);
/// Kept of standard error; the header and the last complaint fit easily.
const STDERR_CAP: usize = 256 * 1024;

/// Starts `program` with `args`; standard input is closed, standard error is piped.
pub fn spawn(program: &str, args: &[OsString], stdout: Stdio) -> Result<Child, PreviewError> {
    Command::new(program).args(args).stdin(Stdio::null()).stdout(stdout).stderr(Stdio::piped()).spawn().map_err(|e| {
        tracing::debug!(program, error = %e, "ffmpeg does not start");
        PreviewError::NoFfmpeg { program: program.to_string() }
    })
}

/// Reads standard error to its end (the program's exit), keeping the first `STDERR_CAP` bytes.
pub fn read_stderr(mut stderr: ChildStderr) -> String {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = STDERR_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// What a finished run left.
#[derive(Debug)]
pub struct Ran {
    pub status: ExitStatus,
    pub stderr: String,
}

/// Runs to the end, or kills it after `limit`. `video` names the input in errors.
pub fn run(program: &str, args: &[OsString], limit: Duration, video: &Path) -> Result<Ran, PreviewError> {
    let mut child = spawn(program, args, Stdio::null())?;
    let Some(stderr) = child.stderr.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(failed(video, "no standard error"));
    };
    let (tx, rx) = mpsc::channel();
    // Standard error ends when ffmpeg exits: the reader's answer is the signal to reap it.
    std::thread::spawn(move || {
        let _ = tx.send(read_stderr(stderr));
    });
    match rx.recv_timeout(limit) {
        Ok(stderr) => {
            let status = child.wait().map_err(|e| failed(video, &e.to_string()))?;
            Ok(Ran { status, stderr })
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(failed(video, &format!("still working after {} s; stopped", limit.as_secs())))
        }
    }
}

pub fn failed(video: &Path, message: &str) -> PreviewError {
    PreviewError::Ffmpeg { path: video.to_path_buf(), message: message.to_string() }
}

/// The last thing ffmpeg complained about, made safe and short for a message.
pub fn last_line(stderr: &str) -> String {
    let line = stderr.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("it gave no reason");
    let line: String = line.chars().take(200).collect();
    reel_rules::text::safe(&line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_line_is_short_and_safe() {
        let cases = [
            ("a\nb: Invalid data found\n\n", "b: Invalid data found"),
            ("", "it gave no reason"),
            ("x\u{1b}[2Jy\n", "x\\u001b[2Jy"),
        ];
        for (text, want) in cases {
            assert_eq!(last_line(text), want, "{text:?}");
        }
        assert_eq!(last_line(&"z".repeat(500)).len(), 200);
    }

    #[test]
    fn a_missing_program_is_no_ffmpeg() {
        let err = run("reel-no-such-ffmpeg", &[], TIME_LIMIT, Path::new("/v.mp4")).expect_err("cannot start");
        assert!(matches!(err, PreviewError::NoFfmpeg { ref program } if program == "reel-no-such-ffmpeg"));
    }

    #[test]
    fn a_program_past_its_time_is_killed() {
        let args = ["-c".into(), "sleep 30".into()];
        let err = run("sh", &args, Duration::from_millis(100), Path::new("/v.mp4")).expect_err("stopped");
        assert!(err.to_string().contains("stopped"), "{err}");
    }
}
