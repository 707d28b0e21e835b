//! The HTTP client for the two endpoints of the spec, with Bearer auth and timeouts.

use std::sync::Once;
use std::time::{Duration, SystemTime};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use serde_json::Value;
use url::Url;

use super::error::{ApiError, Endpoint, error_for_status, parse_retry_after};
use super::key::ApiKey;
use super::types::{SubmitRequest, VideoTask};

/// Timeouts and limits. The request timeout bounds one API call, body included; downloads are
/// bounded per read instead (and by the engine's stall check), since a large file may take
/// longer than any one call should.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientOptions {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Longest `Retry-After` believed; a longer one is ignored and reel backs off on its own.
    pub max_retry_after: Duration,
    /// The body form the service takes for a submission.
    pub wire: super::wire_form::Wire,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            wire: super::wire_form::Wire::default(),
        }
    }
}

/// OpenAI's SDK believes a `Retry-After` of up to 60 s and backs off on its own past it.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Longest API answer read: a task is a few hundred bytes, an error body a few kilobytes.
pub const MAX_ANSWER_BYTES: u64 = 1 << 20;
/// Redirects followed: API requests only within their origin, file downloads anywhere over
/// http(s), never with the key.
pub(super) const MAX_REDIRECTS: usize = 5;

fn redirect_policy(same_origin_only: bool) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let next = attempt.url();
        let refusal = if attempt.previous().len() > MAX_REDIRECTS {
            Some(format!("more than {MAX_REDIRECTS} redirects (a loop?)"))
        } else if !matches!(next.scheme(), "http" | "https") {
            Some(format!("a redirect to a {} URL", next.scheme()))
        } else if same_origin_only && attempt.previous().first().is_some_and(|first| first.origin() != next.origin()) {
            Some(format!("a redirect to another origin ({}), not followed", next.origin().ascii_serialization()))
        } else {
            None
        };
        match refusal {
            Some(why) => attempt.error(why),
            None => attempt.follow(),
        }
    })
}

#[derive(Clone)]
pub struct Client {
    pub(super) http: reqwest::Client,
    /// For result files: its own redirect policy, and no Authorization header is ever added.
    pub(super) files: reqwest::Client,
    /// For the service's own file route, with the key: it follows no redirect by itself (see
    /// `content::open_content`, which decides where the key may go).
    pub(super) content: reqwest::Client,
    pub(super) base: Url,
    videos: Url,
    key: ApiKey,
    pub(super) options: ClientOptions,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base", &self.base.as_str()).field("key", &self.key).finish()
    }
}

fn install_crypto() {
    static ONCE: Once = Once::new();
    // Fails only when a provider is installed already, which is what we want anyway.
    ONCE.call_once(|| drop(rustls::crypto::ring::default_provider().install_default()));
}

/// Checks a base URL and removes a trailing `/v1`, which the spec's paths already carry.
pub fn normalize_base_url(text: &str) -> Result<Url, ApiError> {
    let bad = |reason: &str| ApiError::BadUrl { url: text.to_string(), reason: reason.to_string() };
    let mut url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the base URL must start with http:// or https://"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("the base URL may not have a query or fragment"));
    }
    let path = url.path().trim_end_matches('/');
    let path = path.strip_suffix("/v1").unwrap_or(path).to_string();
    url.set_path(&format!("{path}/"));
    Ok(url)
}

/// Longest task id reel uses in a path.
pub const MAX_TASK_ID: usize = 1024;

/// Why a task id given by the service cannot identify a task safely, if it cannot: empty,
/// `.` or `..` (a path step, not a segment), too long, or carrying control characters.
pub fn unusable_task_id(id: &str) -> Option<String> {
    if id.is_empty() {
        Some("the task id is empty".into())
    } else if id == "." || id == ".." {
        Some(format!("the task id \"{id}\" is a path step"))
    } else if id.len() > MAX_TASK_ID {
        Some(format!("the task id is {} bytes long (more than {MAX_TASK_ID})", id.len()))
    } else if id.chars().any(|c| c.is_control() || reel_rules::text::is_unsafe(c)) {
        Some("the task id contains control or bidi characters".into())
    } else {
        None
    }
}

/// `{task_id}` as one path segment: anything outside the unreserved set is percent-encoded,
/// so an id can never change the path.
pub fn encode_segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, UNRESERVED).to_string()
}

/// What a path segment keeps as it is: letters, digits and `-._~` (RFC 3986's unreserved).
const UNRESERVED: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

pub(super) fn map_transport(err: reqwest::Error, endpoint: &Url, timeout: Duration) -> ApiError {
    let (connect, timed_out, redirect) = (err.is_connect(), err.is_timeout(), err.is_redirect());
    let err = err.without_url();
    let detail = {
        let mut text = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        text
    };
    if redirect {
        ApiError::Redirect { detail }
    } else if connect {
        let endpoint = format!("{}://{}", endpoint.scheme(), endpoint.authority());
        ApiError::Connect { endpoint, detail }
    } else if timed_out {
        ApiError::Timeout { after: timeout }
    } else {
        ApiError::Network { detail }
    }
}

/// `Retry-After` in either form, if it is believed ([`believed`]).
pub(super) fn retry_after_of(headers: &HeaderMap, cap: Duration) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    let asked = parse_retry_after(value, SystemTime::now());
    let believed = believed(asked, cap);
    if let (Some(asked), None) = (asked, believed) {
        tracing::info!(
            asked_secs = asked.as_secs(),
            cap_secs = cap.as_secs(),
            "Retry-After past the cap ignored; backing off on reel's own schedule"
        );
    }
    believed
}

/// A `Retry-After` is kept to up to `cap`. Past it (a day, a date in the year 9999) it is not
/// cut to the cap, which would still stop every request for that long: it is ignored, and the
/// caller backs off on its own schedule, as the SDKs do.
pub fn believed(asked: Option<Duration>, cap: Duration) -> Option<Duration> {
    asked.filter(|d| *d <= cap)
}

/// Reads a body up to `limit` bytes; a longer (or endless) one is an error, not memory growth.
pub(super) async fn read_capped(
    mut response: reqwest::Response,
    limit: u64,
    url: &Url,
    timeout: Duration,
) -> Result<Vec<u8>, ApiError> {
    if response.content_length().is_some_and(|n| n > limit) {
        return Err(ApiError::TooLarge { limit });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| map_transport(e, url, timeout))? {
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(ApiError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl Client {
    pub fn new(base_url: &str, key: ApiKey, options: ClientOptions) -> Result<Client, ApiError> {
        install_crypto();
        let base = normalize_base_url(base_url)?;
        let videos =
            base.join("v1/videos").map_err(|e| ApiError::BadUrl { url: base_url.into(), reason: e.to_string() })?;
        let build = |policy: reqwest::redirect::Policy| {
            reqwest::Client::builder()
                .connect_timeout(options.connect_timeout)
                .read_timeout(options.request_timeout)
                .redirect(policy)
                .user_agent(concat!("reel/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| ApiError::Network { detail: e.to_string() })
        };
        Ok(Client {
            http: build(redirect_policy(true))?,
            files: build(redirect_policy(false))?,
            content: build(reqwest::redirect::Policy::none())?,
            base,
            videos,
            key,
            options,
        })
    }

    /// The base URL as used, always ending in `/`.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// The API's origin: the only one the key is sent to.
    pub(super) fn origin(&self) -> url::Origin {
        self.base.origin()
    }

    pub(super) fn auth(&self) -> HeaderValue {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", self.key.expose()))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
        value.set_sensitive(true);
        value
    }

    async fn send(&self, method: &str, request: reqwest::RequestBuilder, url: &Url) -> Result<VideoTask, ApiError> {
        let timeout = self.options.request_timeout;
        let response = request
            .header(AUTHORIZATION, self.auth())
            .header(ACCEPT, "application/json")
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| map_transport(e, url, timeout))?;
        let status = response.status().as_u16();
        let retry_after = retry_after_of(response.headers(), self.options.max_retry_after);
        // Routine poll answers only at debug: a busy engine makes ten a second.
        if (200..300).contains(&status) && method == "GET" {
            tracing::debug!(method, path = url.path(), status, "http");
        } else {
            tracing::info!(method, path = url.path(), status, retry_after = ?retry_after, "http");
        }
        let body = read_capped(response, MAX_ANSWER_BYTES, url, timeout).await?;
        if !(200..300).contains(&status) {
            return Err(error_for_status(Endpoint::Api, status, retry_after, &body));
        }
        let undecodable = |problem: String| ApiError::Undecodable {
            status,
            problem,
            snippet: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
        };
        let value: Value = serde_json::from_slice(&body).map_err(|e| undecodable(e.to_string()))?;
        VideoTask::from_json(value).map_err(|e| undecodable(e.to_string()))
    }

    /// `POST /v1/videos`. The idempotency key lets a server that honours it drop a duplicate.
    pub async fn submit(&self, request: &SubmitRequest, idempotency_key: Option<&str>) -> Result<VideoTask, ApiError> {
        let body = super::wire_form::body(request, self.options.wire)?;
        let body = serde_json::to_vec(&body).map_err(|e| ApiError::Network { detail: e.to_string() })?;
        let mut builder = self.http.post(self.videos.clone()).header(CONTENT_TYPE, "application/json").body(body);
        if let Some(key) = idempotency_key {
            builder = builder.header("Idempotency-Key", key);
        }
        self.send("POST", builder, &self.videos).await
    }

    /// `GET /v1/videos/{task_id}`.
    pub async fn get(&self, task_id: &str) -> Result<VideoTask, ApiError> {
        if let Some(reason) = unusable_task_id(task_id) {
            return Err(ApiError::BadUrl { url: task_id.chars().take(64).collect(), reason });
        }
        let url = Url::parse(&format!("{}/{}", self.videos, encode_segment(task_id)))
            .map_err(|e| ApiError::BadUrl { url: task_id.into(), reason: e.to_string() })?;
        self.send("GET", self.http.get(url.clone()), &url).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_normalized() {
        let cases = [
            ("http://127.0.0.1:8080", Some("http://127.0.0.1:8080/")),
            ("https://api.example.com/", Some("https://api.example.com/")),
            ("https://api.example.com/v1", Some("https://api.example.com/")),
            ("https://api.example.com/proxy/v1/", Some("https://api.example.com/proxy/")),
            ("https://api.example.com/proxy", Some("https://api.example.com/proxy/")),
            ("ftp://api.example.com", None),
            ("api.example.com", None),
            ("https://api.example.com/?x=1", None),
        ];
        for (input, want) in cases {
            let got = normalize_base_url(input).ok().map(|u| u.to_string());
            assert_eq!(got.as_deref(), want, "{input}");
        }
    }

    #[test]
    fn unusable_task_ids_are_named() {
        let long = "a".repeat(MAX_TASK_ID + 1);
        let cases = [
            ("task_1", false),
            ("a/b", false),
            ("%2e%2e", false),
            ("...", false),
            ("", true),
            (".", true),
            ("..", true),
            (long.as_str(), true),
            ("a\u{1b}]52;c;x\u{7}", true),
            ("a\u{9b}b", true),
            ("a\nb", true),
        ];
        for (id, bad) in cases {
            assert_eq!(unusable_task_id(id).is_some(), bad, "{id:?}");
        }
    }

    #[test]
    fn task_ids_cannot_change_the_path() {
        assert_eq!(encode_segment("task_123-a.b~c"), "task_123-a.b~c");
        assert_eq!(encode_segment("../../etc/passwd"), "..%2F..%2Fetc%2Fpasswd");
        assert_eq!(encode_segment("a?b#c d"), "a%3Fb%23c%20d");
        assert_eq!(encode_segment("é"), "%C3%A9");
    }

    #[test]
    fn a_retry_after_is_believed_up_to_the_cap_only() {
        let headers = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(RETRY_AFTER, HeaderValue::from_str(v).expect("header"));
            h
        };
        let cap = DEFAULT_MAX_RETRY_AFTER;
        let cases = [
            ("0", Some(0)),
            ("7", Some(7)),
            ("60", Some(60)),
            ("61", None),
            ("86400", None),
            ("Fri, 31 Dec 9999 23:59:59 GMT", None),
            // A date in the past means no wait.
            ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0)),
            ("soon", None),
            ("-5", None),
        ];
        for (value, want) in cases {
            let got = retry_after_of(&headers(value), cap).map(|d| d.as_secs());
            assert_eq!(got, want, "{value}");
        }
        assert_eq!(retry_after_of(&HeaderMap::new(), cap), None);
        assert_eq!(retry_after_of(&headers("300"), Duration::from_secs(300)), Some(Duration::from_secs(300)));
        assert_eq!(believed(Some(Duration::from_secs(61)), Duration::from_secs(60)), None);
        assert_eq!(believed(None, Duration::from_secs(60)), None);
    }
}
