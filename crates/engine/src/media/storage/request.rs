//! One S3 request, signed (`sigv4`) and sent with our reqwest client; a failure that may pass
//! (a dropped connection, a 5xx, `SlowDown`) is tried again.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use url::Url;

/// A reply that stops coming this long is cut, and the request tried again.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest one request may take: 8 MiB at 75 kbit/s. One request carries at most a part, so
/// this ends only a stall in sending, which the read timeout cannot see.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Tries after the first, and the time all tries of one request may take.
const RETRIES: u32 = 4;
const RETRY_WITHIN: Duration = Duration::from_secs(120);

/// What the server answered: a status, its headers and its body as text.
#[derive(Debug)]
pub(super) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

/// A request that did not succeed, as the error classification needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server answered with a status that is not success; `body` is S3's `<Error>` XML when
    /// it sent one (a HEAD never does).
    Status { status: u16, reason: String, body: String },
    /// No answer: the connection failed or timed out.
    Network(String),
    /// An answer of success that does not say what S3 says (no upload id, no ETag).
    Unreadable(String),
}

impl Failure {
    fn from_reply(reply: &Reply) -> Failure {
        Failure::Status {
            status: reply.status.as_u16(),
            reason: reply.status.canonical_reason().unwrap_or("").to_string(),
            body: reply.body.clone(),
        }
    }

    /// Worth another try: the server was busy or broke, or the line did.
    fn passes(&self) -> bool {
        match self {
            Failure::Network(_) => true,
            Failure::Unreadable(_) => false,
            Failure::Status { status, body, .. } => {
                *status >= 500 || *status == 429 || body.contains("<Code>SlowDown</Code>")
            }
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Status { status, reason, body } => {
                write!(f, "HTTP {status} {reason}: {}", reel_rules::text::excerpt(body, 300))
            }
            Failure::Network(detail) | Failure::Unreadable(detail) => f.write_str(detail),
        }
    }
}

/// The HTTP client of storage requests (not the API's: other timeouts, no API key).
pub(super) fn client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(READ_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .build()
}

/// Sends `method url` with `headers` and `body` until it succeeds, fails for good, or has been
/// tried [`RETRIES`] more times. A status that is not success is a [`Failure`], except 404
/// when `missing_ok` (a HEAD asking whether an object is there).
pub(super) async fn send(
    http: &reqwest::Client,
    method: Method,
    url: &Url,
    headers: &[(&str, String)],
    body: Option<Bytes>,
    missing_ok: bool,
) -> Result<Reply, Failure> {
    let started = std::time::Instant::now();
    let mut attempt = 0u32;
    loop {
        let mut request = http.request(method.clone(), url.clone());
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        if let Some(body) = &body {
            request = request.body(body.clone());
        }
        let failure = match request.send().await {
            Ok(response) => {
                let (status, headers) = (response.status(), response.headers().clone());
                match bounded_text(response).await {
                    Ok(body) => {
                        let reply = Reply { status, headers, body };
                        // CompleteMultipartUpload can fail after a 200: the error is in the body.
                        let error_in_body = method == Method::POST && reply.body.contains("<Error>");
                        if (status.is_success() && !error_in_body) || (missing_ok && status == StatusCode::NOT_FOUND) {
                            return Ok(reply);
                        }
                        Failure::from_reply(&reply)
                    }
                    Err(e) => Failure::Network(network_detail(e)),
                }
            }
            Err(e) => Failure::Network(network_detail(e)),
        };
        attempt += 1;
        let wait = backoff(attempt);
        if !failure.passes() || attempt > RETRIES || started.elapsed() + wait > RETRY_WITHIN {
            return Err(failure);
        }
        tracing::debug!(%failure, attempt, "a storage request failed; trying again");
        tokio::time::sleep(wait).await;
    }
}

/// S3's answers are a few KiB of XML at most; a server that sends more is cut here, so an
/// endless or huge body cannot grow memory.
const MAX_BODY: usize = 1 << 20;

/// The body as text, at most [`MAX_BODY`] bytes of it.
async fn bounded_text(mut response: reqwest::Response) -> Result<String, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = MAX_BODY - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_BODY {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// 0.5 s, 1 s, 2 s, 4 s, …, each with up to a quarter more at random so clients spread out.
fn backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(500) * 2u32.saturating_pow(attempt.saturating_sub(1)).min(64);
    base + base.mul_f64(fastrand::f64() / 4.0)
}

/// A reqwest error with its causes, without the URL (it carries the signature).
fn network_detail(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_passes_is_tried_again() {
        let status = |status: u16, body: &str| Failure::Status { status, reason: String::new(), body: body.into() };
        let cases = [
            (Failure::Network("connection reset".into()), true),
            (status(500, ""), true),
            (status(503, "<Code>SlowDown</Code>"), true),
            (status(429, ""), true),
            (status(400, "<Code>SlowDown</Code>"), true),
            (status(403, "<Code>AccessDenied</Code>"), false),
            (status(404, "<Code>NoSuchBucket</Code>"), false),
        ];
        for (failure, passes) in cases {
            assert_eq!(failure.passes(), passes, "{failure}");
        }
    }

    /// A storage server whose answer never ends: the body is cut at its bound, never held whole.
    #[tokio::test]
    async fn an_endless_answer_is_cut_at_its_bound() {
        use tokio::io::AsyncWriteExt as _;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("listen");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut request = [0u8; 4096];
            let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut request).await;
            let head = "HTTP/1.1 500 Internal Server Error\r\ntransfer-encoding: chunked\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "x".repeat(64 * 1024));
            while socket.write_all(chunk.as_bytes()).await.is_ok() {}
        });
        let url = Url::parse(&format!("http://{addr}/b/k")).expect("url");
        let response = client().expect("client").get(url).send().await.expect("answered");
        let body = bounded_text(response).await.expect("read");
        assert_eq!(body.len(), MAX_BODY);
    }

    #[test]
    fn waits_grow_and_stay_bounded() {
        let waits: Vec<Duration> = (1..=12).map(backoff).collect();
        assert!(waits[0] >= Duration::from_millis(500) && waits[0] <= Duration::from_millis(625), "{waits:?}");
        assert!(waits[3] >= Duration::from_secs(4), "{waits:?}");
        assert!(waits.iter().all(|w| *w <= Duration::from_secs(40)), "{waits:?}");
    }
}
