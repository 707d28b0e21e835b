//! The dashboard's media work at send time, off the UI thread: local files uploaded (or their
//! expiring URLs re-signed, for a re-run), every media URL checked, and the submission
//! validated again with what was measured. The engine only ever gets what passed.

use std::path::PathBuf;
use std::time::Duration;

use reel_engine::media::storage::StorageSettings;
use reel_engine::media::{preflight, uploads};
use reel_rules::{Catalog, Draft, UnknownModels, ValidSubmission, validate};

/// What the media work needs from the settings.
#[derive(Debug, Clone)]
pub struct MediaContext {
    pub storage: Option<StorageSettings>,
    pub home: Option<PathBuf>,
    pub client_timeout: Duration,
    pub catalog: Catalog,
}

/// A submission's parameters as a draft, to work on its media.
fn draft_of(v: &ValidSubmission) -> Draft {
    Draft::from(v)
}

/// Why a submission's media could not be made ready; nothing of it was sent.
#[derive(Debug, thiserror::Error)]
pub enum NotReady {
    /// Uploads or checks that failed, each naming its item.
    #[error("{}", .0.join("; "))]
    Items(Vec<String>),
    #[error("a local media file was not uploaded")]
    NotUploaded,
    /// The rules refused what the checks measured.
    #[error(transparent)]
    Invalid(#[from] reel_rules::Invalid),
}

/// `v` with its local files uploaded and every media URL checked, or why it cannot be sent
/// (every failing item named). Progress of large uploads goes to the status line.
pub async fn prepare(
    v: ValidSubmission,
    cx: &MediaContext,
    report: impl Fn(String) + Send + Sync,
) -> Result<ValidSubmission, NotReady> {
    if v.media.is_empty() {
        return Ok(v);
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let frame = uploads::Frame {
        home: cx.home.as_deref(),
        cwd: &cwd,
        now: jiff::Timestamp::now().as_second(),
        client_timeout: cx.client_timeout,
    };
    let shown = |index, path: &std::path::Path, p| {
        if let Some(line) = uploads::progress_line(index, path, p) {
            report(line);
        }
    };
    let storage = cx.storage.as_ref();
    let draft = uploads::upload_all(draft_of(&v), &frame, storage, reel_engine::config::storage_credentials, shown)
        .await
        .map_err(NotReady::Items)?;
    let (again, _) = preflight::check_draft(&draft).await.map_err(NotReady::Items)?;
    match validate(&again, &cx.catalog, UnknownModels::Warn)? {
        v if !v.awaits_uploads() => Ok(v),
        _ => Err(NotReady::NotUploaded),
    }
}

/// What the dashboard knows of one media item of the form, by its text ([`item_key`]).
#[derive(Debug, Clone, PartialEq)]
pub enum MediaStatus {
    Checking,
    /// Reachable and of the right type; `None`: not known (never shown as 0).
    Checked {
        size: Option<u64>,
        duration: Option<f64>,
    },
    Failed(String),
}

impl MediaStatus {
    /// Size and duration as the form shows them beside the item.
    pub fn summary(&self, kind: &str) -> String {
        let timed = reel_rules::MediaKind::parse(kind).is_some_and(|k| k.max_total_seconds().is_some());
        match self {
            MediaStatus::Checking => "checking…".into(),
            MediaStatus::Checked { size, duration } => {
                let size = size.map_or_else(|| "size unknown".to_string(), reel_rules::text::size);
                match (timed, duration) {
                    (false, _) => size,
                    (true, Some(d)) => format!("{size} · {d:.1} s"),
                    (true, None) => format!("{size} · duration unknown"),
                }
            }
            MediaStatus::Failed(reason) => format!("✗ {reason}"),
        }
    }
}

/// Beside a local file in the form when nothing is configured to upload it to.
pub const NO_STORAGE: &str = "a local file needs [storage] in the config file to be uploaded (see README)";

/// The key a form item's check is kept under: its type and text, so an edit checks again.
pub fn item_key(kind: &str, url: &str) -> String {
    format!("{kind} {url}")
}

/// Checks the form's items off the UI thread: URLs by the preflight, local files by reading
/// their size (they are uploaded and checked as URLs at send, so without `[storage]` they are
/// refused here already).
pub async fn check_items(
    items: Vec<(String, reel_rules::MediaDraft)>,
    home: Option<PathBuf>,
    storage: bool,
) -> Vec<(String, MediaStatus)> {
    let mut out = Vec::new();
    let mut remote = Vec::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    for (key, m) in items {
        let Some(kind) = reel_rules::MediaKind::parse(&m.kind) else { continue };
        if m.local.as_ref().is_some_and(|l| !l.is_uploaded()) {
            let status = match reel_rules::source::local_path(&m.url, home.as_deref(), &cwd) {
                Err(e) => MediaStatus::Failed(e.to_string()),
                Ok(_) if !storage => MediaStatus::Failed(NO_STORAGE.into()),
                Ok(path) => match tokio::fs::metadata(&path).await {
                    Ok(meta) if meta.is_file() => MediaStatus::Checked { size: Some(meta.len()), duration: None },
                    Ok(_) => MediaStatus::Failed(format!("{} is not a file", path.display())),
                    Err(e) => MediaStatus::Failed(format!("cannot read {}: {e}", path.display())),
                },
            };
            out.push((key, status));
        } else {
            remote.push((key, preflight::Item { index: out.len() + remote.len(), kind, url: m.url, stated: None }));
        }
    }
    if remote.is_empty() {
        return out;
    }
    let http = match preflight::client() {
        Ok(c) => c,
        Err(e) => {
            out.extend(remote.into_iter().map(|(k, _)| (k, MediaStatus::Failed(format!("cannot check: {e}")))));
            return out;
        }
    };
    let items: Vec<preflight::Item> = remote.iter().map(|(_, i)| i.clone()).collect();
    let results = preflight::check(&http, &items, &preflight::Options::default()).await;
    for ((key, _), r) in remote.into_iter().zip(results) {
        out.push((
            key,
            match r {
                Ok(c) => MediaStatus::Checked { size: c.size, duration: c.duration },
                Err(e) => MediaStatus::Failed(e.reason.to_string()),
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_rules::MediaDraft;

    #[tokio::test]
    async fn a_local_file_is_sized_and_refused_at_once_without_storage() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("still.png");
        std::fs::write(&path, [0x89, b'P', b'N', b'G']).expect("write");
        let text = path.display().to_string();
        let items = || vec![("k".to_string(), MediaDraft::typed("first_frame", &text, None))];
        let cases = [
            (true, MediaStatus::Checked { size: Some(4), duration: None }),
            (false, MediaStatus::Failed(NO_STORAGE.into())),
        ];
        for (storage, want) in cases {
            assert_eq!(check_items(items(), None, storage).await, vec![("k".to_string(), want)], "storage {storage}");
        }
        let missing = MediaDraft::typed("first_frame", "/no/such/still.png", None);
        let got = check_items(vec![("k".into(), missing)], None, true).await;
        assert!(matches!(&got[0].1, MediaStatus::Failed(r) if r.contains("cannot read")), "{got:?}");
    }
}
