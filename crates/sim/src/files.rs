//! Result files behind signed, expiring URLs: ranges, validators, and the ways a CDN goes wrong.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;
use std::time::{Duration, UNIX_EPOCH};

use hyper::body::Incoming;
use hyper::header;
use hyper::{Method, Request, StatusCode};

use super::hostile::Hostile;
use super::lifecycle::Phase;
use super::range::{self, RangeAnswer};
use super::reply::{Delivery, OVERLONG_EXTRA, Reply};
use super::routes::{query_param, toggle_hop};
use super::state::{SimTask, State, unix_now};

/// How a satisfiable range request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeLie {
    /// 206 with the bytes asked for.
    Honest,
    /// 200 with the whole file.
    Ignored,
    /// 206 claiming the range asked for, carrying as many bytes from the start of the file.
    Lying,
    /// 206 with another range than asked (labelled honestly).
    Mismatch,
}

/// What to answer a range `start..=end` of a `len`-byte file with: status, the `Content-Range`
/// claimed, and the bytes actually sent.
pub fn range_reply(start: u64, end: u64, len: u64, lie: RangeLie) -> (StatusCode, Option<(u64, u64)>, Range<u64>) {
    match lie {
        RangeLie::Honest => (StatusCode::PARTIAL_CONTENT, Some((start, end)), start..end + 1),
        RangeLie::Ignored => (StatusCode::OK, None, 0..len),
        RangeLie::Lying => (StatusCode::PARTIAL_CONTENT, Some((start, end)), 0..end - start + 1),
        RangeLie::Mismatch => {
            let other = if start > 0 { start / 2 } else { 1.min(end) };
            (StatusCode::PARTIAL_CONTENT, Some((other, end)), other..end + 1)
        }
    }
}

/// Whether an `If-Range` validator still matches the file, so the `Range` may be honoured
/// (RFC 9110 section 13.1.5: strong entity tags compared exactly, or the exact date).
pub fn if_range_holds(if_range: Option<&str>, etag: &str, last_modified: &str) -> bool {
    let Some(v) = if_range.map(str::trim) else {
        return true;
    };
    if v.starts_with("W/") {
        false
    } else if v.starts_with('"') {
        v == etag
    } else {
        let date = |d: &str| httpdate::parse_http_date(d).ok();
        date(v).is_some_and(|d| Some(d) == date(last_modified))
    }
}

fn etag(id: &str, version: u32, len: u64) -> String {
    let mut h = DefaultHasher::new();
    (id, version, len).hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

/// The file's modification time: its completion, a second later for each change.
fn last_modified(completed_at: f64, version: u32) -> String {
    let secs = completed_at.max(0.0) as u64 + u64::from(version);
    httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs))
}

/// A hostile redirect of the file URL, if one is due: `(Location, label)`.
fn redirect(state: &State, hostile: &Hostile, req: &Request<Incoming>) -> Option<(String, &'static str)> {
    let (path, query) = (req.uri().path(), req.uri().query().unwrap_or(""));
    if state.fires("file_redirect_loop", hostile.file_redirect_loop) {
        Some((format!("{path}?{}", toggle_hop(query)), "file_redirect_loop"))
    } else if state.fires("file_redirect_path", hostile.file_redirect_path) {
        Some((format!("/mirror{path}?{query}"), "file_redirect_path"))
    } else if state.fires("file_redirect_origin", hostile.file_redirect_origin) {
        let location = format!("{}{}?{query}", state.other_base_url, path.trim_start_matches('/'));
        Some((location, "file_redirect_origin"))
    } else if state.fires("file_redirect_scheme", hostile.file_redirect_scheme) {
        Some(("file:///etc/passwd".to_string(), "file_redirect_scheme"))
    } else {
        None
    }
}

/// Serves a result file. `redirectable` is false on redirect targets (the mirror path, the
/// second origin) so that redirects end; `truncate` is the fault rolled for this request.
pub fn serve(
    state: &State,
    hostile: &Hostile,
    req: &Request<Incoming>,
    id: &str,
    redirectable: bool,
    truncate: bool,
) -> (Reply, Option<&'static str>) {
    let query = req.uri().query().unwrap_or("");
    let not_found = || (Reply::error(StatusCode::NOT_FOUND, "not_found", "no such file"), None);
    let Some(task) = state.get(id) else {
        return not_found();
    };
    if task.timeline.phase(task.created.elapsed()) != Phase::Completed {
        return not_found();
    }
    let expires = query_param(query, "expires").and_then(|e| e.parse::<u64>().ok());
    let signed = expires.is_some_and(|e| query_param(query, "sig") == Some(state.sign(id, e).as_str()));
    if !signed {
        let r = Reply::error(StatusCode::FORBIDDEN, "invalid_signature", "the URL signature does not match");
        return (r, None);
    }
    if expires.is_some_and(|e| (unix_now() * 1000.0) as u64 >= e) {
        let r = Reply::error(StatusCode::FORBIDDEN, "url_expired", "the URL has expired; fetch the task again");
        return (r, None);
    }
    if let Some((location, label)) = redirectable.then(|| redirect(state, hostile, req)).flatten() {
        return (Reply::redirect(StatusCode::FOUND, &location), Some(label));
    }
    if state.fires("file_403", hostile.file_403) {
        return (Reply::error(StatusCode::FORBIDDEN, "forbidden", "access to this file is denied"), Some("file_403"));
    }
    if state.fires("file_410", hostile.file_410) {
        return (Reply::error(StatusCode::GONE, "gone", "this file was deleted"), Some("file_410"));
    }
    serve_bytes(state, hostile, req, &task, true, truncate)
}

/// The bytes of a completed task's file, with its validators, the `Range` honoured when
/// `ranges` (else every answer is the whole file, 200), and the hostile deliveries that are due.
pub fn serve_bytes(
    state: &State,
    hostile: &Hostile,
    req: &Request<Incoming>,
    task: &SimTask,
    ranges: bool,
    truncate: bool,
) -> (Reply, Option<&'static str>) {
    let changed = state.fires("file_changes", hostile.file_changes);
    let mut label = changed.then_some("file_changes");
    let (version, video) = if changed { task.change_file() } else { task.file() };
    let len = video.len() as u64;
    let (etag, last_modified) = (etag(&task.id, version, len), last_modified(task.completed_at(), version));
    let header = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
    let range_header =
        header(header::RANGE).filter(|_| ranges && if_range_holds(header(header::IF_RANGE), &etag, &last_modified));
    let (status, claim, bytes) = match range::answer(range_header, len) {
        RangeAnswer::Whole => (StatusCode::OK, None, 0..len),
        RangeAnswer::Part { start, end } => {
            let lie = if state.fires("range_ignored", hostile.range_ignored) {
                RangeLie::Ignored
            } else if start > 0 && state.fires("range_lying", hostile.range_lying) {
                RangeLie::Lying
            } else if state.fires("range_mismatch", hostile.range_mismatch) {
                RangeLie::Mismatch
            } else {
                RangeLie::Honest
            };
            label = match lie {
                RangeLie::Honest => label,
                RangeLie::Ignored => Some("range_ignored"),
                RangeLie::Lying => Some("range_lying"),
                RangeLie::Mismatch => Some("range_mismatch"),
            };
            range_reply(start, end, len, lie)
        }
        RangeAnswer::Unsatisfiable => {
            let r = Reply::error(StatusCode::RANGE_NOT_SATISFIABLE, "range", "the range starts past the end")
                .with(header::CONTENT_RANGE, &format!("bytes */{len}"));
            return (r, label);
        }
    };
    let part = video.slice(bytes.start as usize..bytes.end.min(len) as usize);
    let part_len = part.len();
    let mut r = Reply::new(status, part)
        .with(header::CONTENT_TYPE, "video/mp4")
        .with(header::ACCEPT_RANGES, "bytes")
        .with(header::CONTENT_LENGTH, &part_len.to_string())
        .with(header::ETAG, &etag)
        .with(header::LAST_MODIFIED, &last_modified);
    if let Some((start, end)) = claim {
        r = r.with(header::CONTENT_RANGE, &format!("bytes {start}-{end}/{len}"));
    }
    if req.method() == Method::HEAD {
        r.body = bytes::Bytes::new();
    } else if truncate && part_len >= 2 {
        r.delivery = Delivery::Truncated;
    } else if state.fires("file_endless", hostile.file_endless) {
        r.headers.remove(header::CONTENT_LENGTH);
        r.delivery = Delivery::Endless(b"\0");
        label = Some("file_endless");
    } else if state.fires("file_cut_clean", hostile.file_cut_clean) {
        r.headers.remove(header::CONTENT_LENGTH);
        r.body = r.body.slice(..part_len / 2);
        r.delivery = Delivery::Unframed;
        label = Some("file_cut_clean");
    } else if state.fires("overlong", hostile.overlong) {
        r.delivery = Delivery::Raw { pace: None, extra: OVERLONG_EXTRA };
        label = Some("overlong");
    } else if state.fires("trickle", hostile.trickle) {
        r.delivery = Delivery::Trickle { head: hostile.trickle_head as usize, every: hostile.trickle_every };
        label = Some("trickle");
    } else if let Some(rate) = state.config.file_rate {
        r.delivery = Delivery::Throttled(rate);
    }
    (r, label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_replies() {
        let (p, ok) = (StatusCode::PARTIAL_CONTENT, StatusCode::OK);
        let cases = [
            ((10, 99, RangeLie::Honest), (p, Some((10, 99)), 10..100)),
            ((10, 99, RangeLie::Ignored), (ok, None, 0..100)),
            ((10, 99, RangeLie::Lying), (p, Some((10, 99)), 0..90)),
            ((10, 99, RangeLie::Mismatch), (p, Some((5, 99)), 5..100)),
            ((0, 99, RangeLie::Mismatch), (p, Some((1, 99)), 1..100)),
        ];
        for ((start, end, lie), want) in cases {
            assert_eq!(range_reply(start, end, 100, lie), want, "{start}-{end} {lie:?}");
        }
    }

    #[test]
    fn if_range_validators() {
        let (etag, date) = ("\"abc\"", "Sun, 06 Nov 1994 08:49:37 GMT");
        let cases = [
            (None, true),
            (Some("\"abc\""), true),
            (Some("\"abd\""), false),
            (Some("W/\"abc\""), false),
            (Some(date), true),
            (Some("Sun, 06 Nov 1994 08:49:38 GMT"), false),
            (Some("yesterday"), false),
        ];
        for (value, want) in cases {
            assert_eq!(if_range_holds(value, etag, date), want, "{value:?}");
        }
    }

    #[test]
    fn validators_change_with_the_version() {
        assert_ne!(etag("t", 0, 10), etag("t", 1, 10));
        assert_ne!(last_modified(1e9, 0), last_modified(1e9, 1));
        assert_eq!(last_modified(784_111_777.0, 0), "Sun, 06 Nov 1994 08:49:37 GMT");
    }
}
