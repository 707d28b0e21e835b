//! The GETs `reel doctor` sends: what a service answers to a path, status, telling headers and
//! the start of the body, without spending anything (no POST, ever). Same origin as the base
//! URL, same timeouts and redirect rules as every API call.

use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde::Serialize;

use super::client::{Client, map_transport};
use super::error::ApiError;

/// Most bytes of a body kept: enough for an error or a model list's start.
pub const MAX_PROBE_BODY: usize = 64 * 1024;
/// Longest header value kept.
const MAX_HEADER: usize = 200;

/// Headers that tell what answers: its clock, its software, OpenAI's own API, new-api.
pub const TELLING_HEADERS: [&str; 6] =
    ["date", "server", "content-type", "openai-version", "openai-organization", "x-oneapi-request-id"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub status: u16,
    /// The [`TELLING_HEADERS`] present, lower-case names, values cut to a few hundred bytes.
    pub headers: Vec<(String, String)>,
    /// The body's start (at most [`MAX_PROBE_BODY`] bytes).
    #[serde(skip)]
    pub body: Vec<u8>,
}

impl Probe {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

impl Client {
    /// `GET` of `path`: relative to the base URL (`v1/models`), or from the origin's root when
    /// it starts with `/`. With `with_key`, the API key is sent.
    pub async fn probe(&self, path: &str, with_key: bool) -> Result<Probe, ApiError> {
        let url =
            self.base.join(path).map_err(|e| ApiError::BadUrl { url: path.to_string(), reason: e.to_string() })?;
        let timeout = self.options.request_timeout;
        let mut request = self.http.get(url.clone()).header(ACCEPT, "application/json").timeout(timeout);
        if with_key {
            request = request.header(AUTHORIZATION, self.auth());
        }
        let mut response = request.send().await.map_err(|e| map_transport(e, &url, timeout))?;
        let status = response.status().as_u16();
        tracing::info!(method = "GET", path = url.path(), status, with_key, "doctor http");
        let headers = TELLING_HEADERS
            .iter()
            .filter_map(|name| {
                let value = response.headers().get(*name)?.to_str().ok()?;
                Some((name.to_string(), reel_rules::text::one_line(value).chars().take(MAX_HEADER).collect()))
            })
            .collect();
        let mut body = Vec::new();
        while body.len() < MAX_PROBE_BODY {
            match response.chunk().await.map_err(|e| map_transport(e, &url, timeout))? {
                Some(chunk) => body.extend_from_slice(&chunk[..chunk.len().min(MAX_PROBE_BODY - body.len())]),
                None => break,
            }
        }
        Ok(Probe { status, headers, body })
    }
}
