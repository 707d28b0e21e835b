//! A task as `--json` and the exports show it to scripts: every time an RFC 3339 string in UTC
//! (the journal keeps milliseconds, the service's own times are seconds; neither leaks out),
//! `billed_seconds` null for a task nothing was rendered for, and the fields in a fixed,
//! meaningful order (id first), which is also the CSV's column order.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ledger::billable;
use crate::query::HistoryRow;
use reel_store::{EventRecord, LocalState, MediaRecord, TaskRecord};

/// Unix milliseconds as RFC 3339 in UTC, always with three digits of milliseconds
/// (`2026-11-25T01:12:03.417Z`, `…:03.640Z`, `…:03.000Z`), so every time has one shape; `None`
/// for a value out of range.
pub fn time_ms(ms: i64) -> Option<String> {
    let whole = jiff::Timestamp::from_second(ms.div_euclid(1000)).ok()?.to_string();
    Some(format!("{}.{:03}Z", whole.strip_suffix('Z')?, ms.rem_euclid(1000)))
}

/// Unix seconds (the service's unit) as RFC 3339, in the same shape as [`time_ms`].
pub fn time_s(s: i64) -> Option<String> {
    time_ms(s.checked_mul(1000)?)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PublicTask<'a> {
    pub id: i64,
    pub parent_id: Option<i64>,
    pub batch_id: Option<i64>,
    pub remote_id: Option<&'a str>,
    pub state: LocalState,
    pub remote_status: Option<&'a str>,
    pub progress: Option<f64>,
    pub model: &'a str,
    pub prompt: &'a str,
    pub negative_prompt: Option<&'a str>,
    pub seconds: i64,
    pub resolution: &'a str,
    pub ratio: &'a str,
    pub watermark: bool,
    pub media: &'a [MediaRecord],
    /// What the service bills; null when it rendered nothing (failed, rejected or lost first).
    pub billed_seconds: Option<f64>,
    /// What the service says it rendered; null when it said nothing of it.
    pub rendered: Option<PublicRendered<'a>>,
    pub created_at: Option<String>,
    pub submitted_at: Option<String>,
    pub remote_created_at: Option<String>,
    pub remote_completed_at: Option<String>,
    pub finished_at: Option<String>,
    pub url: Option<&'a str>,
    pub url_deadline: Option<String>,
    pub error: Option<&'a Value>,
    pub file_path: Option<&'a str>,
    pub file_size: Option<i64>,
    /// Of the bytes the service sent.
    pub sha256: Option<&'a str>,
    /// Of the file as saved, when its provenance was written into it.
    pub file_sha256: Option<&'a str>,
    /// Where `reel import` found it; null for a task this history sent.
    pub imported_from: Option<&'a str>,
    pub profile: Option<&'a str>,
    pub base_url: &'a str,
    pub idempotency_key: &'a str,
    pub poll_count: i64,
    pub poll_failures: i64,
    pub last_polled_at: Option<String>,
    pub next_poll_at: Option<String>,
    pub download_attempts: i64,
    pub url_refreshes: i64,
    pub updated_at: Option<String>,
    /// 1 to 5; null while not rated.
    pub rating: Option<u8>,
    /// Chosen as the winner of its batch or comparison.
    pub picked: bool,
    pub tags: &'a [String],
}

/// The service's account of a task's output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PublicRendered<'a> {
    /// The frame it names (`1920x1080`, or a resolution).
    pub size: Option<&'a str>,
    pub seconds: Option<f64>,
    /// Its `usage`, as it came.
    pub usage: Option<&'a Value>,
    /// `asked 720P 1:1, rendered 1920x1080` when that is not what was asked; null when it is.
    pub otherwise: Option<String>,
}

impl<'a> From<&'a TaskRecord> for PublicTask<'a> {
    fn from(t: &'a TaskRecord) -> Self {
        let ms = |v: Option<i64>| v.and_then(time_ms);
        PublicTask {
            id: t.id,
            parent_id: t.parent_id,
            batch_id: t.batch_id,
            remote_id: t.remote_id.as_deref(),
            state: t.state,
            remote_status: t.remote_status.as_deref(),
            progress: t.progress,
            model: &t.model,
            prompt: &t.prompt,
            negative_prompt: t.negative_prompt.as_deref(),
            seconds: t.seconds,
            resolution: &t.resolution,
            ratio: &t.ratio,
            watermark: t.watermark,
            media: &t.media,
            billed_seconds: t.billed_seconds.filter(|_| billable(t.state, t.remote_completed_at.is_some())),
            rendered: (!t.rendered.is_empty()).then(|| PublicRendered {
                size: t.rendered.size.as_deref(),
                seconds: t.rendered.seconds,
                usage: t.rendered.usage.as_ref(),
                otherwise: reel_rules::rendered::said(t.asked(), &t.rendered),
            }),
            created_at: time_ms(t.created_at),
            submitted_at: ms(t.submitted_at),
            remote_created_at: t.remote_created_at.and_then(time_s),
            remote_completed_at: t.remote_completed_at.and_then(time_s),
            finished_at: ms(t.finished_at),
            url: t.url.as_deref(),
            url_deadline: ms(t.url_deadline),
            error: t.error.as_ref(),
            file_path: t.file_path.as_deref(),
            file_size: t.file_size,
            sha256: t.sha256.as_deref(),
            file_sha256: t.file_sha256.as_deref(),
            imported_from: t.imported_from.as_deref(),
            profile: t.profile.as_deref(),
            base_url: &t.base_url,
            idempotency_key: &t.idempotency_key,
            poll_count: t.poll_count,
            poll_failures: t.poll_failures,
            last_polled_at: ms(t.last_polled_at),
            next_poll_at: ms(t.next_poll_at),
            download_attempts: t.download_attempts,
            url_refreshes: t.url_refreshes,
            updated_at: time_ms(t.updated_at),
            rating: t.review.rating,
            picked: t.review.picked,
            tags: &t.review.tags,
        }
    }
}

pub fn tasks(records: &[TaskRecord]) -> Vec<PublicTask<'_>> {
    records.iter().map(PublicTask::from).collect()
}

/// A history row: the task, and whether its file is still where reel saved it.
#[derive(Debug, Serialize)]
pub struct PublicRow<'a> {
    #[serde(flatten)]
    pub task: PublicTask<'a>,
    pub file_present: Option<bool>,
}

pub fn rows(rows: &[HistoryRow]) -> Vec<PublicRow<'_>> {
    rows.iter().map(|r| PublicRow { task: PublicTask::from(&r.record), file_present: r.file_present }).collect()
}

#[derive(Debug, Serialize)]
pub struct PublicEvent<'a> {
    pub at: Option<String>,
    pub state: &'a str,
    pub detail: Option<&'a str>,
}

pub fn events(events: &[EventRecord]) -> Vec<PublicEvent<'_>> {
    events.iter().map(|e| PublicEvent { at: time_ms(e.at), state: &e.state, detail: e.detail.as_deref() }).collect()
}

/// A task's fields in order, as (name, value): the CSV's header and cells.
pub fn fields(t: &TaskRecord) -> Result<Vec<(String, Value)>, serde_json::Error> {
    // Through text, since a `serde_json::Value` object would sort the names.
    let text = serde_json::to_string(&PublicTask::from(t))?;
    Ok(serde_json::from_str::<Ordered>(&text)?.0)
}

/// A JSON object's members in the order written.
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    out.push(member);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Members)
    }
}

/// `reel engine status --json`: the engine process as scripts read it, times in RFC 3339 like
/// every other `--json`.
pub fn engine_status(s: &crate::service::Status) -> Value {
    let service = &s.service;
    serde_json::json!({
        "running": true,
        "pid": s.pid,
        "version": s.version,
        "started_at": time_ms(s.started_at_ms),
        "socket": s.socket,
        "clients": s.clients,
        "unfinished": s.unfinished,
        "requests_in_flight": s.requests_in_flight,
        "downloads": s.downloads,
        "service": {
            "health": service.health.to_string(),
            "since": service.since_ms.and_then(time_ms),
            "paused_until": service.paused_until_ms.and_then(time_ms),
            "retry_after": service.retry_after,
            "detail": service.detail,
        },
        // The engine's writing work waits for room on a full disk (`null`: it does not).
        "paused": service.disk.as_ref().map(|d| serde_json::json!({
            "summary": d.summary(),
            "dir": d.dir,
            "free_bytes": d.free_bytes,
            "needed_bytes": d.needed_bytes,
            "what": d.what,
            "since": time_ms(d.since_ms),
        })),
        "serves": s.serves,
        // The settings the engine decides by, from the config it started with.
        "decides": s.decides.0.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::fixtures;

    #[test]
    fn every_field_of_a_task_is_shown_and_no_time_is_a_number() {
        let mut t = fixtures::record(7, LocalState::Downloaded);
        t.submitted_at = Some(t.created_at + 1);
        t.remote_created_at = Some(t.created_at / 1000);
        t.remote_completed_at = Some(t.created_at / 1000 + 60);
        t.url_deadline = Some(t.created_at + 3_600_000);
        let stored = serde_json::to_value(&t).expect("json");
        let shown = fields(&t).expect("fields");
        let names: Vec<&str> = shown.iter().map(|(n, _)| n.as_str()).collect();
        let mut stored_names: Vec<&str> = stored.as_object().expect("object").keys().map(String::as_str).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        stored_names.sort_unstable();
        assert_eq!(sorted, stored_names, "a field added to TaskRecord is added here too");
        assert_eq!(names[0], "id");
        for (name, value) in &shown {
            if name.ends_with("_at") || name == "url_deadline" {
                assert!(value.is_string() || value.is_null(), "{name}: {value}");
            }
        }
        let at = |name: &str| shown.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).expect("field");
        assert_eq!(at("remote_completed_at"), Value::from(time_s(t.created_at / 1000 + 60).expect("time")));
        assert_eq!(at("created_at"), Value::from(time_ms(t.created_at).expect("time")));
    }

    #[test]
    fn times_are_rfc3339_in_utc_from_either_unit() {
        let cases = [
            (1_764_033_123_417, "2025-11-25T01:12:03.417Z"),
            (1_764_033_123_640, "2025-11-25T01:12:03.640Z"),
            (1_764_033_123_000, "2025-11-25T01:12:03.000Z"),
            (1_764_033_123_007, "2025-11-25T01:12:03.007Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ];
        for (ms, want) in cases {
            assert_eq!(time_ms(ms).as_deref(), Some(want), "{ms}");
        }
        assert_eq!(time_s(1_764_033_123).as_deref(), Some("2025-11-25T01:12:03.000Z"));
        assert_eq!(time_ms(i64::MAX), None);
        assert_eq!(time_s(i64::MAX), None);
    }

    #[test]
    fn billed_seconds_only_where_something_was_rendered() {
        let cases = [
            (LocalState::Downloaded, true, Some(5.0)),
            (LocalState::InProgress, false, Some(5.0)),
            (LocalState::SubmitUnknown, false, Some(5.0)),
            (LocalState::Failed, false, None),
            (LocalState::Failed, true, Some(5.0)),
            (LocalState::Rejected, false, None),
            (LocalState::Lost, false, None),
        ];
        for (state, rendered, want) in cases {
            let mut t = fixtures::record(1, state);
            t.billed_seconds = Some(5.0);
            t.remote_completed_at = rendered.then_some(100);
            assert_eq!(PublicTask::from(&t).billed_seconds, want, "{state} rendered {rendered}");
        }
    }

    #[test]
    fn the_engine_status_has_no_millisecond_field() {
        use crate::service::{Served, Status};
        let status = Status {
            pid: 7,
            version: "0.1.0".into(),
            started_at_ms: 1_800_000_000_000,
            socket: "/d/engine.sock".into(),
            clients: 2,
            unfinished: 3,
            requests_in_flight: 1,
            downloads: 0,
            service: crate::ServiceState {
                health: crate::Health::RateLimited,
                since_ms: Some(1_800_000_000_000),
                paused_until_ms: Some(1_800_000_005_000),
                retry_after: true,
                detail: Some("429".into()),
                disk: None,
            },
            serves: Served { profile: None, base_url: None, key_id: None },
            decides: Default::default(),
        };
        let v = engine_status(&status);
        let text = v.to_string();
        assert!(!text.contains("_ms"), "{text}");
        assert_eq!(v["started_at"], "2027-01-15T08:00:00.000Z");
        assert_eq!(v["service"]["paused_until"], "2027-01-15T08:00:05.000Z");
        assert_eq!((v["running"].as_bool(), v["pid"].as_u64()), (Some(true), Some(7)));
    }
}
