//! The body forms services take (`wire`, `seconds_as_string` in a profile) against the
//! simulator taking each one (`reel sim --takes`), over real HTTP on 127.0.0.1: what is sent
//! arrives, a mismatch is refused the way gateways refuse it and names the setting that fixes it,
//! and the binary saves the video from a service that takes OpenAI's body or string seconds.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crate::common::folder::*;
use crate::common::*;
use reel_api::{ApiError, BodyForm, ClientOptions, Wire};
use reel_rules::Draft;
use reel_sim::SimConfig;

fn wire(form: BodyForm, seconds_as_string: bool) -> Wire {
    Wire { form, seconds_as_string }
}

fn wide_request() -> reel_api::SubmitRequest {
    request(&Draft {
        model: "acme/aurora-3.0/text-to-video".into(),
        prompt: "a heron over a lake".into(),
        seconds: Some("8".into()),
        resolution: Some("1080P".into()),
        ratio: Some("16:9".into()),
        ..Draft::default()
    })
}

#[tokio::test]
async fn what_each_form_sends_arrives_whole() {
    for takes in [
        Wire::default(),
        wire(BodyForm::TopLevel, false),
        wire(BodyForm::Spec, true),
        wire(BodyForm::TopLevel, true),
        wire(BodyForm::Openai, false),
    ] {
        let sim = start(SimConfig { takes, ..fast_config() }).await;
        let client = client_with(&sim, sim.api_key(), ClientOptions { wire: takes, ..ClientOptions::default() });
        let queued = client.submit(&wide_request(), None).await.unwrap_or_else(|e| panic!("{takes}: {e}"));
        let task = sim.task(&queued.id).expect("the sim has it");
        let got = (task.video_seconds, task.resolution.as_str(), task.ratio.as_str());
        assert_eq!(got, (8, "1080P", "16:9"), "{takes}: the asked parameters arrived");
        sim.stop().await;
    }
}

#[tokio::test]
async fn a_gateway_that_drops_metadata_renders_its_defaults_from_the_spec_body() {
    // What happened to users before `wire = "top_level"`: the task is taken, the settings lost.
    let sim = start(SimConfig { takes: wire(BodyForm::TopLevel, false), ..fast_config() }).await;
    let queued = client_for(&sim).submit(&wide_request(), None).await.expect("taken");
    let task = sim.task(&queued.id).expect("the sim has it");
    assert_eq!((task.resolution.as_str(), task.ratio.as_str()), ("720P", "1:1"), "the spec's defaults");
    sim.stop().await;
}

#[tokio::test]
async fn a_mismatched_form_is_refused_with_the_setting_that_fixes_it() {
    let cases = [
        (wire(BodyForm::Spec, true), "set seconds_as_string = true in the profile"),
        (wire(BodyForm::Openai, false), "set wire = \"top_level\" or wire = \"openai\" in the profile"),
    ];
    for (takes, hint) in cases {
        let sim = start(SimConfig { takes, ..fast_config() }).await;
        let err = client_for(&sim).submit(&wide_request(), None).await.expect_err("refused");
        assert!(matches!(err, ApiError::Rejected { status: 400, .. }), "{takes}: {err:?}");
        assert!(err.to_string().contains(hint), "{takes}: {err}");
        assert_eq!(sim.task_count(), 0, "nothing was made");
        sim.stop().await;
    }
}

#[tokio::test]
async fn what_the_openai_form_cannot_carry_is_not_sent() {
    let sim = start(SimConfig { takes: wire(BodyForm::Openai, false), ..fast_config() }).await;
    let options = ClientOptions { wire: wire(BodyForm::Openai, false), ..ClientOptions::default() };
    let mut r = wide_request();
    r.metadata.negative_prompt = Some("blur".into());
    let err = client_with(&sim, sim.api_key(), options).submit(&r, None).await.expect_err("refused here");
    assert!(matches!(err, ApiError::Unsendable(_)), "{err:?}");
    assert!(err.to_string().contains("a negative prompt"), "{err}");
    assert!(sim.requests().iter().all(|q| q.method != "POST"), "nothing was sent");
    sim.stop().await;
}

/// `reel submit --wait` with a profile set as the README shows saves the video.
async fn the_binary_saves_from(takes: Wire, profile: &str) {
    let sim = start(SimConfig { takes, ..slow_sim() }).await;
    let f = folder(60.0, 50);
    let config = std::fs::read_to_string(&f.config).expect("config");
    let profile_text = format!(
        "default_profile = \"gw\"\n{config}\n[profiles.gw]\nbase_url = \"{}\"\napi_key = \"{}\"\n{profile}\n",
        sim.base_url(),
        sim.api_key()
    );
    std::fs::write(&f.config, profile_text).expect("config");
    let mut cmd = f.reel(&sim, &["submit", "-m", MODEL, "-s", "8", "--ratio", "16:9", "--wait", "--json", "a heron"]);
    cmd.env_remove("REEL_BASE_URL").env_remove("REEL_API_KEY");
    let out = tokio::time::timeout(PATIENCE, cmd.output()).await.expect("in time").expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{profile}: {text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("\"downloaded\""), "{profile}: {text}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_saves_from_a_service_that_takes_openais_body() {
    the_binary_saves_from(wire(BodyForm::Openai, false), "wire = \"openai\"").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_saves_from_a_service_that_wants_string_seconds() {
    the_binary_saves_from(wire(BodyForm::Spec, true), "seconds_as_string = true").await;
}
