//! Local media files of a draft made into URLs before anything is sent: uploaded (or found in
//! the bucket already) and presigned, or, for a re-run, re-signed when the URL it was sent with
//! has expired or will expire before the service could fetch it. What to do is decided by
//! [`plan`], pure; [`carry_out`] does it; [`upload_all`] is the whole of it, as `reel submit` and
//! the dashboard both use it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

use super::storage::{Credentials, Progress, Storage, StorageError, StorageSettings, url_lifetime};
use reel_rules::source::local_path;
use reel_rules::{Draft, LocalOrigin, MediaKind};

/// Files at least this large report their progress.
pub const LARGE_FILE: u64 = 4 * 1024 * 1024;

/// What one media item needs before it can be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A local file not uploaded yet.
    Upload { path: PathBuf, kind: MediaKind },
    /// An uploaded object whose URL is expiring: sign again (upload again if it is gone).
    Resign { key: String, path: PathBuf, kind: MediaKind },
}

/// Why a media item could not be made into a URL.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("media item {} ({path}): {reason}", index + 1)]
pub struct UploadFailure {
    pub index: usize,
    pub path: String,
    pub reason: String,
}

/// Where relative and `~/` paths point, and when "now" is.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    pub home: Option<&'a Path>,
    pub cwd: &'a Path,
    /// Unix seconds.
    pub now: i64,
    /// The client timeout: a URL must outlive it, since the service may fetch it that late.
    pub client_timeout: Duration,
}

/// The items that need storage, by index, or every item whose path cannot be understood.
pub fn plan(draft: &Draft, frame: &Frame) -> Result<Vec<(usize, Step)>, Vec<UploadFailure>> {
    let within = i64::try_from(frame.client_timeout.as_secs()).unwrap_or(i64::MAX);
    let mut steps = Vec::new();
    let mut failures = Vec::new();
    for (index, m) in draft.media.iter().enumerate() {
        let (Some(local), Some(kind)) = (&m.local, MediaKind::parse(&m.kind)) else { continue };
        if local.is_uploaded() && !local.needs_resign(frame.now, within) {
            continue;
        }
        let path = match local_path(&local.path, frame.home, frame.cwd) {
            Ok(p) => p,
            Err(e) => {
                failures.push(UploadFailure { index, path: local.path.clone(), reason: e.to_string() });
                continue;
            }
        };
        steps.push((
            index,
            match &local.key {
                Some(key) => Step::Resign { key: key.clone(), path, kind },
                None => Step::Upload { path, kind },
            },
        ));
    }
    if failures.is_empty() { Ok(steps) } else { Err(failures) }
}

/// `[storage]` when a local file needs it; without it the error says how to add it.
pub fn configured(settings: Option<&StorageSettings>) -> Result<&StorageSettings, StorageError> {
    settings.ok_or(StorageError::NotConfigured)
}

/// `draft` with every local file uploaded (or its URL signed again) and its URL in place, or
/// each reason it cannot be (nothing is sent then). Credentials are asked for only when there
/// is something to upload; `progress` hears the bytes of large files.
pub async fn upload_all(
    draft: Draft,
    frame: &Frame<'_>,
    storage: Option<&StorageSettings>,
    credentials: impl AsyncFnOnce(&StorageSettings) -> Result<Credentials, StorageError>,
    progress: impl FnMut(usize, &Path, Progress) + Send,
) -> Result<Draft, Vec<String>> {
    let texts = |failures: Vec<UploadFailure>| failures.iter().map(ToString::to_string).collect::<Vec<_>>();
    let steps = plan(&draft, frame).map_err(texts)?;
    if steps.is_empty() {
        return Ok(draft);
    }
    let settings = configured(storage).map_err(|e| vec![e.to_string()])?;
    let credentials = credentials(settings).await.map_err(|e| vec![e.to_string()])?;
    let storage = Storage::connect(Some(settings), credentials).map_err(|e| vec![e.to_string()])?;
    carry_out(&draft, steps, &storage, url_lifetime(frame.client_timeout), progress).await.map_err(texts)
}

/// Carries out `steps`: the draft with each local item's URL and origin filled in, or every
/// failure. `progress` hears each item's bytes sent.
pub async fn carry_out(
    draft: &Draft,
    steps: Vec<(usize, Step)>,
    storage: &Storage,
    lifetime: Duration,
    mut progress: impl FnMut(usize, &Path, Progress) + Send,
) -> Result<Draft, Vec<UploadFailure>> {
    let mut out = draft.clone();
    let mut failures = Vec::new();
    for (index, step) in steps {
        let (path, result) = match step {
            Step::Upload { path, kind } => {
                let r = upload(storage, &path, kind, lifetime, index, &mut progress).await.map_err(|e| e.to_string());
                (path, r)
            }
            Step::Resign { key, path, kind } => {
                let r = match storage.resign(&key, lifetime).await {
                    Ok(s) => Ok(LocalOrigin {
                        path: path.display().to_string(),
                        key: Some(key),
                        expires_at: Some(s.expires_at.as_second()),
                    })
                    .map(|o| (s.url, o)),
                    Err(StorageError::Gone { .. }) if path.is_file() => {
                        upload(storage, &path, kind, lifetime, index, &mut progress).await.map_err(|e| e.to_string())
                    }
                    Err(e @ StorageError::Gone { .. }) => {
                        Err(format!("{e}, and the file is no longer there to upload again"))
                    }
                    Err(e) => Err(e.to_string()),
                };
                (path, r)
            }
        };
        match (result, out.media.get_mut(index)) {
            (Ok((url, origin)), Some(m)) => {
                m.url = url;
                m.local = Some(origin);
            }
            (Ok(_), None) => {}
            (Err(reason), _) => failures.push(UploadFailure { index, path: path.display().to_string(), reason }),
        }
    }
    if failures.is_empty() { Ok(out) } else { Err(failures) }
}

async fn upload(
    storage: &Storage,
    path: &Path,
    kind: MediaKind,
    lifetime: Duration,
    index: usize,
    progress: &mut (impl FnMut(usize, &Path, Progress) + Send),
) -> Result<(String, LocalOrigin), StorageError> {
    // Kept absolute, so a re-run from another folder finds the same file.
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let up = storage.upload(&absolute, kind, lifetime, |p| progress(index, &absolute, p)).await?;
    let origin = LocalOrigin {
        path: absolute.display().to_string(),
        key: Some(up.key),
        expires_at: Some(up.expires_at.as_second()),
    };
    Ok((up.url, origin))
}

/// A line about a large file's upload, or `None` for a small one.
pub fn progress_line(index: usize, path: &Path, p: Progress) -> Option<String> {
    (p.total >= LARGE_FILE).then(|| {
        let percent = p.sent.saturating_mul(100).checked_div(p.total).unwrap_or(100);
        format!(
            "uploading media item {} ({}): {} of {} ({percent}%)",
            index + 1,
            reel_rules::text::clean(&path.display().to_string()),
            reel_rules::text::size(p.sent),
            reel_rules::text::size(p.total)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_rules::MediaDraft;

    fn frame(now: i64) -> Frame<'static> {
        Frame {
            home: Some(Path::new("/home/u")),
            cwd: Path::new("/work"),
            now,
            client_timeout: Duration::from_secs(600),
        }
    }

    fn uploaded(path: &str, expires_at: i64) -> MediaDraft {
        MediaDraft {
            local: Some(LocalOrigin {
                path: path.into(),
                key: Some("reel/k.png".into()),
                expires_at: Some(expires_at),
            }),
            ..MediaDraft::typed("reference_image", "https://b.example/k.png?sig", None)
        }
    }

    #[test]
    fn what_each_item_needs() {
        let draft = Draft {
            media: vec![
                MediaDraft::typed("reference_image", "https://x.org/a.png", None),
                MediaDraft::typed("reference_image", "~/a.png", None),
                uploaded("/pics/b.png", 10_000),
                uploaded("/pics/c.png", 1_500),
                MediaDraft::typed("bogus", "./d.png", None),
            ],
            ..Draft::default()
        };
        let steps = plan(&draft, &frame(1_000)).expect("all understood");
        let kind = MediaKind::ReferenceImage;
        assert_eq!(
            steps,
            [
                (1, Step::Upload { path: "/home/u/a.png".into(), kind }),
                // Expires within the client timeout: the service could fetch it too late.
                (3, Step::Resign { key: "reel/k.png".into(), path: "/pics/c.png".into(), kind }),
            ]
        );
        assert_eq!(plan(&draft, &frame(0)).expect("ok").len(), 1, "nothing to re-sign yet");
    }

    #[test]
    fn unusable_paths_are_named() {
        let draft = Draft { media: vec![MediaDraft::typed("first_frame", "~/a.png", None)], ..Draft::default() };
        let f = Frame { home: None, ..frame(0) };
        let failures = plan(&draft, &f).expect_err("no home");
        assert_eq!(failures[0].index, 0);
        assert!(failures[0].to_string().starts_with("media item 1 (~/a.png): "), "{}", failures[0]);
    }

    #[test]
    fn progress_only_for_large_files() {
        let p = Path::new("/a.mp4");
        assert_eq!(progress_line(0, p, Progress { sent: 10, total: 100 }), None);
        let line = progress_line(1, p, Progress { sent: LARGE_FILE / 2, total: LARGE_FILE }).expect("large");
        assert!(line.starts_with("uploading media item 2 (/a.mp4): ") && line.ends_with("(50%)"), "{line}");
    }
}
