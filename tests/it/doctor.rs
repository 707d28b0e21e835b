//! Models as the service names them, `reel models --service` and `reel doctor` (issue 33,
//! items 1 and 7): the real binary against the simulator on 127.0.0.1, with profiles set well
//! and badly.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use reel_api::{BodyForm, Wire};
use reel_rules::Catalog;
use reel_rules::catalog::declare;
use reel_sim::{SimConfig, SimHandle};
use serde_json::Value;
use tokio::process::Command;

/// What a gateway in front of OpenAI and Wan names its models.
const GATEWAY_MODELS: &str = r#"
[[models]]
id = "sora-2"
mode = "text-to-video"
seconds = [4, 8, 12]
media = ["first_frame"]

[[models]]
id = "wan2.5-t2v-preview"
min_seconds = 5
max_seconds = 10
"#;

/// A simulator that lists (and takes) the gateway's models, in the body form `takes`.
async fn gateway(takes: Wire) -> SimHandle {
    let catalog = Catalog::builtin().with_extra(&declare(GATEWAY_MODELS).expect("toml"));
    SimHandle::start(SimConfig { catalog, takes, ..crate::common::fast_config() }, 0).await.expect("sim")
}

struct Env {
    _dir: tempfile::TempDir,
    data: PathBuf,
    config: PathBuf,
}

/// A config file with profile `gw` (its `base_url`, `api_key` and `extra` lines) and `models`.
fn env(base_url: &str, key: &str, extra: &str, models: &str) -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    let text = format!(
        "default_profile = \"gw\"\n[engine]\nrequests_per_second = 50\nfirst_poll_secs = 0.2\npoll_interval_secs = 0.2\n\
         max_poll_interval_secs = 0.5\n\n[profiles.gw]\nbase_url = \"{base_url}\"\napi_key = \"{key}\"\n{extra}\n{models}"
    );
    std::fs::write(&config, text).expect("config");
    Env { _dir: dir, data, config }
}

async fn run(env: &Env, args: &[&str]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
    c.args(args)
        .env_remove("REEL_BASE_URL")
        .env_remove("REEL_API_KEY")
        .env_remove("REEL_PROFILE")
        .env("REEL_DATA_DIR", &env.data)
        .env("REEL_CONFIG", &env.config)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::time::timeout(Duration::from_secs(60), c.output()).await.expect("within a minute").expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("json ({e}): {out}"))
}

#[tokio::test]
async fn a_profile_set_well_is_all_well_and_each_mistake_names_its_setting() {
    let sim = gateway(Wire::default()).await;
    let (base, key) = (sim.base_url(), sim.api_key().to_string());

    let good = env(&base, &key, "", GATEWAY_MODELS);
    let (code, out, err) = run(&good, &["doctor"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ok    key") && out.contains("All is well."), "{out}");
    assert!(out.contains("cannot tell without sending a task"), "the sim's body form is not told by a GET: {out}");
    let (code, out, _) = run(&good, &["doctor", "--json"]).await;
    let v = json(&out);
    assert_eq!((code, v["exit"].as_u64()), (0, Some(0)), "{out}");
    assert!(v["report"]["listed"]["models"].as_array().is_some_and(|m| m.iter().any(|m| m["id"] == "sora-2")));

    let wrong_key = env(&base, "sk-wrong", "", GATEWAY_MODELS);
    let (code, out, _) = run(&wrong_key, &["doctor"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("SET   key") && out.contains("refused") && out.contains("api_key_cmd = "), "{out}");

    let stray_path = env(&format!("{base}/gateway/api"), &key, "", GATEWAY_MODELS);
    let (code, out, _) = run(&stray_path, &["doctor"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("[profiles.gw]\nbase_url = \"{base}\"")), "{out}");

    let trailing_v1 = env(&format!("{base}/v1"), &key, "", GATEWAY_MODELS);
    let (code, out, _) = run(&trailing_v1, &["doctor"]).await;
    assert_eq!(code, 0, "a trailing /v1 is dropped, and only said: {out}");
    assert!(out.contains("note  base URL") && out.contains("drops the trailing /v1"), "{out}");

    let unlisted = format!("{GATEWAY_MODELS}\n[[models]]\nid = \"sora-3\"\nmode = \"text-to-video\"\nseconds = [4]\n");
    let (code, out, _) = run(&env(&base, &key, "", &unlisted), &["doctor"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not list: sora-3"), "{out}");

    // Models the service lists that the config has no rules for: a note, and entries to start from.
    let (code, out, _) = run(&env(&base, &key, "", ""), &["doctor"]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no rules for 2 of them") && out.contains("id = \"wan2.5-t2v-preview\""), "{out}");
    assert!(out.contains("mode = \"text-to-video\""), "the mode its id names: {out}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let nowhere = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let (code, out, _) = run(&env(&nowhere, &key, "", ""), &["doctor"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("cannot reach") && out.contains("cannot be reached"), "{out}");
}

#[tokio::test]
async fn a_service_that_takes_openais_body_is_told_by_its_answers() {
    let sim = gateway(Wire { form: BodyForm::Openai, seconds_as_string: false }).await;
    let (base, key) = (sim.base_url(), sim.api_key().to_string());
    let (code, out, _) = run(&env(&base, &key, "", GATEWAY_MODELS), &["doctor"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("SET   wire form") && out.contains("wire = \"openai\""), "{out}");
    let (code, out, _) = run(&env(&base, &key, "wire = \"openai\"", GATEWAY_MODELS), &["doctor"]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ok    wire form"), "{out}");
}

#[tokio::test]
async fn models_of_any_shape_are_listed_checked_and_sent() {
    let sim = gateway(Wire::default()).await;
    let (base, key) = (sim.base_url(), sim.api_key().to_string());
    // The client knows sora-2's rules, not wan2.5's, and one of its entries is broken.
    let config = "[[models]]\nid = \"sora-2\"\nmode = \"text-to-video\"\nseconds = [4, 8, 12]\n\n\
                  [[models]]\nid = \"kling-v2-1\"\nseconds = [5, 10]\n";
    let e = env(&base, &key, "", config);

    let (code, out, err) = run(&e, &["models"]).await;
    assert_eq!(code, 0, "a broken entry is no failure of every command: {err}");
    assert!(out.contains("sora-2") && out.contains("4, 8 or 12 s"), "{out}");
    assert!(
        out.contains("Broken entries") && out.contains("[[models]] entry 2") && out.contains("kling-v2-1"),
        "{out}"
    );

    let (code, out, err) = run(&e, &["models", "--service"]).await;
    assert_eq!(code, 0, "{err}");
    let line = |id: &str| out.lines().find(|l| l.split_whitespace().next() == Some(id)).unwrap_or_default().to_string();
    assert!(line("sora-2").contains("text-to-video, 4, 8 or 12 s"), "{out}");
    assert!(line("wan2.5-t2v-preview").contains("general checks only"), "{out}");
    let (_, out, _) = run(&e, &["models", "--service", "--json"]).await;
    let v = json(&out);
    let rules =
        |id: &str| v["models"].as_array().and_then(|m| m.iter().find(|m| m["id"] == id)).map(|m| m["rules"].clone());
    assert_eq!((rules("sora-2"), rules("wan2.5-t2v-preview")), (Some(Value::Bool(true)), Some(Value::Bool(false))));
    assert_eq!(v["config_models_not_listed"], serde_json::json!([]), "{out}");

    // The broken entry stops its model only, naming the entry.
    let (code, _, err) = run(&e, &["--no-service", "submit", "--dry-run", "-m", "kling-v2-1", "a fox"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("kling-v2-1") && err.contains("[[models]] entry 2"), "{err}");

    // sora-2 by its own name, end to end: 5 s is refused, the default is its 4.
    let (code, _, err) = run(&e, &["--no-service", "submit", "-m", "sora-2", "-s", "5", "a fox"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it accepts 4, 8 or 12 s"), "{err}");
    let (code, out, err) = run(&e, &["--no-service", "submit", "-m", "sora-2", "--wait", "--json", "a fox"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("downloaded"), "{out}");
    let remote = sim.requests().into_iter().filter(|r| r.method == "POST").count();
    assert_eq!(remote, 1, "one task sent");

    // A model reel has no rules for is sent, with the general checks, and the command says so.
    let (code, out, err) =
        run(&e, &["--no-service", "submit", "-m", "wan2.5-t2v-preview", "-s", "6", "--wait", "a fox"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("not in the catalog"), "{err}");
}
