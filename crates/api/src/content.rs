//! The service's own file route, `GET {base}/v1/videos/{id}/content` (OpenAI's Videos API,
//! new-api's `VideoProxy`): where a service that answers a finished task without a URL serves
//! its file. It is the one download that carries the API key, and only to the API's origin.

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, LOCATION};
use url::Url;

use super::client::{Client, MAX_REDIRECTS, encode_segment, map_transport, unusable_task_id};
use super::download::{Download, Validator, shown_url, with_range};
use super::error::{ApiError, Endpoint};

/// Where a task's file is fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file URL the service gave: fetched without the key, as from any CDN.
    File(String),
    /// The task's file route on the service itself, fetched with the key.
    Content { task_id: String },
}

/// `{base}v1/videos/{id}/content`, the id as one percent-encoded segment. It holds no secret:
/// it is what the journal, the sidecar and the views show as the task's URL.
pub fn content_route(base_url: &str, task_id: &str) -> String {
    format!("{}/v1/videos/{}/content", base_url.trim_end_matches('/'), encode_segment(task_id))
}

impl Client {
    /// The source of a task's file: its file route when `url` is exactly that route on this
    /// service (set by reel for a task that came without a URL, or sent so by a gateway),
    /// otherwise a plain file URL, which never gets the key.
    pub fn source_of(&self, url: &str, task_id: Option<&str>) -> Source {
        match task_id {
            Some(id) if unusable_task_id(id).is_none() && url == content_route(self.base_url(), id) => {
                Source::Content { task_id: id.to_string() }
            }
            _ => Source::File(url.to_string()),
        }
    }

    /// Opens a task's file from byte `offset` (see [`Client::open_download`]).
    pub async fn open_source(&self, source: &Source, offset: u64, validator: &Validator) -> Result<Download, ApiError> {
        match source {
            Source::File(url) => self.open_download(url, offset, validator).await,
            Source::Content { task_id } => self.open_content(task_id, offset, validator).await,
        }
    }

    /// `GET /v1/videos/{task_id}/content` with the key. Redirects are followed by hand: within
    /// the API's origin with the key, to another origin without it (a gateway may hand its
    /// CDN's signed URL, which needs none), and never to another scheme.
    pub async fn open_content(&self, task_id: &str, offset: u64, validator: &Validator) -> Result<Download, ApiError> {
        let bad = |reason: String| ApiError::BadUrl { url: task_id.chars().take(64).collect(), reason };
        if let Some(reason) = unusable_task_id(task_id) {
            return Err(bad(reason));
        }
        let mut at = Url::parse(&content_route(self.base_url(), task_id)).map_err(|e| bad(e.to_string()))?;
        let timeout = self.options.request_timeout;
        for _ in 0..=MAX_REDIRECTS {
            let request =
                with_range(self.content.get(at.clone()), offset, validator).header(AUTHORIZATION, self.auth());
            let response = request.send().await.map_err(|e| map_transport(e, &at, timeout))?;
            let status = response.status();
            if !status.is_redirection() || status == StatusCode::NOT_MODIFIED {
                return self.opened(response, at, offset, Endpoint::Content).await;
            }
            let location = response.headers().get(LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let next = location.as_deref().map(|l| (l, at.join(l)));
            let next = match next {
                Some((_, Ok(next))) if matches!(next.scheme(), "http" | "https") => next,
                Some((l, _)) => {
                    let detail = format!("an HTTP {} to \"{}\" that was not followed", status.as_u16(), shown_url(l));
                    return Err(ApiError::Redirect { detail });
                }
                None => return Err(ApiError::Redirect { detail: format!("an HTTP {} without a Location", status) }),
            };
            let keyed = next.origin() == self.origin();
            tracing::info!(path = at.path(), status = status.as_u16(), with_key = keyed, "file route redirect");
            if !keyed {
                return self.open_download(next.as_str(), offset, validator).await;
            }
            at = next;
        }
        Err(ApiError::Redirect { detail: format!("more than {MAX_REDIRECTS} redirects (a loop?)") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_is_one_segment_under_the_base() {
        let cases = [
            ("http://127.0.0.1:8080/", "video_1", "http://127.0.0.1:8080/v1/videos/video_1/content"),
            ("https://gw.example/proxy/", "a/b?c", "https://gw.example/proxy/v1/videos/a%2Fb%3Fc/content"),
            ("https://gw.example", "..", "https://gw.example/v1/videos/../content"),
        ];
        for (base, id, want) in cases {
            assert_eq!(content_route(base, id), want, "{base} {id}");
        }
    }
}
