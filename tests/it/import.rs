//! `reel import DIR`: a history moved to another machine, or a colleague's folder of results,
//! rebuilt from the videos' sidecars or the provenance in them, without a network request and
//! without duplicates: the real binary against the simulator on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::path::{Path, PathBuf};

use crate::common::folder::*;
use crate::common::*;
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

/// A history moved to another machine keeps its reviews and its lineage: the ratings, tags and
/// picks made after the files were saved travel in their sidecars; batches and parents are
/// mapped to the new journal's ids.
#[tokio::test(flavor = "multi_thread")]
async fn a_moved_history_keeps_its_reviews_batches_and_parents() {
    let sim = start(slow_sim()).await;
    let there = folder(60.0, 50);
    let (code, out, err) =
        there.run(&sim, &["submit", "-m", MODEL, "-s", "5", "-n", "2", "--wait", "--json", "a heron"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let takes: Vec<Value> = serde_json::from_str(&out).expect("json");
    let (a, b) = (takes[0]["id"].to_string(), takes[1]["id"].to_string());
    let (code, out, err) = there.run(&sim, &["vary", &a, "--prompt", "a heron, closer", "--wait", "--json"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let child = serde_json::from_str::<Vec<Value>>(&out).expect("json")[0]["id"].to_string();
    for args in [vec!["rate", &a, "4"], vec!["tag", &a, "keeper"], vec!["pick", &b]] {
        let (code, _, err) = there.run(&sim, &args).await;
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let _ = there.run(&sim, &["engine", "stop"]).await;

    let here = folder(60.0, 50);
    let moved = here.data.parent().expect("a folder").join("moved");
    copy_dir(&there.data.join("videos"), &moved);
    let (code, out, err) = here.run(&sim, &["import", moved.to_str().expect("utf-8"), "--json"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let imported: Vec<Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(imported.len(), 3, "{out}");
    let by_prompt = |p: &str| imported.iter().filter(|t| t["prompt"] == p).cloned().collect::<Vec<_>>();
    let pair = by_prompt("a heron");
    let rated = pair.iter().find(|t| t["rating"] == 4).unwrap_or_else(|| panic!("the rating travelled: {out}"));
    assert_eq!(rated["tags"], serde_json::json!(["keeper"]), "{rated}");
    let picked = pair.iter().find(|t| t["picked"] == true).unwrap_or_else(|| panic!("the pick travelled: {out}"));
    assert_ne!(picked["id"], rated["id"]);
    assert_eq!(pair[0]["batch_id"], pair[1]["batch_id"], "one batch still: {out}");
    let variation = &by_prompt("a heron, closer")[0];
    assert_eq!(variation["parent_id"], rated["id"], "the parent, by its new id: {out}");
    let _ = (child, here.run(&sim, &["engine", "stop"]).await);
    sim.stop().await;
}
