//! An answer as the handlers decide it (status, headers, bytes, how to deliver them), turned into
//! a hyper response or, for the lies hyper will not tell, into raw bytes for the socket.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{HeaderMap, Response, StatusCode};
use serde_json::{Value, json};

pub type Body = BoxBody<Bytes, std::io::Error>;

/// A stalled transfer gives up after this long, so that abandoned connections do not pile up.
const STALL_LIMIT: Duration = Duration::from_secs(600);

/// Bytes of junk written after the body of an over-long answer.
pub const OVERLONG_EXTRA: usize = 4096;

/// How the body goes out.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    Whole,
    /// At most this many bytes per second.
    Throttled(u64),
    /// Half the body, then the connection fails short of `Content-Length`.
    Truncated,
    /// `head` bytes, then one byte every `every`, or nothing more when `None`.
    Trickle {
        head: usize,
        every: Option<Duration>,
    },
    /// The body, then `filler` again and again, forever (chunked).
    Endless(&'static [u8]),
    /// The JSON object in the body grown to `total` bytes with a `padding` field.
    Padded {
        total: u64,
    },
    /// Written on the socket by hand: `pace` between bytes, `extra` junk bytes after the body.
    Raw {
        pace: Option<Duration>,
        extra: usize,
    },
    /// Written on the socket by hand without a `Content-Length`, then the connection closes:
    /// the close is the end of the body (HTTP/1.1 close-delimited), whatever was meant.
    Unframed,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub delivery: Delivery,
}

/// A header value from text; text that cannot be one (control characters) becomes empty.
pub fn hv(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

impl Reply {
    pub fn new(status: StatusCode, body: impl Into<Bytes>) -> Reply {
        Reply { status, headers: HeaderMap::new(), body: body.into(), delivery: Delivery::Whole }
    }

    pub fn json(status: StatusCode, body: &Value) -> Reply {
        Reply::new(status, body.to_string()).with(header::CONTENT_TYPE, "application/json")
    }

    pub fn error(status: StatusCode, code: &str, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": { "code": code, "message": message } }))
    }

    pub fn redirect(status: StatusCode, location: &str) -> Reply {
        Reply::error(status, "moved", "the resource is elsewhere").with(header::LOCATION, location)
    }

    pub fn with(mut self, name: HeaderName, value: &str) -> Reply {
        self.headers.insert(name, hv(value));
        self
    }

    pub fn is_raw(&self) -> bool {
        self.raw_pace().is_some()
    }

    /// For answers written by hand: the pause between bytes (`Some(None)`: all at once).
    pub fn raw_pace(&self) -> Option<Option<Duration>> {
        match self.delivery {
            Delivery::Raw { pace, .. } => Some(pace),
            Delivery::Unframed => Some(None),
            _ => None,
        }
    }

    /// The hyper response for every delivery but `Raw` (which [`Reply::raw_bytes`] serves).
    pub fn into_response(self) -> Response<Body> {
        let body = match self.delivery {
            Delivery::Whole | Delivery::Raw { .. } | Delivery::Unframed => full(self.body),
            Delivery::Throttled(rate) => throttled(self.body, rate),
            Delivery::Truncated => truncated(self.body),
            Delivery::Trickle { head, every } => trickle(self.body, head, every),
            Delivery::Endless(filler) => endless(self.body, filler),
            Delivery::Padded { total } => padded(&self.body, total),
        };
        let mut r = Response::new(body);
        *r.status_mut() = self.status;
        *r.headers_mut() = self.headers;
        r
    }

    /// The whole answer as bytes on the wire: status line, headers, body, then any junk.
    pub fn raw_bytes(&self) -> Bytes {
        let extra = match self.delivery {
            Delivery::Raw { extra, .. } => extra,
            _ => 0,
        };
        let reason = self.status.canonical_reason().unwrap_or("");
        let mut out = BytesMut::new();
        out.extend_from_slice(format!("HTTP/1.1 {} {reason}\r\n", self.status.as_u16()).as_bytes());
        for (name, value) in &self.headers {
            if name != header::CONNECTION {
                out.extend_from_slice(name.as_str().as_bytes());
                out.extend_from_slice(b": ");
                out.extend_from_slice(value.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
        }
        if !self.headers.contains_key(header::CONTENT_LENGTH) && self.delivery != Delivery::Unframed {
            out.extend_from_slice(format!("content-length: {}\r\n", self.body.len()).as_bytes());
        }
        out.extend_from_slice(b"connection: close\r\n\r\n");
        out.extend_from_slice(&self.body);
        let junk = b"reel sim: bytes past Content-Length\n";
        out.extend(junk.iter().cycle().take(extra));
        out.freeze()
    }
}

fn full(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}

/// A body of frames from a stream; the stream's items are already `io::Result`s.
fn streamed<S>(frames: S) -> Body
where
    S: futures_util::Stream<Item = std::io::Result<Bytes>> + Send + Sync + 'static,
{
    use futures_util::StreamExt;
    BodyExt::boxed(StreamBody::new(frames.map(|r| r.map(Frame::data))))
}

/// The body in pieces of a tenth of a second each, so the transfer takes `len / rate` seconds.
fn throttled(bytes: Bytes, rate: u64) -> Body {
    let piece = (rate / 10).max(1) as usize;
    streamed(futures_util::stream::unfold(0usize, move |at| {
        let bytes = bytes.clone();
        async move {
            if at >= bytes.len() {
                return None;
            }
            if at > 0 {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let end = (at + piece).min(bytes.len());
            Some((Ok(bytes.slice(at..end)), end))
        }
    }))
}

/// Half the bytes, a pause so that they are flushed, then an error: the connection closes short
/// of `Content-Length`.
fn truncated(bytes: Bytes) -> Body {
    let half = bytes.slice(..bytes.len() / 2);
    streamed(futures_util::stream::unfold(0u8, move |step| {
        let half = half.clone();
        async move {
            match step {
                0 => Some((Ok(half), 1)),
                1 => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Some((Err(std::io::Error::other("truncated")), 2))
                }
                _ => None,
            }
        }
    }))
}

fn trickle(bytes: Bytes, head: usize, every: Option<Duration>) -> Body {
    let head = head.min(bytes.len());
    streamed(futures_util::stream::unfold(0usize, move |at| {
        let bytes = bytes.clone();
        async move {
            if at == 0 && head > 0 {
                return Some((Ok(bytes.slice(..head)), head));
            }
            if at >= bytes.len() {
                return None;
            }
            match every {
                Some(every) => {
                    tokio::time::sleep(every).await;
                    Some((Ok(bytes.slice(at..at + 1)), at + 1))
                }
                None => {
                    tokio::time::sleep(STALL_LIMIT).await;
                    Some((Err(std::io::Error::other("stalled transfer abandoned")), bytes.len()))
                }
            }
        }
    }))
}

fn endless(start: Bytes, filler: &'static [u8]) -> Body {
    let chunk = Bytes::from(filler.repeat((64 * 1024 / filler.len().max(1)).max(1)));
    let first = futures_util::stream::iter([Ok(start)]);
    use futures_util::StreamExt;
    streamed(first.chain(futures_util::stream::repeat_with(move || Ok(chunk.clone()))))
}

/// The bytes of a JSON object with a `padding` string field inserted so the whole is `total`
/// bytes (or as close as the object allows): `(head, padding length, tail)`.
pub fn padding_plan(object: &[u8], total: u64) -> (Bytes, u64, Bytes) {
    let body = object.strip_suffix(b"}").unwrap_or(object);
    let separator: &[u8] = if body.ends_with(b"{") { b"" } else { b"," };
    let mut head = BytesMut::from(body);
    head.extend_from_slice(separator);
    head.extend_from_slice(b"\"padding\":\"");
    let tail = Bytes::from_static(b"\"}");
    let pad = total.saturating_sub((head.len() + tail.len()) as u64);
    (head.freeze(), pad, tail)
}

fn padded(object: &[u8], total: u64) -> Body {
    let (head, pad, tail) = padding_plan(object, total);
    const PIECE: u64 = 64 * 1024;
    let piece = Bytes::from(vec![b'a'; PIECE as usize]);
    let pieces = futures_util::stream::unfold(pad, move |left| {
        let piece = piece.clone();
        async move { (left > 0).then(|| (Ok(piece.slice(..left.min(PIECE) as usize)), left.saturating_sub(PIECE))) }
    });
    use futures_util::StreamExt;
    streamed(futures_util::stream::iter([Ok(head)]).chain(pieces).chain(futures_util::stream::iter([Ok(tail)])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_makes_valid_json_of_the_size_asked() {
        for object in [&b"{\"id\":\"t\",\"status\":\"queued\"}"[..], b"{}"] {
            let (head, pad, tail) = padding_plan(object, 1000);
            let mut whole = head.to_vec();
            whole.extend(std::iter::repeat_n(b'a', pad as usize));
            whole.extend_from_slice(&tail);
            assert_eq!(whole.len(), 1000);
            let v: Value = serde_json::from_slice(&whole).expect("valid JSON");
            assert_eq!(v["padding"].as_str().map(str::len), Some(pad as usize));
        }
    }

    #[test]
    fn raw_bytes_carry_the_lie() {
        let mut r = Reply::new(StatusCode::OK, "hello").with(header::CONTENT_LENGTH, "5");
        r.delivery = Delivery::Raw { pace: None, extra: 10 };
        let raw = r.raw_bytes();
        let text = String::from_utf8_lossy(&raw);
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("content-length: 5\r\n") && text.contains("connection: close\r\n\r\nhello"));
        assert_eq!(raw.len(), text.find("hello").map_or(0, |at| at + 5 + 10));
    }

    #[test]
    fn an_unframed_answer_has_no_length_and_closes() {
        let mut r = Reply::new(StatusCode::OK, "half");
        r.delivery = Delivery::Unframed;
        let raw = r.raw_bytes();
        let text = String::from_utf8_lossy(&raw);
        assert!(!text.contains("content-length") && text.ends_with("connection: close\r\n\r\nhalf"), "{text}");
        assert_eq!(r.raw_pace(), Some(None));
    }
}
