//! Where a media item comes from, pure: a URL as the spec takes it, or a local file that reel
//! uploads first. Whether the file exists is checked when it is uploaded, not here.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A media item that came from a local file: the file, and once uploaded, the object holding it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalOrigin {
    /// The file as the user named it, made absolute when uploaded.
    pub path: String,
    /// The object key in the bucket; `None` until uploaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// When the URL sent stops working (Unix seconds); kept so a re-run knows to re-sign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
}

impl LocalOrigin {
    /// A file not uploaded yet.
    pub fn pending(path: &str) -> LocalOrigin {
        LocalOrigin { path: path.to_string(), key: None, expires_at: None }
    }

    pub fn is_uploaded(&self) -> bool {
        self.key.is_some()
    }

    /// Whether the URL sent must be signed again before it is sent: unknown expiry, expired,
    /// or expiring within `within` seconds of `now` (the service fetches it later).
    pub fn needs_resign(&self, now: i64, within: i64) -> bool {
        self.expires_at.is_none_or(|at| at <= now.saturating_add(within))
    }
}

/// Whether text names a local file rather than a URL: an absolute path, `./`, `../`, `~/` or
/// `file://`.
pub fn is_local(text: &str) -> bool {
    let t = text.trim();
    t.starts_with('/') || t.starts_with("./") || t.starts_with("../") || t.starts_with("~/") || t.starts_with("file://")
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LocalPathError {
    #[error("\"{0}\" starts with ~/ but the home folder is not known; give the full path")]
    NoHome(String),
    #[error("\"{0}\" is not a local file URL; use file:///absolute/path")]
    BadFileUrl(String),
    #[error("\"{0}\" is not a local path; start it with /, ./, ../, ~/ or file://")]
    NotLocal(String),
}

/// The file a local source names: `~` expanded with `home`, `file://` decoded, relative paths
/// against `cwd`.
pub fn local_path(text: &str, home: Option<&Path>, cwd: &Path) -> Result<PathBuf, LocalPathError> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("~/") {
        return home.map(|h| h.join(rest)).ok_or_else(|| LocalPathError::NoHome(t.to_string()));
    }
    if t.starts_with("file://") {
        return url::Url::parse(t)
            .ok()
            .filter(|u| u.host_str().is_none_or(|h| h.is_empty() || h == "localhost"))
            .and_then(|u| u.to_file_path().ok())
            .ok_or_else(|| LocalPathError::BadFileUrl(t.to_string()));
    }
    if t.starts_with('/') {
        return Ok(PathBuf::from(t));
    }
    if t.starts_with("./") || t.starts_with("../") {
        return Ok(cwd.join(t));
    }
    Err(LocalPathError::NotLocal(t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_local() {
        let cases = [
            ("/tmp/a.png", true),
            ("./a.png", true),
            ("../clips/b.mp4", true),
            ("~/a.png", true),
            ("file:///tmp/a.png", true),
            (" ./a.png ", true),
            ("https://x.org/a.png", false),
            ("http://x.org/a.png", false),
            ("a.png", false),
            ("~user/a.png", false),
            ("", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_local(text), want, "{text}");
        }
    }

    #[test]
    fn paths_resolved() {
        let home = Path::new("/home/u");
        let cwd = Path::new("/work");
        let cases: [(&str, Option<&Path>, Result<&str, ()>); 8] = [
            ("~/a.png", Some(home), Ok("/home/u/a.png")),
            ("~/a.png", None, Err(())),
            ("./a.png", Some(home), Ok("/work/./a.png")),
            ("../b.mp4", None, Ok("/work/../b.mp4")),
            ("/abs/c.wav", None, Ok("/abs/c.wav")),
            ("file:///abs/my%20clip.mp4", None, Ok("/abs/my clip.mp4")),
            ("file://remote.host/x.mp4", None, Err(())),
            ("https://x.org/a.png", None, Err(())),
        ];
        for (text, home, want) in cases {
            let got = local_path(text, home, cwd);
            match (got, want) {
                (Ok(p), Ok(w)) => assert_eq!(p, PathBuf::from(w), "{text}"),
                (Err(_), Err(())) => {}
                (got, want) => panic!("{text}: {got:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn when_to_resign() {
        let uploaded = |at| LocalOrigin { path: "/a".into(), key: Some("k".into()), expires_at: at };
        assert!(uploaded(None).needs_resign(100, 10));
        assert!(uploaded(Some(105)).needs_resign(100, 10));
        assert!(uploaded(Some(99)).needs_resign(100, 10));
        assert!(!uploaded(Some(200)).needs_resign(100, 10));
    }
}
