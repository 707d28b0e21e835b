//! Which endpoint a request is for, after the path is normalized as a real server would.

use hyper::Method;

/// A file served under `/media/` for preflight checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Mp4,
    Png,
    Wav,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Submit,
    Get(String),
    /// `GET /v1/videos/`: an empty id, answered with an empty list as some services do.
    List,
    /// `GET /v1/models`: the catalog's models, in OpenAI's list shape.
    Models,
    /// `GET /v1/videos/{id}/content`: the file behind OpenAI's route (`--answers openai` only).
    Content(String),
    /// A result file; `mirror` when under `/mirror/files/` (a redirect target).
    File {
        id: String,
        mirror: bool,
    },
    Media(MediaKind),
    WrongMethod(&'static str),
    Unknown,
}

impl Endpoint {
    pub fn is_api(&self) -> bool {
        matches!(self, Endpoint::Submit | Endpoint::Get(_) | Endpoint::List)
    }
}

/// Routes a request path (raw, as sent) to an endpoint.
pub fn endpoint(method: &Method, raw_path: &str) -> Endpoint {
    let path = normalize(raw_path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let readable = matches!(*method, Method::GET | Method::HEAD);
    match (segments.as_slice(), method) {
        (["v1", "videos"], &Method::POST) => Endpoint::Submit,
        (["v1", "videos"], _) => Endpoint::WrongMethod("POST"),
        (["v1", "videos", ""], &Method::GET) => Endpoint::List,
        (["v1", "models"], &Method::GET) => Endpoint::Models,
        (["v1", "models"], _) => Endpoint::WrongMethod("GET"),
        (["v1", "videos", id], &Method::GET) => Endpoint::Get(percent_decode(id)),
        (["v1", "videos", _], _) => Endpoint::WrongMethod("GET"),
        (["v1", "videos", id, "content"], _) if readable => Endpoint::Content(percent_decode(id)),
        (["v1", "videos", _, "content"], _) => Endpoint::WrongMethod("GET, HEAD"),
        (["files", name], _) => file(name, false, readable),
        (["mirror", "files", name], _) => file(name, true, readable),
        (["media", name], _) => {
            let kind = match name.rsplit_once('.').map(|(_, ext)| ext) {
                Some("mp4") => MediaKind::Mp4,
                Some("png") => MediaKind::Png,
                Some("wav") => MediaKind::Wav,
                _ => return Endpoint::Unknown,
            };
            if readable { Endpoint::Media(kind) } else { Endpoint::WrongMethod("GET, HEAD") }
        }
        _ => Endpoint::Unknown,
    }
}

fn file(name: &str, mirror: bool, readable: bool) -> Endpoint {
    match (name.strip_suffix(".mp4"), readable) {
        (Some(id), true) => Endpoint::File { id: percent_decode(id), mirror },
        (Some(_), false) => Endpoint::WrongMethod("GET, HEAD"),
        (None, _) => Endpoint::Unknown,
    }
}

/// 1 for a `.` segment, 2 for `..`, in any of the spellings URL parsers treat as dots.
fn dots(segment: &str) -> Option<u8> {
    match segment.to_ascii_lowercase().as_str() {
        "." | "%2e" => Some(1),
        ".." | ".%2e" | "%2e." | "%2e%2e" => Some(2),
        _ => None,
    }
}

/// Resolves dot segments (RFC 3986 section 5.2.4, with percent-encoded dots as WHATWG URL does),
/// as front-end servers do before routing: `/v1/videos/..` is `/v1/`.
pub fn normalize(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    let mut out: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.iter().enumerate() {
        match dots(segment) {
            Some(n) => {
                if n == 2 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            None => out.push(segment),
        }
    }
    format!("/{}", out.join("/"))
}

pub fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// An id as one path segment, as the client encodes it.
pub use reel_api::client::encode_segment;

pub fn query_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// The query with `hop=1` added, or removed when present: two URLs that redirect to each other.
pub fn toggle_hop(query: &str) -> String {
    let kept: Vec<&str> = query.split('&').filter(|kv| !kv.is_empty() && *kv != "hop=1").collect();
    let had = query.split('&').any(|kv| kv == "hop=1");
    let mut out = kept.join("&");
    if !had {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str("hop=1");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(m: Method, p: &str) -> String {
        match endpoint(&m, p) {
            Endpoint::Submit => "submit".to_string(),
            Endpoint::Get(id) => format!("get {id}"),
            Endpoint::List => "list".to_string(),
            Endpoint::Models => "models".to_string(),
            Endpoint::Content(id) => format!("content {id}"),
            Endpoint::File { id, mirror } => format!("file {id}{}", if mirror { " (mirror)" } else { "" }),
            Endpoint::Media(k) => format!("media {k:?}"),
            Endpoint::WrongMethod(a) => format!("405 {a}"),
            Endpoint::Unknown => "404".to_string(),
        }
    }

    #[test]
    fn routes() {
        let cases = [
            (Method::POST, "/v1/videos", "submit"),
            (Method::GET, "/v1/videos", "405 POST"),
            (Method::GET, "/v1/videos/task_1", "get task_1"),
            (Method::GET, "/v1/videos/a%2Fb", "get a/b"),
            (Method::GET, "/v1/videos/a/b", "404"),
            (Method::GET, "/v1/videos/", "list"),
            (Method::GET, "/v1/models", "models"),
            (Method::POST, "/v1/models", "405 GET"),
            (Method::GET, "/v1/models/sora-2", "404"),
            (Method::GET, "/v1/videos/.", "list"),
            (Method::GET, "/v1/videos/..", "404"),
            (Method::GET, "/v1/videos/%2e%2E", "404"),
            (Method::GET, "/v1/videos/%252e%252e", "get %2e%2e"),
            (Method::GET, "/v1/videos/x/../task_1", "get task_1"),
            (Method::DELETE, "/v1/videos/task_1", "405 GET"),
            (Method::GET, "/v1/videos/video_1/content", "content video_1"),
            (Method::HEAD, "/v1/videos/a%2Fb/content", "content a/b"),
            (Method::POST, "/v1/videos/video_1/content", "405 GET, HEAD"),
            (Method::GET, "/v1/videos/video_1/other", "404"),
            (Method::HEAD, "/files/task_1.mp4", "file task_1"),
            (Method::GET, "/files/.mp4", "file "),
            (Method::GET, "/mirror/files/task_1.mp4", "file task_1 (mirror)"),
            (Method::POST, "/files/task_1.mp4", "405 GET, HEAD"),
            (Method::GET, "/files/task_1.mov", "404"),
            (Method::GET, "/media/sample.mp4", "media Mp4"),
            (Method::HEAD, "/media/x.png", "media Png"),
            (Method::GET, "/media/sample.wav", "media Wav"),
            (Method::PUT, "/media/sample.wav", "405 GET, HEAD"),
            (Method::GET, "/media/sample.gif", "404"),
            (Method::GET, "/v2/videos", "404"),
            (Method::GET, "/", "404"),
        ];
        for (method, path, want) in cases {
            assert_eq!(kind(method.clone(), path), want, "{method} {path}");
        }
    }

    #[test]
    fn dot_segments_are_resolved() {
        let cases = [
            ("/", "/"),
            ("/v1/videos/..", "/v1/"),
            ("/v1/videos/.", "/v1/videos/"),
            ("/v1/./videos/x", "/v1/videos/x"),
            ("/../../etc/passwd", "/etc/passwd"),
            ("/a/%2E%2e/b", "/b"),
            ("/a/...", "/a/..."),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input), want, "{input}");
        }
    }

    #[test]
    fn segments_round_trip() {
        for id in ["task_1", "a/b", "%2e%2e", "", "..", "t\x1b[2J\u{9b}"] {
            let encoded = encode_segment(id);
            assert!(!encoded.contains('/') && !encoded.contains('\x1b'), "{encoded}");
            assert_eq!(percent_decode(&encoded), id);
        }
    }

    #[test]
    fn hops_toggle() {
        assert_eq!(toggle_hop("expires=1&sig=x"), "expires=1&sig=x&hop=1");
        assert_eq!(toggle_hop("expires=1&sig=x&hop=1"), "expires=1&sig=x");
        assert_eq!(toggle_hop(""), "hop=1");
        assert_eq!(query_param("a=1&hop=1", "hop"), Some("1"));
    }
}
