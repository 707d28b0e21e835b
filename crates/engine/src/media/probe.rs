//! Duration of a remote medium with `ffprobe`, which reads only the headers it needs (ranged
//! requests), when it is installed. Any failure is "unknown here": the caller falls back.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// What `ffprobe` said.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    Seconds(f64),
    /// The program is not installed (not on the PATH).
    Missing,
    /// It ran but gave no duration: why, for the log.
    Failed(String),
}

/// Protocols ffprobe may open: the URL's own, never `file:` or others a playlist could name.
const PROTOCOLS: &str = "http,https,tcp,tls,crypto";

/// The arguments for one URL.
pub fn arguments(url: &str) -> Vec<String> {
    let fixed = ["-v", "error", "-protocol_whitelist", PROTOCOLS, "-show_entries", "format=duration", "-of", "csv=p=0"];
    fixed.iter().map(|s| s.to_string()).chain([url.to_string()]).collect()
}

/// Seconds from ffprobe's output (`8.000000`, or `N/A` when it cannot tell).
pub fn parse(stdout: &str) -> Option<f64> {
    let s = stdout.lines().map(str::trim).find(|l| !l.is_empty())?.parse::<f64>().ok()?;
    (s.is_finite() && s > 0.0).then_some(s)
}

/// Runs `program` (normally `ffprobe`) on `url`, killed after `timeout`.
pub async fn duration(program: &str, url: &str, timeout: Duration) -> Probe {
    let child = Command::new(program)
        .args(arguments(url))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(timeout, child).await {
        Err(_) => Probe::Failed(format!("{program} did not finish within {} s", timeout.as_secs())),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => Probe::Missing,
        Ok(Err(e)) => Probe::Failed(format!("{program} could not be run: {e}")),
        Ok(Ok(out)) => match parse(&String::from_utf8_lossy(&out.stdout)) {
            Some(s) if out.status.success() => Probe::Seconds(s),
            _ => Probe::Failed(format!(
                "{program} gave no duration ({}): {}",
                out.status,
                reel_rules::text::excerpt(&String::from_utf8_lossy(&out.stderr), 200)
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_parsing() {
        let cases = [
            ("8.000000\n", Some(8.0)),
            ("  4.533333 \n", Some(4.533333)),
            ("\n3.5\n", Some(3.5)),
            ("N/A\n", None),
            ("0.000000\n", None),
            ("-1\n", None),
            ("nan\n", None),
            ("", None),
        ];
        for (out, want) in cases {
            assert_eq!(parse(out), want, "{out:?}");
        }
        assert_eq!(arguments("https://x.example/v.mp4").last().map(String::as_str), Some("https://x.example/v.mp4"));
    }

    #[tokio::test]
    async fn a_missing_program_is_missing() {
        let got = duration("reel-no-such-ffprobe", "http://127.0.0.1:9/v.mp4", Duration::from_secs(5)).await;
        assert_eq!(got, Probe::Missing);
    }
}
