//! Where a saved video came from, written into the file itself as MP4 metadata (ffprobe's
//! `format.tags`, exiftool's QuickTime `Keys`), so that a file that leaves its folder keeps its
//! prompt. The service's bytes are verified first (their sha256 is the task's); the tagged copy
//! is written beside them, its own sha256 taken, and renamed over them.

use std::ffi::OsString;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::Digest as _;

use reel_store::TaskRecord;

/// The metadata key that holds the whole record, as JSON; `title` and `description` hold the
/// prompt for players and file managers.
pub const KEY: &str = "comment";
/// The record's marker: a comment that is not reel's is not read as one.
const MARK: &str = "reel_version";
/// Remuxing copies the streams; a minute is plenty even for a long video.
const TIME_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    #[error(
        "ffmpeg is not installed, so the file carries no provenance (the sidecar .json keeps it): install \
         ffmpeg or set REEL_FFMPEG"
    )]
    NoFfmpeg,
    #[error("ffmpeg could not tag {path}: {message}")]
    Ffmpeg { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Tags saved files with `ffmpeg` (a program, never a command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagger {
    pub ffmpeg: String,
}

/// A URL as it may travel with a file: no user, password, query (a signature) or fragment.
pub fn public_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if matches!(u.scheme(), "http" | "https") => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        // Not a web URL (a path from an old row, `file://`): nothing of it travels.
        _ => String::new(),
    }
}

/// What the file says of itself: parameters, ids and reel's version. Never the API key (the
/// record has none), a signed query string, the video's own URL or a local file's path.
pub fn record(task: &TaskRecord) -> Value {
    let media: Vec<Value> =
        task.media.iter().map(|m| json!({ "type": m.kind, "url": public_url(&m.url), "seconds": m.seconds })).collect();
    json!({
        MARK: env!("CARGO_PKG_VERSION"),
        "task_id": task.id,
        "remote_id": task.remote_id,
        "parent_id": task.parent_id,
        "batch_id": task.batch_id,
        "service": public_url(&task.base_url),
        "model": task.model,
        "prompt": task.prompt,
        "negative_prompt": task.negative_prompt,
        "seconds": task.seconds,
        "resolution": task.resolution,
        "ratio": task.ratio,
        "watermark": task.watermark,
        "media": media,
        "billed_seconds": task.billed_seconds,
        "created_at": jiff::Timestamp::from_millisecond(task.created_at).ok().map(|t| t.to_string()),
    })
}

/// The metadata to write: key and value.
pub fn fields(task: &TaskRecord) -> Vec<(&'static str, String)> {
    let title: String = reel_rules::text::one_line(&task.prompt).chars().take(200).collect();
    vec![("title", title), ("description", task.prompt.clone()), (KEY, record(task).to_string())]
}

/// Reads reel's record back from a comment, if the comment is one.
pub fn parse(comment: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(comment).ok()?;
    v.get(MARK)?.as_str()?;
    Some(v)
}

/// The global metadata of `ffmpeg -i FILE -f ffmetadata -`: key and value, unescaped (`\`
/// escapes `=`, `;`, `#`, `\` and a newline). Sections after the global one are not read.
pub fn ffmetadata(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut at_line_start = true;
    let (mut key, mut value, mut in_value) = (String::new(), String::new(), false);
    while let Some(c) = chars.next() {
        if at_line_start && (c == ';' || c == '#' || c == '[') {
            if c == '[' {
                break;
            }
            // A comment line (the header among them).
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        at_line_start = false;
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    if in_value { value.push(next) } else { key.push(next) }
                }
            }
            '=' if !in_value => in_value = true,
            '\n' => {
                if in_value {
                    out.push((std::mem::take(&mut key), std::mem::take(&mut value)));
                }
                key.clear();
                in_value = false;
                at_line_start = true;
            }
            c if in_value => value.push(c),
            c => key.push(c),
        }
    }
    if in_value {
        out.push((key, value));
    }
    out
}

/// Reel's record among a file's metadata, if it carries one.
pub fn from_metadata(pairs: &[(String, String)]) -> Option<Value> {
    pairs.iter().filter(|(k, _)| k == KEY).find_map(|(_, v)| parse(v))
}

/// `ffmpeg` arguments: every stream copied, metadata kept and ours added, written as MP4 to `to`.
fn args(from: &Path, to: &Path, fields: &[(&str, String)]) -> Vec<OsString> {
    let mut a: Vec<OsString> = ["-v", "error", "-nostdin", "-y", "-i"].map(OsString::from).to_vec();
    a.push(from.into());
    for x in ["-map", "0", "-c", "copy", "-map_metadata", "0", "-movflags", "+use_metadata_tags"] {
        a.push(x.into());
    }
    for (k, v) in fields {
        a.push("-metadata".into());
        a.push(format!("{k}={v}").into());
    }
    a.extend(["-f", "mp4"].map(OsString::from));
    a.push(to.into());
    a
}

/// The tagged file's name while it is written.
fn tagging_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".tagging");
    path.with_file_name(name)
}

pub fn sha256_of(path: &Path) -> Result<String, std::io::Error> {
    let mut f = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(reel_rules::text::hex(&hasher.finalize()))
}

impl Tagger {
    /// Writes `path` again with `fields` added (blocking: run it off the async threads); the
    /// sha256 of the file now there. On any failure the file is left as it was.
    pub fn tag(&self, path: &Path, fields: &[(&str, String)]) -> Result<String, ProvenanceError> {
        let to = tagging_path(path);
        let io = |source| ProvenanceError::Io { path: to.clone(), source };
        super::disk::check(super::disk::Site::Provenance, path).map_err(io)?;
        // Written without starting ffmpeg when the layout allows (most files): ~100 ms less each.
        match super::mp4_tags::tag_file(path, &to, fields) {
            Ok(Some(sha)) => return self.finish(path, &to, Some(sha)).map_err(io),
            Ok(None) => {}
            Err(e) => {
                let _ = std::fs::remove_file(&to);
                return Err(io(e));
            }
        }
        let ran = crate::preview::run_program(&self.ffmpeg, &args(path, &to, fields), TIME_LIMIT, path);
        let failed = |message: String| {
            let _ = std::fs::remove_file(&to);
            ProvenanceError::Ffmpeg { path: path.to_path_buf(), message }
        };
        match ran {
            Err(crate::preview::PreviewError::NoFfmpeg { .. }) => return Err(ProvenanceError::NoFfmpeg),
            Err(e) => return Err(failed(e.to_string())),
            Ok(r) if !r.status.success() => return Err(failed(crate::preview::last_line(&r.stderr))),
            Ok(_) => {}
        }
        self.finish(path, &to, None).map_err(io)
    }

    /// Puts the tagged copy `to` in the place of `path`, durably; returns its sha256 (`sha` when
    /// it was taken as it was written).
    fn finish(&self, path: &Path, to: &Path, sha: Option<String>) -> Result<String, std::io::Error> {
        let done = || -> Result<String, std::io::Error> {
            let sha = match sha {
                Some(sha) => sha,
                None => sha256_of(to)?,
            };
            std::fs::File::open(to)?.sync_all()?;
            std::fs::rename(to, path)?;
            if let Some(dir) = path.parent() {
                std::fs::File::open(dir)?.sync_all()?;
            }
            Ok(sha)
        };
        done().inspect_err(|_| {
            let _ = std::fs::remove_file(to);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::LocalState;
    use reel_store::fixtures::record as task;

    #[test]
    fn a_file_ffmpeg_cannot_read_stays_as_the_service_sent_it() {
        if !reel_sim::video::testing::have_ffmpeg() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        // A service may answer with bytes that are no MP4 at all (an HTML error page, a webm).
        let path = dir.path().join("1-a-fox.mp4");
        let sent = b"<html>not a video</html>".to_vec();
        std::fs::write(&path, &sent).expect("write");
        let tagger = Tagger { ffmpeg: "ffmpeg".into() };
        let t = task(1, LocalState::Downloaded);
        let err = tagger.tag(&path, &fields(&t)).expect_err("not a video");
        assert!(matches!(err, ProvenanceError::Ffmpeg { .. }), "{err}");
        assert_eq!(std::fs::read(&path).expect("kept"), sent, "the service's bytes, untouched");
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, ["1-a-fox.mp4"], "no .tagging copy left behind");
        let missing = Tagger { ffmpeg: "reel-no-such-ffmpeg".into() }.tag(&path, &fields(&t));
        assert!(matches!(missing, Err(ProvenanceError::NoFfmpeg)), "{missing:?}");
        // A real video is tagged, and its new sum is the file's.
        let video = reel_sim::video::testing::video(dir.path());
        let sha = tagger.tag(&video, &fields(&t)).expect("tagged");
        assert_eq!(sha256_of(&video).expect("sum"), sha);
    }

    #[test]
    fn ffmetadata_is_read_back_as_written() {
        let text = ";FFMETADATA1\nmajor_brand=isom\ncomment={\"a\":\"x\\=y\\;z\\#w\\\\q\\\nline2\"}\ntitle=a fox\n[STREAM]\ntitle=not global\n";
        let pairs = ffmetadata(text);
        let want = [("major_brand", "isom"), ("comment", "{\"a\":\"x=y;z#w\\q\nline2\"}"), ("title", "a fox")];
        assert_eq!(pairs, want.map(|(k, v)| (k.to_string(), v.to_string())));
        assert!(from_metadata(&pairs).is_none(), "not reel's");
        let ours = vec![("comment".to_string(), "{\"reel_version\":\"1\",\"prompt\":\"p\"}".to_string())];
        assert_eq!(from_metadata(&ours).and_then(|v| v["prompt"].as_str().map(str::to_string)).as_deref(), Some("p"));
        assert!(ffmetadata("").is_empty() && ffmetadata(";FFMETADATA1\n").is_empty());
    }

    #[test]
    fn urls_travel_without_signatures_or_credentials() {
        let cases = [
            (
                "https://b.s3.example.com/k/a.png?X-Amz-Signature=abc&X-Amz-Expires=60",
                "https://b.s3.example.com/k/a.png",
            ),
            ("https://user:pw@x.org/v.mp4#t=3", "https://x.org/v.mp4"),
            ("http://127.0.0.1:8787/", "http://127.0.0.1:8787/"),
            ("/home/me/still.png", ""),
            ("file:///home/me/still.png", ""),
            ("", ""),
        ];
        for (url, want) in cases {
            assert_eq!(public_url(url), want, "{url}");
        }
    }

    #[test]
    fn the_record_carries_the_parameters_and_never_a_secret_or_a_path() {
        let mut t = task(7, LocalState::Downloaded);
        t.prompt = "a fox\nin snow".into();
        t.url = Some("https://cdn.example.com/v.mp4?sig=secret".into());
        t.media = vec![reel_store::MediaRecord {
            kind: "first_frame".into(),
            url: "https://b.example.com/a.png?X-Amz-Signature=secret".into(),
            seconds: None,
            local: Some(reel_rules::LocalOrigin::pending("/home/me/private/a.png")),
        }];
        let text = record(&t).to_string();
        for secret in ["secret", "/home/me", "cdn.example.com"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let back = parse(&text).expect("reel's record");
        assert_eq!((back["task_id"].as_i64(), back["prompt"].as_str()), (Some(7), Some("a fox\nin snow")));
        assert_eq!(back["media"][0]["url"], "https://b.example.com/a.png");
        let f = fields(&t);
        assert_eq!(f[0], ("title", "a fox in snow".to_string()));
        assert!(parse("{\"other\": 1}").is_none() && parse("made with something").is_none());
    }
}
