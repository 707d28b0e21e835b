//! Streaming a result file, resuming from an offset with a Range request.

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_RANGE, RANGE};
use url::Url;

use super::client::{Client, map_transport, retry_after_of};
use super::error::{ApiError, Endpoint, error_for_status};

/// An open download. `start` is the offset of the first byte this stream yields.
#[derive(Debug)]
pub struct Download {
    response: reqwest::Response,
    url: Url,
    pub start: u64,
    /// Size of the whole file, when the server says.
    pub total: Option<u64>,
}

/// `Content-Range: bytes first-last/total` → (first, total).
pub fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    let (first, last) = range.split_once('-')?;
    let (first, last): (u64, u64) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    (first <= last).then_some((first, total))
}

impl Client {
    /// Opens `url` from byte `offset`. No Authorization header is sent: file URLs live on
    /// another host (a CDN), which must never see the API key.
    pub async fn open_download(&self, url: &str, offset: u64) -> Result<Download, ApiError> {
        let bad = |reason: &str| ApiError::BadUrl { url: url.chars().take(200).collect(), reason: reason.into() };
        let parsed = Url::parse(url).map_err(|e| bad(&e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad("only http and https URLs are downloaded"));
        }
        let mut request = self.http.get(parsed.clone());
        if offset > 0 {
            request = request.header(RANGE, format!("bytes={offset}-"));
        }
        let timeout = self.options.request_timeout;
        let response = request.send().await.map_err(|e| map_transport(e, &parsed, timeout))?;
        let status = response.status();
        // The path only: a signed URL's query is a credential of sorts.
        tracing::info!(path = parsed.path(), offset, status = status.as_u16(), "file http");
        let range = response.headers().get(CONTENT_RANGE).and_then(|v| v.to_str().ok()).map(str::to_string);
        match status {
            StatusCode::OK => {
                let total = response.content_length();
                Ok(Download { response, url: parsed, start: 0, total })
            }
            StatusCode::PARTIAL_CONTENT => {
                let (first, total) = range
                    .as_deref()
                    .and_then(parse_content_range)
                    .ok_or_else(|| ApiError::BadRange { detail: format!("Content-Range {range:?}") })?;
                if first != offset {
                    return Err(ApiError::BadRange { detail: format!("bytes from {first} when {offset} was asked") });
                }
                Ok(Download { response, url: parsed, start: first, total })
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                let total = range.as_deref().and_then(|r| r.trim().strip_prefix("bytes */")?.parse().ok());
                Err(ApiError::RangeNotSatisfiable { offset, total })
            }
            _ => {
                let retry_after = retry_after_of(response.headers());
                let body = response.bytes().await.unwrap_or_default();
                Err(error_for_status(Endpoint::File, status.as_u16(), retry_after, &body))
            }
        }
    }
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
            ("bytes 100-199/1000", Some((100, Some(1000)))),
            ("bytes 0-0/1", Some((0, Some(1)))),
            ("bytes 5-9/*", Some((5, None))),
            ("bytes  7-8/9", Some((7, Some(9)))),
            ("bytes 9-5/10", None),
            ("items 0-1/2", None),
            ("bytes */1000", None),
            ("bytes x-1/2", None),
        ];
        for (value, want) in cases {
            assert_eq!(parse_content_range(value), want, "{value}");
        }
    }
}
