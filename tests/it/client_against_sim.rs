//! The API client against the embedded simulator over real HTTP: the happy path and every
//! unhappy path the spec and the fault injection allow.

use std::time::Duration;

use crate::common::*;
use reel_api::{ApiError, ClientOptions, Status};
use reel_sim::{Faults, SimConfig};
use serde_json::{Value, json};

#[tokio::test]
async fn happy_path_to_a_downloaded_file_whose_bytes_match() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let queued = client.submit(&simple_request("a red fox in snow"), Some("idem-1")).await.expect("submitted");
    assert_eq!(queued.status, Status::Queued);
    assert!(queued.created_at.is_some());

    let done = wait_terminal(&client, &queued.id).await;
    assert_eq!(done.status, Status::Completed);
    assert_eq!(done.model.as_deref(), Some("acme/aurora-3.0/text-to-video"));
    assert!(done.completed_at >= done.created_at);
    let url = done.url.clone().expect("a completed task has a url");

    let mut download = client.open_download(&url, 0, &Default::default()).await.expect("download opens");
    assert_eq!(download.start, 0);
    let mut bytes = Vec::new();
    while let Some(chunk) = download.chunk().await.expect("no transfer error") {
        bytes.extend_from_slice(&chunk);
    }
    let expected = sim.video_bytes(&queued.id).expect("the sim has the file");
    assert_eq!(download.total, Some(expected.len() as u64));
    assert_eq!(bytes, expected.to_vec(), "downloaded bytes match the served file");
    assert_eq!(&bytes[4..8], b"ftyp");
}

#[tokio::test]
async fn a_repeated_submission_with_the_same_idempotency_key_is_one_task() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let a = client.submit(&simple_request("once"), Some("same-key")).await.expect("first");
    let b = client.submit(&simple_request("once"), Some("same-key")).await.expect("second");
    assert_eq!(a.id, b.id);
    assert_eq!(sim.task_count(), 1);
}

/// Sends a raw body, as a client that skipped validation would.
async fn post_raw(sim: &reel_sim::SimHandle, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/v1/videos", sim.base_url()))
        .bearer_auth(sim.api_key())
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    let bytes = response.bytes().await.expect("a body");
    (status, serde_json::from_slice(&bytes).expect("a JSON error body"))
}

#[tokio::test]
async fn every_validation_error_is_a_400_naming_the_field() {
    let sim = start(fast_config()).await;
    let t2v = "acme/aurora-3.0/text-to-video";
    let i2v = "acme/aurora-3.0/image-to-video";
    let r2v = "acme/aurora-3.0/reference-to-video-global";
    let img = |n: usize| -> Vec<Value> {
        (0..n).map(|_| json!({"type": "reference_image", "url": "https://x.org/a.png"})).collect()
    };
    let cases: Vec<(Value, &str)> = vec![
        (json!({"prompt": "p"}), "model"),
        (json!({"model": "aurora", "prompt": "p"}), "model"),
        (json!({"model": "acme/aurora-3.0/video-to-video", "prompt": "p"}), "model"),
        (json!({"model": "other/x-3.0/text-to-video", "prompt": "p"}), "model"),
        (json!({"model": t2v}), "prompt"),
        (json!({"model": t2v, "prompt": "   "}), "prompt"),
        (json!({"model": t2v, "prompt": "p", "seconds": 3}), "seconds"),
        (json!({"model": t2v, "prompt": "p", "seconds": 31}), "seconds"),
        (json!({"model": t2v, "prompt": "p", "seconds": 5.5}), "seconds"),
        (json!({"model": t2v, "prompt": "p", "seconds": "5"}), "seconds"),
        (json!({"model": "acme/aurora-2.7/text-to-video", "prompt": "p", "seconds": 151}), "seconds"),
        (json!({"model": "acme/swift-1.5/text-to-video", "prompt": "p", "seconds": 16}), "seconds"),
        (json!({"model": t2v, "prompt": "p", "metadata": {"resolution": "4K"}}), "metadata.resolution"),
        (json!({"model": t2v, "prompt": "p", "metadata": {"ratio": "2:1"}}), "metadata.ratio"),
        (json!({"model": t2v, "prompt": "p", "metadata": {"watermark": "yes"}}), "metadata.watermark"),
        (json!({"model": t2v, "prompt": "p", "metadata": {"media": img(1)}}), "metadata.media[0]"),
        (json!({"model": i2v, "prompt": "p"}), "metadata.media"),
        (
            json!({"model": i2v, "prompt": "p", "metadata": {"media": [{"type": "first_frame", "url": "file:///etc/passwd"}]}}),
            "metadata.media[0]",
        ),
        (json!({"model": r2v, "prompt": "p", "metadata": {"media": img(11)}}), "metadata.media"),
        (
            json!({"model": r2v, "prompt": "p", "metadata": {"media": [{"type": "sticker", "url": "https://x.org/a"}]}}),
            "metadata.media[0]",
        ),
        (json!({"model": r2v, "prompt": "p"}), "metadata.media"),
        (json!([1, 2]), "body"),
    ];
    for (body, field) in cases {
        let (status, answer) = post_raw(&sim, body.clone()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(answer["error"]["field"], field, "{body} → {answer}");
        assert!(answer["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert_eq!(sim.task_count(), 0, "no invalid submission created a task");

    let (status, _) = post_raw(&sim, json!({"model": t2v, "prompt": "p", "seconds": 30})).await;
    assert_eq!(status, 200, "the bound itself is accepted");
}

#[tokio::test]
async fn the_client_reports_a_server_side_rejection_with_its_message() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let unknown = request(&reel_rules::Draft {
        model: "other/x-3.0/text-to-video".into(),
        prompt: "p".into(),
        ..Default::default()
    });
    let err = client.submit(&unknown, None).await.expect_err("the sim does not offer that model");
    let ApiError::Rejected { status: 400, message: Some(message), .. } = &err else { panic!("{err:?}") };
    assert!(message.contains("not offered"), "{message}");
    assert!(!err.never_sent());
}

#[tokio::test]
async fn wrong_or_missing_key_is_unauthorized_and_the_key_is_never_printed() {
    let sim = start(fast_config()).await;
    let client = client_with(&sim, "sk-wrong-secret", ClientOptions::default());
    let err = client.submit(&simple_request("p"), None).await.expect_err("401");
    assert!(matches!(err, ApiError::Unauthorized { status: 401, .. }), "{err:?}");
    let err = client.get("task_x").await.expect_err("401");
    assert!(matches!(err, ApiError::Unauthorized { .. }));
    for text in [err.to_string(), format!("{err:?}"), format!("{client:?}")] {
        assert!(!text.contains("sk-wrong-secret"), "{text}");
    }
    let status =
        reqwest::Client::new().get(format!("{}/v1/videos/x", sim.base_url())).send().await.expect("sent").status();
    assert_eq!(status, 401, "no Authorization header at all");
}

#[tokio::test]
async fn missing_json_content_type_is_415() {
    let sim = start(fast_config()).await;
    let response = reqwest::Client::new()
        .post(format!("{}/v1/videos", sim.base_url()))
        .bearer_auth(sim.api_key())
        .header("Content-Type", "text/plain")
        .body(r#"{"model": "acme/aurora-3.0/text-to-video", "prompt": "p"}"#)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 415);
}

#[tokio::test]
async fn rate_limit_carries_retry_after() {
    let sim = start(SimConfig {
        faults: Faults { rate_limit: 1.0, retry_after: Duration::from_secs(3), ..Faults::default() },
        ..fast_config()
    })
    .await;
    let err = client_for(&sim).get("task_x").await.expect_err("429");
    let ApiError::RateLimited { retry_after, .. } = &err else { panic!("{err:?}") };
    assert_eq!(*retry_after, Some(Duration::from_secs(3)));
    assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
    assert!(err.is_transient());
}

#[tokio::test]
async fn server_errors_are_transient() {
    let sim = start(SimConfig { faults: Faults { server_error: 1.0, ..Faults::default() }, ..fast_config() }).await;
    let err = client_for(&sim).submit(&simple_request("p"), None).await.expect_err("5xx");
    let ApiError::Server { status, .. } = err else { panic!("{err:?}") };
    assert!([500, 502, 503].contains(&status));
    assert_eq!(sim.task_count(), 0);
}

#[tokio::test]
async fn a_dropped_connection_after_submission_is_a_lost_answer_not_a_refusal() {
    let sim = start(SimConfig { faults: Faults { drop: 1.0, ..Faults::default() }, ..fast_config() }).await;
    let err = client_for(&sim).submit(&simple_request("p"), None).await.expect_err("dropped");
    assert!(matches!(err, ApiError::Network { .. }), "{err:?}");
    assert!(!err.never_sent(), "the POST left: resending could start a second paid job");
    assert_eq!(sim.task_count(), 1, "the service did create the task");
    assert_eq!(sim.requests()[0].fault, Some("drop"));
}

#[tokio::test]
async fn a_malformed_body_is_undecodable() {
    let sim = start(SimConfig { faults: Faults { malformed: 1.0, ..Faults::default() }, ..fast_config() }).await;
    let err = client_for(&sim).submit(&simple_request("p"), None).await.expect_err("malformed");
    let ApiError::Undecodable { status: 200, snippet, .. } = &err else { panic!("{err:?}") };
    assert!(snippet.contains("task_"), "{snippet}");
}

#[tokio::test]
async fn a_slow_answer_times_out() {
    let sim = start(SimConfig {
        faults: Faults { slow: 1.0, slow_delay: Duration::from_secs(3), ..Faults::default() },
        ..fast_config()
    })
    .await;
    let options = ClientOptions { request_timeout: Duration::from_millis(300), ..ClientOptions::default() };
    let err = client_with(&sim, sim.api_key(), options).get("task_x").await.expect_err("timeout");
    assert!(matches!(err, ApiError::Timeout { .. }), "{err:?}");
}

#[tokio::test]
async fn connection_refused_provably_never_sent() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    sim.stop().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let err = client.submit(&simple_request("p"), None).await.expect_err("refused");
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
    assert!(err.never_sent());
}

#[tokio::test]
async fn unknown_and_hostile_ids_are_404_and_never_leave_the_path() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    assert!(matches!(client.get("task_missing").await, Err(ApiError::NotFound { .. })));
    let hostile = client.get("../../files/x.mp4?expires=1").await;
    assert!(matches!(hostile, Err(ApiError::NotFound { .. })), "{hostile:?}");
    let last = sim.requests().pop().expect("a request");
    assert!(last.path.starts_with("/v1/videos/"), "{}", last.path);
}

#[tokio::test]
async fn a_truncated_download_resumes_with_range_to_matching_bytes() {
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let done = completed_task(&client).await;
    let url = done.url.clone().expect("url");
    let expected = sim.video_bytes(&done.id).expect("file");

    sim.set_faults(Faults { truncate: 1.0, ..Faults::default() });
    let mut first = client.open_download(&url, 0, &Default::default()).await.expect("opens");
    let mut bytes = Vec::new();
    let failure = loop {
        match first.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            Ok(None) => panic!("the transfer should have broken"),
            Err(e) => break e,
        }
    };
    assert!(matches!(failure, ApiError::Network { .. }), "{failure:?}");
    assert!(!bytes.is_empty() && bytes.len() < expected.len(), "got {} of {}", bytes.len(), expected.len());

    sim.set_faults(no_faults());
    let mut rest = client.open_download(&url, bytes.len() as u64, &Default::default()).await.expect("resumes");
    assert_eq!(rest.start, bytes.len() as u64);
    assert_eq!(rest.total, Some(expected.len() as u64));
    while let Some(chunk) = rest.chunk().await.expect("no error") {
        bytes.extend_from_slice(&chunk);
    }
    assert_eq!(bytes, expected.to_vec());
    let ranged = sim.requests().into_iter().filter(|r| r.path.starts_with("/files/") && r.status == 206).count();
    assert_eq!(ranged, 1);

    let past = client.open_download(&url, expected.len() as u64, &Default::default()).await.expect_err("nothing left");
    assert!(matches!(past, ApiError::RangeNotSatisfiable { total: Some(t), .. } if t == expected.len() as u64));
}

#[tokio::test]
async fn an_expired_url_answers_gone() {
    let sim = start(SimConfig { url_ttl: Duration::from_millis(300), ..fast_config() }).await;
    let client = client_for(&sim);
    let done = completed_task(&client).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let err = client.open_download(&done.url.clone().expect("url"), 0, &Default::default()).await.expect_err("expired");
    assert!(matches!(err, ApiError::UrlGone { status: 403 }), "{err:?}");
    assert!(!err.is_transient());
    let again = client.get(&done.id).await.expect("poll");
    assert_eq!(again.url, done.url, "without --fresh-urls the URL stays the same");
    let tampered = done.url.clone().expect("url").replace("sig=", "sig=0");
    assert!(matches!(
        client.open_download(&tampered, 0, &Default::default()).await,
        Err(ApiError::UrlGone { status: 403 })
    ));
}

#[tokio::test]
async fn fresh_urls_give_a_working_url_after_expiry() {
    let sim = start(SimConfig { url_ttl: Duration::from_millis(300), fresh_urls: true, ..fast_config() }).await;
    let client = client_for(&sim);
    let done = completed_task(&client).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let again = client.get(&done.id).await.expect("poll");
    assert_ne!(again.url, done.url);
    client.open_download(&again.url.expect("url"), 0, &Default::default()).await.expect("the fresh URL works");
}

#[tokio::test]
async fn failed_tasks_carry_error_details() {
    let mut config = fast_config();
    config.lifecycle.failure_rate = 1.0;
    let sim = start(config).await;
    let client = client_for(&sim);
    let queued = client.submit(&simple_request("p"), None).await.expect("submitted");
    let done = wait_terminal(&client, &queued.id).await;
    assert_eq!(done.status, Status::Failed);
    let error = done.error.expect("error details");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
    assert!(done.url.is_none());
}

#[tokio::test]
async fn progress_is_sent_unless_spec_only_and_the_client_copes_either_way() {
    let mut config = fast_config();
    config.lifecycle.queue_time = Duration::from_millis(0);
    config.lifecycle.render_min = Duration::from_secs(5);
    config.lifecycle.render_max = Duration::from_secs(5);
    let sim = start(config.clone()).await;
    let client = client_for(&sim);
    let queued = client.submit(&simple_request("p"), None).await.expect("submitted");
    let running = client.get(&queued.id).await.expect("poll");
    assert_eq!(running.status, Status::InProgress);
    assert!(running.progress.is_some());

    let plain = start(SimConfig { extensions: false, ..config }).await;
    let client = client_for(&plain);
    let queued = client.submit(&simple_request("p"), None).await.expect("submitted");
    let running = client.get(&queued.id).await.expect("poll");
    assert_eq!((running.status, running.progress), (Status::InProgress, None));
    assert_eq!(
        running.raw.as_object().map(|o| o.len()),
        Some(4),
        "only id, object, status, created_at: {}",
        running.raw
    );
}

#[tokio::test]
async fn a_forgotten_task_answers_404_for_its_id_and_its_file() {
    let sim = start(SimConfig { forget_tasks_after: Some(Duration::from_millis(1500)), ..fast_config() }).await;
    let client = client_for(&sim);
    let done = completed_task(&client).await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let err = client.get(&done.id).await.expect_err("forgotten");
    assert!(matches!(err, ApiError::NotFound { status: 404, .. }), "{err:?}");
    let url = done.url.expect("url");
    let file = client.open_download(&url, 0, &Default::default()).await.map(|_| ()).expect_err("gone");
    assert!(matches!(file, ApiError::UrlGone { status: 404 }), "{file:?}");

    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let done = completed_task(&client).await;
    assert!(sim.forget(&done.id), "forgotten at once");
    assert!(matches!(client.get(&done.id).await, Err(ApiError::NotFound { .. })));
    assert!(!sim.forget(&done.id), "nothing left to forget");
}
