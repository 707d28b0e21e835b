//! The preflight's I/O: each media URL is checked before a submission is sent. A HEAD (a
//! small ranged GET where HEAD is refused or gives no type), then for reference video and audio
//! the duration: ffprobe when installed, else the MP4 or WAV header from ranged GETs. Never a
//! whole file. The decisions are in [`super::verdict`], pure.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, RANGE};
use reqwest::{Client, Response, StatusCode, redirect};

use super::probe::{self, Probe};
pub use super::verdict::{Checked, Item, PreflightError, Reason};
use super::verdict::{Observed, Source, verdict};
use super::{mp4, wav};
use reel_rules::Draft;

/// Bytes read from the start of a file (and of a later window of an MP4).
pub const WINDOW: u64 = 64 * 1024;
/// Windows of an MP4 read at most while looking for its `moov`.
const MAX_WINDOWS: usize = 4;

/// How the checks run; `ffprobe: None` leaves it out (tests, or a user without it).
#[derive(Debug, Clone)]
pub struct Options {
    /// Per HTTP request, answer and body.
    pub timeout: Duration,
    /// The ffprobe program to run, looked up on the PATH.
    pub ffprobe: Option<String>,
    pub probe_timeout: Duration,
    /// Items checked at once.
    pub concurrency: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(5),
            ffprobe: Some("ffprobe".into()),
            probe_timeout: Duration::from_secs(15),
            concurrency: 4,
        }
    }
}

/// An HTTP client for media URLs: redirects followed (a few), no API key ever.
pub fn client() -> Result<Client, reqwest::Error> {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // Fails only when a provider is installed already, which is what we want anyway.
    ONCE.call_once(|| drop(rustls::crypto::ring::default_provider().install_default()));
    Client::builder()
        .redirect(redirect::Policy::limited(5))
        .user_agent(concat!("reel/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Checks every item, a few at once; the answers are in the order of `items`.
pub async fn check(http: &Client, items: &[Item], options: &Options) -> Vec<Result<Checked, PreflightError>> {
    // The futures are made first: a closure inside the stream would keep the whole future from
    // being `Send` (rustc cannot prove it for every lifetime), and the dashboard spawns it.
    let checks: Vec<_> = items.iter().map(|item| check_one(http, item, options)).collect();
    futures_util::stream::iter(checks).buffered(options.concurrency.max(1)).collect().await
}

/// Every media URL of `draft` checked: the draft with the measured durations in place and what
/// each item was found to be, or each failing item with its reason (nothing is sent then).
pub async fn check_draft(draft: &Draft) -> Result<(Draft, Vec<Checked>), Vec<String>> {
    let http = client().map_err(|e| vec![format!("cannot check the media URLs: {e}")])?;
    let results = check(&http, &super::measured::items(draft), &Options::default()).await;
    let (passed, failed): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
    if !failed.is_empty() {
        return Err(failed.into_iter().filter_map(Result::err).map(|e| e.to_string()).collect());
    }
    let passed: Vec<Checked> = passed.into_iter().flatten().collect();
    Ok((super::measured::with_measured(draft, &passed), passed))
}

async fn check_one(http: &Client, item: &Item, options: &Options) -> Result<Checked, PreflightError> {
    let fail = |reason| PreflightError { item: item.clone(), reason };
    let head = send(http.head(&item.url), options).await.map_err(fail)?;
    let mut seen = Observed {
        status: head.status().as_u16(),
        content_type: header(&head, CONTENT_TYPE),
        length: header(&head, CONTENT_LENGTH).and_then(|l| l.parse().ok()),
        ..Observed::default()
    };
    let refused = matches!(seen.status, 403 | 405 | 501);
    if refused || (head.status().is_success() && super::verdict::needs_first_bytes(seen.content_type.as_deref())) {
        seen = window(http, &item.url, 0, options).await.map_err(fail)?.seen;
    }
    let checked = verdict(item, &seen)?;
    if item.kind.max_total_seconds().is_none() {
        return Ok(checked);
    }
    seen.duration = measure(http, item, &mut seen, options).await;
    verdict(item, &seen)
}

/// The duration of a reference video or audio, if it can be read.
async fn measure(http: &Client, item: &Item, seen: &mut Observed, options: &Options) -> Option<(f64, Source)> {
    if let Some(program) = &options.ffprobe {
        match probe::duration(program, &item.url, options.probe_timeout).await {
            Probe::Seconds(s) => return Some((s, Source::Ffprobe)),
            Probe::Missing => tracing::debug!("{program} is not installed; reading media headers instead"),
            Probe::Failed(why) => tracing::info!("media item {}: {why}", item.index + 1),
        }
    }
    if seen.first_bytes.is_empty() {
        seen.first_bytes = window(http, &item.url, 0, options).await.ok()?.seen.first_bytes;
    }
    if let Some(s) = wav::seconds(&seen.first_bytes, seen.length) {
        return Some((s, Source::WavHeader));
    }
    let mut scan = mp4::scan(&seen.first_bytes, 0);
    for _ in 1..MAX_WINDOWS {
        let mp4::Scan::ReadAt(at) = scan else { break };
        if seen.length.is_some_and(|len| at >= len) {
            break;
        }
        let next = window(http, &item.url, at, options).await.ok()?;
        // A server that ignores the range sends the start again: nothing more to learn.
        if next.seen.status != 206 || next.start != Some(at) {
            break;
        }
        scan = mp4::scan(&next.seen.first_bytes, at);
    }
    match scan {
        mp4::Scan::Seconds(s) => Some((s, Source::Mp4Header)),
        _ => None,
    }
}

/// Sends a request with the per-request timeout; errors become reasons.
async fn send(request: reqwest::RequestBuilder, options: &Options) -> Result<Response, Reason> {
    request.timeout(options.timeout).send().await.map_err(|e| reason(&e, options))
}

fn reason(e: &reqwest::Error, options: &Options) -> Reason {
    if e.is_timeout() {
        return Reason::TimedOut(options.timeout.as_secs());
    }
    if e.is_redirect() {
        return Reason::Unreachable("too many redirects".into());
    }
    // The innermost cause says what happened ("Connection refused"); reqwest's own is generic.
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    Reason::Unreachable(reel_rules::text::one_line(&cause.to_string()))
}

fn header(r: &Response, name: reqwest::header::HeaderName) -> Option<String> {
    r.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// What a ranged GET saw; `seen.first_bytes` holds the bytes read (from `start`).
struct Window {
    seen: Observed,
    /// Where the bytes start, by the Content-Range of a 206.
    start: Option<u64>,
}

/// A ranged GET of [`WINDOW`] bytes from `at`, reading at most that many bytes even from a
/// server that ignores the range and sends the whole file.
async fn window(http: &Client, url: &str, at: u64, options: &Options) -> Result<Window, Reason> {
    let range = format!("bytes={at}-{}", at.saturating_add(WINDOW - 1));
    let mut r = send(http.get(url).header(RANGE, range), options).await?;
    let content_range = header(&r, CONTENT_RANGE);
    let length = match r.status() {
        StatusCode::PARTIAL_CONTENT => content_range.as_deref().and_then(range_total),
        _ => header(&r, CONTENT_LENGTH).and_then(|l| l.parse().ok()),
    };
    let status = r.status().as_u16();
    let content_type = header(&r, CONTENT_TYPE);
    let start = content_range.as_deref().filter(|_| status == 206).and_then(range_start);
    let mut bytes = Vec::new();
    if r.status().is_success() {
        let read = async {
            while (bytes.len() as u64) < WINDOW {
                match r.chunk().await {
                    Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
                    Ok(None) => break,
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        };
        tokio::time::timeout(options.timeout, read)
            .await
            .map_err(|_| Reason::TimedOut(options.timeout.as_secs()))?
            .map_err(|e| reason(&e, options))?;
        bytes.truncate(WINDOW as usize);
    }
    Ok(Window { seen: Observed { status, content_type, length, first_bytes: bytes, duration: None }, start })
}

/// `bytes 0-65535/1234567` → 1234567 (`*` when the server does not know: none).
fn range_total(content_range: &str) -> Option<u64> {
    content_range.rsplit_once('/')?.1.trim().parse().ok()
}

/// `bytes 100-199/1000` → 100.
fn range_start(content_range: &str) -> Option<u64> {
    content_range.trim().strip_prefix("bytes")?.trim().split_once('-')?.0.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges() {
        let cases = [
            ("bytes 0-65535/1234567", Some(0), Some(1_234_567)),
            ("bytes 100-199/1000", Some(100), Some(1000)),
            ("bytes 0-9/*", Some(0), None),
            ("items 0-9/10", None, Some(10)),
            ("", None, None),
        ];
        for (text, start, total) in cases {
            assert_eq!((range_start(text), range_total(text)), (start, total), "{text}");
        }
    }
}
