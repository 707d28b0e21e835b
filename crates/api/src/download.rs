//! Streaming a result file, resuming from an offset with a Range request.

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_RANGE, ETAG, HeaderMap, IF_RANGE, LAST_MODIFIED, LOCATION, RANGE};
use serde::{Deserialize, Serialize};
use url::Url;

use super::client::{Client, MAX_ANSWER_BYTES, map_transport, read_capped, retry_after_of};
use super::error::{ApiError, Endpoint, error_for_status};

/// What identifies one version of a file, so that a resume is refused by the server (it sends
/// the whole file instead) when the file changed (`If-Range`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validator {
    /// A strong ETag (weak ones cannot be used with If-Range).
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validator {
    fn of(headers: &HeaderMap) -> Validator {
        let text = |name| headers.get(name).and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok());
        Validator {
            etag: text(ETAG).filter(|e| !e.starts_with("W/")).map(str::to_string),
            last_modified: text(LAST_MODIFIED).map(str::to_string),
        }
    }

    fn if_range(&self) -> Option<&str> {
        self.etag.as_deref().or(self.last_modified.as_deref())
    }
}

/// An open download. `start` is the offset of the first byte this stream yields.
#[derive(Debug)]
pub struct Download {
    response: reqwest::Response,
    url: Url,
    pub start: u64,
    /// Size of the whole file, when the server says.
    pub total: Option<u64>,
    /// Bytes this answer carries, when the server says.
    pub length: Option<u64>,
    pub validator: Validator,
}

/// `Content-Range: bytes first-last/total` → (first, last, total).
pub fn parse_content_range(value: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    let (first, last) = range.split_once('-')?;
    let (first, last): (u64, u64) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    (first <= last && total.is_none_or(|t| last < t)).then_some((first, last, total))
}

/// Longest result URL reel fetches: signed CDN URLs run to one or two thousand characters, and
/// servers commonly refuse request lines past 8 KiB.
pub const MAX_URL_CHARS: usize = 4096;

/// A URL as shown in a message: its first 100 characters, escaped.
pub fn shown_url(url: &str) -> String {
    let mut shown: String = url.chars().take(100).flat_map(char::escape_debug).collect();
    if url.chars().nth(100).is_some() {
        shown.push('…');
    }
    shown
}

/// Why reel cannot or will not fetch `url`, in words; `None` for an absolute http(s) URL with a
/// host, of a sane length.
pub fn url_problem(url: &str) -> Option<String> {
    let chars = url.chars().count();
    if chars > MAX_URL_CHARS {
        return Some(format!("it is {chars} characters long, more than the {MAX_URL_CHARS} reel fetches"));
    }
    let parsed = match Url::parse(url) {
        Ok(parsed) => parsed,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            return Some("it is a relative URL, with no server named to fetch it from".into());
        }
        Err(e) => return Some(format!("it is malformed ({e})")),
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Some(format!("it is a {}: URL; reel fetches only http and https", parsed.scheme()));
    }
    parsed.host_str().is_none_or(str::is_empty).then(|| "it names no server".into())
}

/// Why a redirect was not followed: `location` relative to `from`.
fn redirect_refused(status: u16, location: &str, from: &Url) -> String {
    match from.join(location) {
        Ok(next) if !matches!(next.scheme(), "http" | "https") => format!(
            "an HTTP {status} to a {}: URL (\"{}\"), which reel does not follow: only http and https",
            next.scheme(),
            shown_url(location)
        ),
        _ => format!("an HTTP {status} to \"{}\" that was not followed", shown_url(location)),
    }
}

impl Client {
    /// Opens `url` from byte `offset`; with `validator` (from an earlier answer for the same
    /// file) the server sends the whole file instead if it changed. No Authorization header is
    /// sent: file URLs live on another host (a CDN), which must never see the API key.
    pub async fn open_download(&self, url: &str, offset: u64, validator: &Validator) -> Result<Download, ApiError> {
        let bad = |reason: &str| ApiError::BadUrl { url: url.chars().take(200).collect(), reason: reason.into() };
        if let Some(why) = url_problem(url) {
            return Err(bad(&why));
        }
        let parsed = Url::parse(url).map_err(|e| bad(&e.to_string()))?;
        let request = with_range(self.files.get(parsed.clone()), offset, validator);
        let timeout = self.options.request_timeout;
        let response = request.send().await.map_err(|e| map_transport(e, &parsed, timeout))?;
        self.opened(response, parsed, offset, Endpoint::File).await
    }

    /// An answer to a file request as an open download, or the error it says. `endpoint` is
    /// `File` for a plain file URL and `Content` for the service's own file route.
    pub(super) async fn opened(
        &self,
        response: reqwest::Response,
        parsed: Url,
        offset: u64,
        endpoint: Endpoint,
    ) -> Result<Download, ApiError> {
        let timeout = self.options.request_timeout;
        let status = response.status();
        // The path only: a signed URL's query is a credential of sorts.
        tracing::info!(path = parsed.path(), offset, status = status.as_u16(), "file http");
        let range = response.headers().get(CONTENT_RANGE).and_then(|v| v.to_str().ok()).map(str::to_string);
        let validator = Validator::of(response.headers());
        let length = response.content_length();
        match status {
            StatusCode::OK => Ok(Download { response, url: parsed, start: 0, total: length, length, validator }),
            StatusCode::PARTIAL_CONTENT => {
                let bad_range = |detail: String| ApiError::BadRange { detail };
                let (first, last, total) = range
                    .as_deref()
                    .and_then(parse_content_range)
                    .ok_or_else(|| bad_range(format!("Content-Range {range:?}")))?;
                if first != offset {
                    return Err(bad_range(format!("bytes from {first} when {offset} was asked")));
                }
                if let Some(total) = total
                    && last + 1 != total
                {
                    return Err(bad_range(format!(
                        "bytes {first}-{last} of {total} when all from {offset} were asked"
                    )));
                }
                if length.is_some_and(|n| n != last - first + 1) {
                    return Err(bad_range(format!("Content-Range {first}-{last} with Content-Length {length:?}")));
                }
                Ok(Download { response, url: parsed, start: first, total, length, validator })
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                let total = range.as_deref().and_then(|r| r.trim().strip_prefix("bytes */")?.parse().ok());
                Err(ApiError::RangeNotSatisfiable { offset, total })
            }
            _ if status.is_redirection() => {
                // A redirect the files client did not follow (its policy refuses other schemes,
                // and a Location it cannot resolve comes back as the answer itself).
                let location =
                    response.headers().get(LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                let detail = match location {
                    Some(location) => redirect_refused(status.as_u16(), &location, &parsed),
                    None => format!("an HTTP {} without a Location", status.as_u16()),
                };
                Err(ApiError::Redirect { detail })
            }
            _ => {
                let retry_after = retry_after_of(response.headers(), self.options.max_retry_after);
                let body = read_capped(response, MAX_ANSWER_BYTES, &parsed, timeout).await.unwrap_or_default();
                Err(error_for_status(endpoint, status.as_u16(), retry_after, &body))
            }
        }
    }
}

/// A file request from byte `offset`: `Range` from there, and `If-Range` with the validator of
/// an earlier answer, so that a changed file comes whole.
pub(super) fn with_range(
    mut request: reqwest::RequestBuilder,
    offset: u64,
    validator: &Validator,
) -> reqwest::RequestBuilder {
    if offset > 0 {
        request = request.header(RANGE, format!("bytes={offset}-"));
        if let Some(v) = validator.if_range() {
            request = request.header(IF_RANGE, v);
        }
    }
    request
}

impl Download {
    /// The next piece of the file; `None` at the end. A broken transfer is a `Network` error.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, ApiError> {
        self.response.chunk().await.map_err(|e| map_transport(e, &self.url, std::time::Duration::ZERO))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges() {
        let cases = [
            ("bytes 100-199/1000", Some((100, 199, Some(1000)))),
            ("bytes 0-0/1", Some((0, 0, Some(1)))),
            ("bytes 5-9/*", Some((5, 9, None))),
            ("bytes  7-8/9", Some((7, 8, Some(9)))),
            ("bytes 7-9/9", None),
            ("bytes 9-5/10", None),
            ("items 0-1/2", None),
            ("bytes */1000", None),
            ("bytes x-1/2", None),
        ];
        for (value, want) in cases {
            assert_eq!(parse_content_range(value), want, "{value}");
        }
    }

    #[test]
    fn urls_reel_will_not_fetch_say_why() {
        let long = format!("https://cdn.example/{}", "a".repeat(5000));
        let cases = [
            ("https://cdn.example/v.mp4?sig=1", None),
            ("http://127.0.0.1:8080/files/0.mp4", None),
            ("/files/0.mp4", Some("it is a relative URL, with no server named to fetch it from")),
            ("http://[::1", Some("it is malformed (invalid IPv6 address)")),
            ("file:///etc/passwd", Some("it is a file: URL; reel fetches only http and https")),
            ("ftp://127.0.0.1/v.mp4", Some("it is a ftp: URL; reel fetches only http and https")),
            ("javascript:alert(1)", Some("it is a javascript: URL; reel fetches only http and https")),
            ("", Some("it is a relative URL, with no server named to fetch it from")),
            (&long, Some("it is 5020 characters long, more than the 4096 reel fetches")),
        ];
        for (url, want) in cases {
            assert_eq!(url_problem(url).as_deref(), want, "{}", shown_url(url));
        }
    }

    #[test]
    fn refused_redirects_name_the_scheme() {
        let from = Url::parse("https://cdn.example/files/0.mp4").expect("url");
        assert_eq!(
            redirect_refused(302, "file:///etc/passwd", &from),
            "an HTTP 302 to a file: URL (\"file:///etc/passwd\"), which reel does not follow: only http and https"
        );
        assert_eq!(redirect_refused(301, "/other", &from), "an HTTP 301 to \"/other\" that was not followed");
        assert_eq!(shown_url(&"x".repeat(150)).chars().count(), 101);
    }
}
