//! The one mapping between what a user submits, the journal row and the request body:
//! validated submission → [`NewTask`] → [`TaskRecord`] → [`SubmitRequest`], and back from a
//! row to a [`Draft`] when a task is sent again or varied.

use reel_api::SubmitRequest;
use reel_api::types::{MediaItem, Metadata};
use reel_rules::{Draft, MediaDraft, ValidSubmission};
use reel_store::tasks::{MediaRecord, NewTask};
use reel_store::{LocalState, TaskRecord};

/// What the journal records about a submission besides its parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origin {
    pub parent_id: Option<i64>,
    pub idempotency_key: String,
    pub profile: Option<String>,
    pub base_url: String,
    pub created_at: i64,
}

/// Copies of one validated submission, and the task they derive from: a part of what one
/// submission sends (a grid has a part per cell; sending several tasks again, a part per task).
/// The tasks of all the parts form one batch when there are several.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub submission: ValidSubmission,
    pub count: u32,
    pub parent: Option<i64>,
}

/// The row to journal for a validated submission; its batch is decided when the rows of a
/// submission are journaled together (`tasks::insert_batch`).
pub fn new_task(s: &ValidSubmission, origin: Origin) -> NewTask {
    NewTask {
        parent_id: origin.parent_id,
        batch_id: None,
        idempotency_key: origin.idempotency_key,
        profile: origin.profile,
        base_url: origin.base_url,
        model: s.model.to_string(),
        prompt: s.prompt.clone(),
        negative_prompt: s.negative_prompt.clone(),
        seconds: s.seconds,
        resolution: s.resolution.to_string(),
        ratio: s.ratio.to_string(),
        watermark: s.watermark,
        media: s
            .media
            .iter()
            .map(|m| MediaRecord {
                kind: m.kind.to_string(),
                url: m.url.clone(),
                seconds: m.seconds,
                local: m.local.clone(),
            })
            .collect(),
        billed_seconds: s.billing.total(),
        created_at: origin.created_at,
        row_key: Some(reel_rules::batch::key::content_key(s)),
    }
}

/// The request body of a journaled task. Rows are written only from validated submissions
/// (by [`new_task`]), so nothing else reaches the network.
pub fn request(r: &TaskRecord) -> SubmitRequest {
    SubmitRequest {
        model: r.model.clone(),
        prompt: r.prompt.clone(),
        seconds: r.seconds,
        metadata: Metadata {
            resolution: r.resolution.clone(),
            ratio: r.ratio.clone(),
            watermark: r.watermark,
            media: r.media.iter().map(|m| MediaItem { kind: m.kind.clone(), url: m.url.clone() }).collect(),
            negative_prompt: r.negative_prompt.clone(),
        },
    }
}

/// The body a submission would be sent with, through the journal's mapping.
pub fn request_for(s: &ValidSubmission) -> SubmitRequest {
    request(&TaskRecord::journaled(0, new_task(s, Origin::default()), LocalState::Waiting))
}

/// A task's parameters as a draft, to validate again (send again as is) or to edit (vary).
pub fn draft(r: &TaskRecord) -> Draft {
    Draft {
        model: r.model.clone(),
        prompt: r.prompt.clone(),
        negative_prompt: r.negative_prompt.clone().unwrap_or_default(),
        seconds: Some(r.seconds.to_string()),
        resolution: Some(r.resolution.clone()),
        ratio: Some(r.ratio.clone()),
        watermark: Some(r.watermark),
        media: r.media.iter().map(|m| MediaDraft::sent(m.kind.clone(), &m.url, m.seconds, m.local.as_ref())).collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use reel_rules::{Catalog, LocalOrigin, UnknownModels, validate};

    fn valid(d: &Draft) -> ValidSubmission {
        validate(d, &Catalog::builtin(), UnknownModels::Reject).expect("valid draft")
    }

    fn drafts() -> Vec<Draft> {
        let base = Draft { model: "acme/aurora-3.0/text-to-video".into(), prompt: "a fox".into(), ..Draft::default() };
        vec![
            base.clone(),
            Draft {
                negative_prompt: "blur".into(),
                seconds: Some("12".into()),
                resolution: Some("1080P".into()),
                ratio: Some("9:16".into()),
                watermark: Some(true),
                ..base.clone()
            },
            Draft {
                model: "acme/aurora-3.0/reference-to-video-global".into(),
                media: vec![
                    MediaDraft::typed("reference_image", "https://e.test/a.png", None),
                    MediaDraft {
                        kind: "reference_video".into(),
                        url: "https://e.test/b.mp4".into(),
                        seconds: Some("4".into()),
                        local: Some(LocalOrigin {
                            path: "/clips/b.mp4".into(),
                            key: Some("reel/ab.mp4".into()),
                            expires_at: Some(1_700_000_000),
                        }),
                    },
                ],
                ..base
            },
        ]
    }

    #[test]
    fn a_journaled_task_validates_back_to_the_same_submission() {
        for d in drafts() {
            let s = valid(&d);
            let row = TaskRecord::journaled(3, new_task(&s, Origin::default()), LocalState::Waiting);
            let again = validate(&draft(&row), &Catalog::builtin(), UnknownModels::Reject).expect("still valid");
            assert_eq!(again, s, "{d:?}");
        }
    }

    #[test]
    fn the_request_carries_exactly_the_spec_fields() {
        let s = valid(&drafts()[1]);
        let body = serde_json::to_value(request_for(&s)).expect("serializes");
        assert_eq!(
            body,
            json!({
                "model": "acme/aurora-3.0/text-to-video",
                "prompt": "a fox",
                "seconds": 12,
                "metadata": {"resolution": "1080P", "ratio": "9:16", "watermark": true, "negative_prompt": "blur"}
            })
        );
        let with_media = serde_json::to_value(request_for(&valid(&drafts()[2]))).expect("serializes");
        assert_eq!(
            with_media["metadata"]["media"],
            json!([
                {"type": "reference_image", "url": "https://e.test/a.png"},
                {"type": "reference_video", "url": "https://e.test/b.mp4"}
            ]),
            "stated seconds are never sent"
        );
    }

    #[test]
    fn local_origins_are_kept_but_never_sent() {
        let s = valid(&drafts()[2]);
        let row = TaskRecord::journaled(3, new_task(&s, Origin::default()), LocalState::Waiting);
        let stored = serde_json::to_value(&row.media).expect("serializes");
        assert_eq!(stored[1]["local"]["path"], "/clips/b.mp4");
        assert_eq!(stored[1]["local"]["key"], "reel/ab.mp4");
        assert!(stored[0].get("local").is_none(), "a URL item stores no origin");
        let body = serde_json::to_string(&request(&row)).expect("serializes");
        assert!(!body.contains("local") && !body.contains("/clips/"), "{body}");
        // Rows written before local files read as URL items.
        let old: Vec<MediaRecord> =
            serde_json::from_str(r#"[{"type": "reference_image", "url": "https://e.test/a.png"}]"#).expect("old row");
        assert_eq!(old[0].local, None);
    }
}
