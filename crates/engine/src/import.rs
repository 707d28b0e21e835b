//! `reel import`: a history entry rebuilt from a video file and what it says of itself (its
//! sidecar .json, or the provenance written into it). Pure: the caller reads the files.

use std::path::Path;

use serde_json::Value;

use reel_store::{LocalState, MediaRecord, TaskRecord};

/// A video file found, with what was read of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'a> {
    pub path: &'a Path,
    pub size: u64,
    /// Of the file as it is.
    pub sha256: &'a str,
    /// The folder `reel import` was given, as the entry records it.
    pub from: &'a str,
}

/// Why a file is not imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotImported {
    #[error("no reel record: neither a sidecar .json nor provenance in the file")]
    NoRecord,
    #[error("its record has no {0}")]
    Missing(&'static str),
}

fn text(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| v.get(*k)?.as_str()).map(str::to_string)
}

fn int(v: &Value, keys: &[&str]) -> Option<i64> {
    keys.iter().find_map(|k| v.get(*k)?.as_i64())
}

/// When the task was made: the sidecar's milliseconds, or the embedded RFC 3339 time.
fn created_ms(v: &Value) -> Option<i64> {
    int(v, &["created_at_ms"]).or_else(|| {
        let t: jiff::Timestamp = v.get("created_at")?.as_str()?.parse().ok()?;
        Some(t.as_millisecond())
    })
}

/// The entry for `found`, from its record (a sidecar's JSON or the embedded one). The video's
/// URL and any local path of the history it came from are left out: they meant something
/// there, not here. `now_ms` is when it is imported.
pub fn entry(record: &Value, found: &Found<'_>, now_ms: i64) -> Result<TaskRecord, NotImported> {
    let model = text(record, &["model"]).ok_or(NotImported::Missing("model"))?;
    let prompt = text(record, &["prompt"]).ok_or(NotImported::Missing("prompt"))?;
    // Journaled now: ids grow with creation time in this journal (date ranges and the budget
    // rely on it); when it was made elsewhere is said in its timeline.
    let media: Vec<MediaRecord> = record
        .get("media")
        .and_then(|m| serde_json::from_value::<Vec<MediaRecord>>(m.clone()).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|m| MediaRecord { local: None, url: super::provenance::public_url(&m.url), ..m })
        .collect();
    // The service's bytes: the sidecar's sum when the file is tagged, else the file's own.
    let service_sha = text(record, &["sha256"]).unwrap_or_else(|| found.sha256.to_string());
    let file_sha = (service_sha != found.sha256).then(|| found.sha256.to_string());
    Ok(TaskRecord {
        // The ids of the history it came from: the engine maps them to this journal's.
        id: int(record, &["id", "task_id"]).unwrap_or(0),
        parent_id: int(record, &["parent_id"]),
        batch_id: int(record, &["batch_id"]),
        remote_id: text(record, &["remote_id"]),
        idempotency_key: format!("imported-{}", found.sha256),
        profile: None,
        base_url: text(record, &["base_url", "service"]).unwrap_or_default(),
        model,
        prompt,
        negative_prompt: text(record, &["negative_prompt"]),
        seconds: int(record, &["seconds"]).unwrap_or(0),
        resolution: text(record, &["resolution"]).unwrap_or_default(),
        ratio: text(record, &["ratio"]).unwrap_or_default(),
        watermark: record.get("watermark").and_then(Value::as_bool).unwrap_or(false),
        media,
        billed_seconds: record.get("billed_seconds").and_then(Value::as_f64),
        state: LocalState::Downloaded,
        remote_status: Some("completed".into()),
        progress: Some(100.0),
        created_at: now_ms,
        submitted_at: None,
        remote_created_at: int(record, &["remote_created_at"]),
        remote_completed_at: int(record, &["remote_completed_at"]),
        finished_at: Some(now_ms),
        url: None,
        url_deadline: None,
        error: None,
        file_path: Some(found.path.to_string_lossy().into_owned()),
        file_size: Some(found.size as i64),
        sha256: Some(service_sha),
        poll_count: 0,
        poll_failures: 0,
        last_polled_at: None,
        next_poll_at: None,
        download_attempts: 0,
        url_refreshes: 0,
        updated_at: now_ms,
        review: review_of(record),
        file_sha256: file_sha,
        imported_from: Some(found.from.to_string()),
        rendered: Default::default(),
    })
}

/// The review a record carries (a sidecar keeps the latest): a rating of 1 to 5, the tags that
/// read as tags, the pick; anything else is left out.
fn review_of(record: &Value) -> reel_store::Review {
    let rating = record.get("rating").and_then(Value::as_u64).filter(|r| (1..=5).contains(r)).map(|r| r as u8);
    let mut tags: Vec<String> = record
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(|t| reel_store::review::tag(t.as_str()?).ok()).collect())
        .unwrap_or_default();
    tags.sort();
    tags.dedup();
    let picked = record.get("picked").and_then(Value::as_bool).unwrap_or(false);
    reel_store::Review { rating, picked, tags }
}

/// What the entry's timeline says of where it came from.
pub fn origin(record: &Value, found: &Found<'_>) -> String {
    let mut said = format!("imported from {}", reel_rules::text::one_line(&found.path.to_string_lossy()));
    let made = created_ms(record).and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok());
    match (int(record, &["id", "task_id"]), made) {
        (Some(id), Some(at)) => said.push_str(&format!(" (task {id} of the history it came from, made {at})")),
        (Some(id), None) => said.push_str(&format!(" (task {id} of the history it came from)")),
        (None, Some(at)) => said.push_str(&format!(" (made {at})")),
        (None, None) => {}
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_800_000_000_000;

    fn found(sha: &str) -> Found<'_> {
        Found { path: Path::new("/shared/takes/7-a-fox.mp4"), size: 42, sha256: sha, from: "/shared/takes" }
    }

    #[test]
    fn a_sidecar_and_an_embedded_record_give_the_same_entry() {
        let sidecar = json!({
            "id": 7, "remote_id": "task_1", "base_url": "https://api.example.com/", "model": "m", "prompt": "a fox",
            "negative_prompt": "blur", "seconds": 8, "resolution": "720P", "ratio": "16:9", "watermark": true,
            "media": [{"type": "first_frame", "url": "https://b.example.com/a.png?sig=1", "local": {"path": "/home/x/a.png"}}],
            "billed_seconds": 8.0, "created_at_ms": 1_700_000_000_000i64, "url": "https://cdn/v.mp4?sig=2",
            "sha256": "service", "file_sha256": "tagged",
        });
        let embedded = json!({
            "reel_version": "0.1.0", "task_id": 7, "remote_id": "task_1", "service": "https://api.example.com/",
            "model": "m", "prompt": "a fox", "negative_prompt": "blur", "seconds": 8, "resolution": "720P",
            "ratio": "16:9", "watermark": true, "media": [{"type": "first_frame", "url": "https://b.example.com/a.png", "seconds": null}],
            "billed_seconds": 8.0, "created_at": "2023-11-14T22:13:20Z",
        });
        let a = entry(&sidecar, &found("tagged"), NOW).expect("from the sidecar");
        let b = entry(&embedded, &found("tagged"), NOW).expect("from the file");
        assert_eq!((a.model.as_str(), a.prompt.as_str(), a.seconds, a.watermark), ("m", "a fox", 8, true));
        assert_eq!((a.created_at, b.created_at), (NOW, NOW), "journaled now: ids grow with creation time");
        assert_eq!(a.media[0].url, "https://b.example.com/a.png", "no signature");
        assert_eq!(a.media[0].local, None, "no path of another machine");
        assert_eq!(a.url, None);
        assert_eq!((a.sha256.as_deref(), a.file_sha256.as_deref()), (Some("service"), Some("tagged")));
        assert_eq!((b.sha256.as_deref(), b.file_sha256.as_deref()), (Some("tagged"), None), "no other sum known");
        assert_eq!((a.state, a.imported_from.as_deref()), (LocalState::Downloaded, Some("/shared/takes")));
        assert_eq!(a.file_path.as_deref(), Some("/shared/takes/7-a-fox.mp4"));
        let said =
            "imported from /shared/takes/7-a-fox.mp4 (task 7 of the history it came from, made 2023-11-14T22:13:20Z)";
        assert_eq!(origin(&sidecar, &found("x")), said);
        assert_eq!(origin(&embedded, &found("x")), said);
    }

    #[test]
    fn a_record_without_model_or_prompt_is_not_imported() {
        let cases = [
            (json!({"prompt": "p"}), NotImported::Missing("model")),
            (json!({"model": "m"}), NotImported::Missing("prompt")),
            (json!({"model": 3, "prompt": "p"}), NotImported::Missing("model")),
        ];
        for (record, why) in cases {
            assert_eq!(entry(&record, &found("s"), NOW), Err(why), "{record}");
        }
    }
}
