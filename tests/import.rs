//! `reel import DIR`: a history moved to another machine, or a colleague's folder of results,
//! rebuilt from the videos' sidecars or the provenance in them, without a network request and
//! without duplicates: the real binary against the simulator on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

mod common;

use std::path::{Path, PathBuf};

use common::folder::*;
use common::*;
use serde_json::Value;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("read") {
        let p = entry.expect("entry").path();
        let target = to.join(p.file_name().expect("name"));
        if p.is_dir() { copy_dir(&p, &target) } else { std::fs::copy(&p, &target).map(drop).expect("copy") }
    }
}

fn videos_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read").flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(videos_in(&p));
        } else if p.extension().is_some_and(|e| e == "mp4") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_colleagues_folder_is_imported_once_without_a_request_and_marked() {
    if !have_tools(&["ffmpeg"]) {
        return;
    }
    let sim = start(fast_config()).await;
    let mine = folder(1.0, 50);
    for prompt in ["a heron at dawn", "a crane in fog"] {
        let (code, _, err) = mine.run(&sim, &["submit", "-m", MODEL, "--wait", prompt]).await;
        assert_eq!(code, 0, "{err}");
    }
    // The colleague's folder: one video keeps its sidecar, one has only what is in the file,
    // and one video was not made by reel at all.
    let shared = tempfile::tempdir().expect("tempdir");
    let theirs = shared.path().join("takes");
    copy_dir(&mine.data.join("videos"), &theirs);
    let copied = videos_in(&theirs);
    assert_eq!(copied.len(), 2);
    std::fs::remove_file(copied[1].with_extension("json")).expect("one sidecar less");
    let stranger = theirs.join("holiday.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=64x64:rate=10:duration=1",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(&stranger)
        .status()
        .expect("ffmpeg");
    assert!(made.success());

    let other = folder(1.0, 50);
    let requests = sim.requests().len();
    let dir = theirs.to_string_lossy().into_owned();
    let (code, out, err) = other.run(&sim, &["import", &dir, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let imported: Vec<Value> = serde_json::from_str(&out).expect("json");
    let mut prompts: Vec<&str> = imported.iter().filter_map(|t| t["prompt"].as_str()).collect();
    prompts.sort_unstable();
    assert_eq!(prompts, ["a crane in fog", "a heron at dawn"], "{err}");
    assert!(err.contains("imported 2 tasks") && err.contains("holiday.mp4: no reel record"), "{err}");
    for t in &imported {
        assert_eq!((t["state"].as_str(), t["imported_from"].as_str()), (Some("downloaded"), Some(dir.as_str())));
        assert!(t["file_path"].as_str().is_some_and(|p| p.starts_with(&dir)), "{t}");
        assert_eq!((t["model"].as_str(), t["url"].as_str()), (Some(MODEL), None));
    }
    assert_eq!(sim.requests().len(), requests, "not a single network request");

    // Run again: nothing twice. The history the files came from has them all already.
    let (code, out, err) = other.run(&sim, &["import", &dir, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).expect("json").len(), 0);
    assert!(err.contains("imported 0 tasks") && err.contains("2 already in the history"), "{err}");
    let (code, _, err) = mine.run(&sim, &["import", &dir]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("imported 0 tasks") && err.contains("2 already in the history"), "{err}");

    // Marked as imported where people look.
    let id = imported[0]["id"].as_i64().expect("id").to_string();
    let (code, shown, err) = other.run(&sim, &["show", &id]).await;
    assert_eq!(code, 0, "{err}");
    assert!(shown.contains(&format!("imported     from {dir}\n")), "{shown}");
    assert!(shown.contains("imported from") && shown.contains(", made 20"), "the timeline says so: {shown}");

    // Its file is the folder's it came from: deleting the entry with --file keeps it.
    let file = imported[0]["file_path"].as_str().expect("path").to_string();
    let (code, out, err) = other.run(&sim, &["rm", &id, "--file"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("its file stays at"), "{out}");
    assert!(std::path::Path::new(&file).exists(), "an imported file is not reel's to delete");
}
