use std::sync::Mutex;
use std::time::Duration;

use super::*;
use reel_api::{ApiKey, ClientOptions, Status};
use reel_rules::{Catalog, Draft, UnknownModels, validate};
use reel_sim::{Faults, LifecycleConfig, SimConfig, SimHandle};

/// A simulator on 127.0.0.1 with one finished task of `seconds` at 1080P: (sim, client,
/// file URL, the served bytes).
async fn served(seconds: &str) -> (SimHandle, Client, Source, Bytes) {
    let lifecycle = LifecycleConfig {
        queue_time: Duration::ZERO,
        render_min: Duration::ZERO,
        render_max: Duration::ZERO,
        failure_rate: 0.0,
    };
    let config = SimConfig { lifecycle, seed: Some(7), ..SimConfig::default() };
    let sim = SimHandle::start(config, 0).await.expect("the simulator starts");
    let client = Client::new(&sim.base_url(), ApiKey::new(sim.api_key()).expect("key"), ClientOptions::default())
        .expect("client");
    let draft = Draft {
        model: "acme/aurora-2.7/text-to-video".into(),
        prompt: "a long take".into(),
        seconds: Some(seconds.into()),
        resolution: Some("1080P".into()),
        ..Draft::default()
    };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
    let queued = client.submit(&crate::journal::request_for(&valid), None).await.expect("submitted");
    let url = loop {
        let task = client.get(&queued.id).await.expect("poll");
        if task.status == Status::Completed {
            break Source::File(task.url.expect("a URL"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let bytes = sim.current_file_bytes(&queued.id).expect("served bytes");
    (sim, client, url, bytes)
}

fn any() -> Expect {
    Expect::any(2000 * verify::MB)
}

fn sha(bytes: &[u8]) -> String {
    reel_rules::text::hex(&Sha256::digest(bytes))
}

fn file_statuses(sim: &SimHandle) -> Vec<u16> {
    sim.requests().iter().filter(|q| q.path.contains("/files/")).map(|q| q.status).collect()
}

#[tokio::test]
async fn a_large_file_in_many_chunks_hashes_to_the_served_bytes() {
    let (sim, client, url, bytes) = served("150").await;
    // The longest video the spec allows: dozens of chunks, many more than the writer queues.
    assert!(bytes.len() > 8 << 20, "a large file ({} bytes)", bytes.len());
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.mp4");
    let last = Mutex::new(None);
    let report = |done: u64, total: Option<u64>| *last.lock().expect("lock") = Some((done, total));
    let saved = fetch(&client, &url, &path, StallRule::default(), &any(), &report).await.expect("saved");
    let size = bytes.len() as u64;
    assert_eq!((saved.size, saved.sha256.as_str()), (size, sha(&bytes).as_str()));
    assert!(std::fs::read(&path).expect("file") == bytes.to_vec(), "the bytes on disk are the served ones");
    assert_eq!(*last.lock().expect("lock"), Some((size, Some(size))), "the last progress is the whole file");
    assert!(!part_path(&path).exists() && !meta_path(&path).exists(), "nothing left behind");
    sim.stop().await;
}

#[tokio::test]
async fn a_cut_transfer_keeps_what_arrived_and_resumes_to_the_same_bytes() {
    let (sim, client, url, bytes) = served("30").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.mp4");
    sim.set_faults(Faults { truncate: 1.0, ..Faults::default() });
    let cut = fetch(&client, &url, &path, StallRule::default(), &any(), &|_, _| {}).await;
    assert!(matches!(cut, Err(FetchError::Retry(_))), "{cut:?}");
    // The simulator sends exactly half before breaking the connection: all of it is on disk.
    let kept = std::fs::read(part_path(&path)).expect("the part file");
    assert!(kept == bytes[..bytes.len() / 2], "the part file holds the half that arrived");
    sim.set_faults(Faults::default());
    let saved = fetch(&client, &url, &path, StallRule::default(), &any(), &|_, _| {}).await.expect("saved");
    assert_eq!((saved.size, saved.sha256), (bytes.len() as u64, sha(&bytes)));
    assert!(std::fs::read(&path).expect("file") == bytes.to_vec());
    assert_eq!(file_statuses(&sim), [200, 206], "the second request resumed");
    sim.stop().await;
}

#[tokio::test]
async fn a_part_file_of_other_bytes_is_fetched_again_whole() {
    let (sim, client, url, bytes) = served("30").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.mp4");
    std::fs::write(part_path(&path), vec![0x5a; bytes.len() / 2]).expect("a stale part file");
    let saved = fetch(&client, &url, &path, StallRule::default(), &any(), &|_, _| {}).await.expect("saved");
    assert_eq!((saved.size, saved.sha256), (bytes.len() as u64, sha(&bytes)));
    assert_eq!(file_statuses(&sim), [206, 200], "the resume was refused after comparing the overlap");
    sim.stop().await;
}

#[tokio::test]
async fn a_failing_disk_write_is_reported_not_waited_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("read-only");
    std::fs::write(&path, b"").expect("file");
    let file = std::fs::File::open(&path).expect("opened for reading only");
    let mut writer = Writer::start(file, path.clone(), 0);
    // The writer fails on the first chunk; the queue fills at most, then the error comes back.
    let mut result = Ok(());
    for _ in 0..=QUEUE + 1 {
        result = writer.write(Bytes::from_static(b"data")).await;
        if result.is_err() {
            break;
        }
    }
    assert!(result.is_err(), "a write error is reported");
}

#[tokio::test]
async fn a_file_past_its_bound_is_refused_before_reading_and_nothing_is_kept() {
    let (sim, client, url, bytes) = served("30").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.mp4");
    let small = Expect { bound: verify::SizeBound::ceiling(bytes.len() as u64 - 1), seconds: None };
    let refused = fetch(&client, &url, &path, StallRule::default(), &small, &|_, _| {}).await;
    let Err(FetchError::Fatal(why)) = refused else { panic!("{refused:?}") };
    assert!(why.starts_with("the server announced ") && why.ends_with("; not downloaded"), "{why}");
    assert!(!path.exists() && !part_path(&path).exists() && !meta_path(&path).exists(), "nothing left behind");
    sim.stop().await;
}

#[tokio::test]
async fn a_video_far_from_the_seconds_asked_is_not_saved() {
    let (sim, client, url, _) = served("30").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.mp4");
    let ten = Expect { seconds: Some(10.0), ..any() };
    let refused = fetch(&client, &url, &path, StallRule::default(), &ten, &|_, _| {}).await;
    let Err(FetchError::Fatal(why)) = refused else { panic!("{refused:?}") };
    assert_eq!(why, "the video is 30.0 s long, far from the 10 s asked for; not the video of this task");
    assert!(!path.exists() && !part_path(&path).exists(), "never renamed, nothing to resume");
    let near = Expect { seconds: Some(28.0), ..any() };
    let saved = fetch(&client, &url, &path, StallRule::default(), &near, &|_, _| {}).await.expect("saved");
    assert_eq!(saved.path, path);
    sim.stop().await;
}
