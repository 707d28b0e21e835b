//! Every saved video carries where it came from as MP4 metadata that ffprobe and exiftool
//! read, while the service's bytes stay what was verified: the real binary against the
//! simulator on 127.0.0.1. CI installs ffmpeg and exiftool; elsewhere the test says what it
//! skips.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::process::Command;

use crate::common::folder::*;
use crate::common::*;
use serde_json::Value;

/// `reel submit --wait --json` of one task in `f`; the task as printed.
async fn saved_task(f: &Folder, sim: &reel_sim::SimHandle, prompt: &str) -> Value {
    let args = ["submit", "-m", MODEL, "--negative", "blur", "--ratio", "9:16", "--wait", "--json", prompt];
    let (code, out, err) = f.run(sim, &args).await;
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Vec<Value>>(&out).expect("json").remove(0)
}

fn ffprobe_tags(path: &str) -> Value {
    let out =
        Command::new("ffprobe").args(["-v", "error", "-show_format", "-of", "json", path]).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).expect("json")["format"]["tags"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_video_carries_its_provenance_and_the_service_bytes_stay_verified() {
    if !have_tools(&["ffmpeg", "ffprobe"]) {
        return;
    }
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    let task = saved_task(&f, &sim, "a lighthouse at dusk, waves").await;
    let path = task["file_path"].as_str().expect("saved");
    let remote = task["remote_id"].as_str().expect("remote id");

    // The service's bytes are what was verified; the file on disk is the tagged copy.
    let served = sim.video_bytes(remote).expect("served");
    assert_eq!(task["sha256"].as_str(), Some(sha256_hex(&served).as_str()));
    let on_disk = std::fs::read(path).expect("file");
    assert_eq!(task["file_sha256"].as_str(), Some(sha256_hex(&on_disk).as_str()));
    assert_ne!(task["file_sha256"], task["sha256"]);

    let tags = ffprobe_tags(path);
    assert_eq!(tags["title"], "a lighthouse at dusk, waves");
    let record: Value = serde_json::from_str(tags["comment"].as_str().expect("a comment")).expect("json");
    assert_eq!(record["task_id"], task["id"]);
    assert_eq!(record["remote_id"], remote);
    assert_eq!((record["model"].as_str(), record["negative_prompt"].as_str()), (Some(MODEL), Some("blur")));
    assert_eq!(
        (record["ratio"].as_str(), record["reel_version"].as_str()),
        (Some("9:16"), Some(env!("CARGO_PKG_VERSION")))
    );
    assert!(!tags.to_string().contains(sim.api_key()), "never the key");

    // The file still plays, and exiftool reads the same.
    let decode = Command::new("ffmpeg").args(["-v", "error", "-i", path, "-f", "null", "-"]).output().expect("runs");
    assert!(decode.status.success() && decode.stderr.is_empty(), "{}", String::from_utf8_lossy(&decode.stderr));
    match Command::new("exiftool").args(["-j", "-Title", "-Comment", path]).output() {
        Ok(out) if out.status.success() => {
            let read: Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(read[0]["Title"], "a lighthouse at dusk, waves");
            assert!(read[0]["Comment"].as_str().is_some_and(|c| c.contains("\"task_id\"")), "{read}");
        }
        _ => {
            assert!(std::env::var_os("CI").is_none(), "CI must install exiftool (see .ci/run)");
            eprintln!("skipped the exiftool part: exiftool is not installed");
        }
    }
    // The sidecar keeps both sums.
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(std::path::Path::new(path).with_extension("json")).expect("sidecar"))
            .expect("json");
    assert_eq!((&sidecar["sha256"], &sidecar["file_sha256"]), (&task["sha256"], &task["file_sha256"]));
    // ... and not the signed URL's token the file's own provenance leaves out too.
    assert!(task["url"].as_str().is_some_and(|u| u.contains("sig=")), "the sim signs its URLs: {task}");
    let text = sidecar.to_string();
    assert!(!text.contains("sig=") && !text.contains("expires="), "{text}");
    assert!(sidecar["url"].as_str().is_some_and(|u| u.ends_with(".mp4")), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_provenance_off_the_file_is_the_service_bytes() {
    let sim = start(fast_config()).await;
    let f = folder(1.0, 50);
    let mut config = std::fs::read_to_string(&f.config).expect("config");
    config.push_str("[files]\nprovenance = false\n");
    std::fs::write(&f.config, config).expect("config");
    let task = saved_task(&f, &sim, "a plain fox").await;
    let on_disk = std::fs::read(task["file_path"].as_str().expect("saved")).expect("file");
    assert_eq!(task["sha256"].as_str(), Some(sha256_hex(&on_disk).as_str()));
    assert_eq!(task["file_sha256"], Value::Null);
}
