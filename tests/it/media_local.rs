//! Local media files end to end, on 127.0.0.1 only: `reel submit` with a local path uploads it
//! to a moto S3 server, sends the presigned URL to the simulator, keeps the path in the record;
//! re-runs re-sign an expiring URL and upload again when the object is gone.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use reel_engine::media::storage::{Credentials, Storage, StorageSettings};
use reel_engine::media::uploads::{self, Frame, Step};
use reel_rules::{Draft, MediaDraft};
use reel_sim::{MEDIA_PNG, SimHandle};
use serde_json::Value;
use tokio::process::Command;

const BUCKET: &str = "reel-local";
const KEY_ID: &str = "AKIAREELLOCAL001";

use crate::common::moto;

use moto::{Moto, http};

trait Bucket {
    async fn create_bucket_here(&self);
    async fn empty_bucket(&self);
    fn storage_toml(&self) -> String;
    fn storage(&self) -> Storage;
}

impl Bucket for Moto {
    async fn create_bucket_here(&self) {
        self.create_bucket(BUCKET).await;
    }

    /// Every object gone, the bucket there again.
    async fn empty_bucket(&self) {
        self.reset().await;
        self.create_bucket(BUCKET).await;
    }

    fn storage_toml(&self) -> String {
        format!("[storage]\nendpoint = \"{}\"\nbucket = \"{BUCKET}\"\nprefix = \"refs\"\n", self.endpoint())
    }

    fn storage(&self) -> Storage {
        let settings = StorageSettings {
            endpoint: Some(self.endpoint()),
            bucket: BUCKET.into(),
            prefix: "refs".into(),
            ..StorageSettings::default()
        };
        Storage::connect(Some(&settings), Credentials::new(KEY_ID, "secret", None).expect("complete"))
            .expect("connects")
    }
}

struct Env {
    dir: tempfile::TempDir,
    data: PathBuf,
    config: PathBuf,
}

fn env(storage: &str) -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
    let engine = "[engine]\nrequests_per_second = 50\nfirst_poll_secs = 0.2\nidle_exit_secs = 1\n";
    std::fs::write(&config, format!("{engine}{storage}")).expect("config");
    Env { dir, data, config }
}

fn png(dir: &Path) -> PathBuf {
    let path = dir.join("still.png");
    std::fs::write(&path, MEDIA_PNG).expect("write");
    path
}

async fn submit(env: &Env, sim: &SimHandle, media: &str) -> (i32, Value, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_reel"));
    c.args(["--no-service", "submit", "--model", "acme/aurora-3.0/image-to-video", "--prompt", "a fox", "--json"])
        .args(["--media", media])
        .env("REEL_BASE_URL", sim.base_url())
        .env("REEL_API_KEY", sim.api_key())
        .env("REEL_DATA_DIR", &env.data)
        .env("REEL_CONFIG", &env.config)
        .env("HOME", env.dir.path())
        .env("AWS_ACCESS_KEY_ID", KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", "not-on-disk-secret")
        .env_remove("AWS_SESSION_TOKEN")
        .stdin(Stdio::null());
    let out = tokio::time::timeout(Duration::from_secs(60), c.output()).await.expect("within a minute").expect("runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn posts(sim: &SimHandle) -> usize {
    sim.requests().iter().filter(|r| r.method == "POST").count()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_file_is_uploaded_once_and_sent_as_a_presigned_url() {
    let (moto, sim) = (Moto::start(true).await, start(fast_config()).await);
    moto.create_bucket_here().await;
    let env = env(&moto.storage_toml());
    let path = png(env.dir.path());
    for (round, given) in
        [format!("first_frame={}", path.display()), "first_frame=~/still.png".to_string()].iter().enumerate()
    {
        let (code, tasks, err) = submit(&env, &sim, given).await;
        assert_eq!(code, 0, "round {round}: {err}");
        let media = &tasks[0]["media"][0];
        let url = media["url"].as_str().expect("a URL was sent");
        assert!(url.starts_with(&format!("{}/{BUCKET}/refs/", moto.endpoint())), "{url}");
        assert!(url.contains("X-Amz-Signature=") && url.contains("X-Amz-Expires="), "presigned: {url}");
        assert_eq!(media["local"]["path"], path.display().to_string(), "the record keeps the file: {media}");
        assert!(media["local"]["key"].as_str().is_some_and(|k| k.starts_with("refs/")), "{media}");
        let fetched = http().get(url).send().await.expect("GET").bytes().await.expect("body");
        assert_eq!(fetched.as_ref(), MEDIA_PNG.as_slice(), "the URL fetches the file");
    }
    assert_eq!(moto.count("PUT", "/refs/"), 1, "the same content is uploaded once across two submits");
    assert_eq!(posts(&sim), 2);
    let db = std::fs::read(env.data.join("reel.db")).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&db).contains("not-on-disk-secret"), "credentials never on disk");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_storage_a_local_path_is_refused_with_how_to_configure() {
    let sim = start(fast_config()).await;
    let env = env("");
    let path = png(env.dir.path());
    let (code, _, err) = submit(&env, &sim, &format!("first_frame={}", path.display())).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("none is configured") && err.contains("[storage]") && err.contains("bucket ="), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert_eq!(posts(&sim), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_upload_sends_no_post() {
    let (moto, sim) = (Moto::start(true).await, start(fast_config()).await);
    // No bucket: the storage server refuses the upload.
    let env = env(&moto.storage_toml());
    let path = png(env.dir.path());
    let (code, _, err) = submit(&env, &sim, &format!("first_frame={}", path.display())).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("media item 1 (") && err.contains("still.png"), "names the item: {err}");
    assert!(err.contains("does not exist"), "gives the reason: {err}");
    assert_eq!(posts(&sim), 0, "nothing was sent");
    let (code, _, err) = submit(&env, &sim, "first_frame=./no/such/file.png").await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("media item 1") && err.contains("cannot read"), "{err}");
    assert_eq!(posts(&sim), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rerun_re_signs_an_expiring_url_and_uploads_again_when_the_object_is_gone() {
    let moto = Moto::start(true).await;
    moto.create_bucket_here().await;
    let storage = moto.storage();
    let files = tempfile::tempdir().expect("tempdir");
    let path = png(files.path());
    let now = jiff::Timestamp::now().as_second();
    let frame = |now| Frame { home: None, cwd: files.path(), now, client_timeout: Duration::from_secs(600) };
    let hour = Duration::from_secs(3600);
    let draft =
        Draft { media: vec![MediaDraft::typed("first_frame", &path.display().to_string(), None)], ..Draft::default() };
    let steps = uploads::plan(&draft, &frame(now)).expect("a plan");
    let sent = uploads::carry_out(&draft, steps, &storage, hour, |_, _, _| {}).await.expect("uploaded");
    let origin = sent.media[0].local.clone().expect("an origin");
    assert!(uploads::plan(&sent, &frame(now)).expect("a plan").is_empty(), "a fresh URL is sent as it is");

    // An hour later the URL has expired: the object is signed again, not uploaded.
    let later = now + 3600;
    let steps = uploads::plan(&sent, &frame(later)).expect("a plan");
    assert!(matches!(&steps[..], [(0, Step::Resign { key, .. })] if Some(key) == origin.key.as_ref()), "{steps:?}");
    let again = uploads::carry_out(&sent, steps, &storage, hour, |_, _, _| {}).await.expect("re-signed");
    let renewed = again.media[0].local.clone().expect("an origin");
    assert_eq!(renewed.key, origin.key);
    assert!(renewed.expires_at >= origin.expires_at, "{renewed:?} after {origin:?}");
    assert_eq!(moto.count("PUT", "/refs/"), 1, "re-signing uploads nothing");
    let fetched = http().get(&again.media[0].url).send().await.expect("GET").bytes().await.expect("body");
    assert_eq!(fetched.as_ref(), MEDIA_PNG.as_slice());

    // The object was deleted: uploaded again from the file while it exists, else a clear failure.
    moto.empty_bucket().await;
    let steps = uploads::plan(&sent, &frame(later)).expect("a plan");
    uploads::carry_out(&sent, steps, &storage, hour, |_, _, _| {}).await.expect("uploaded again");
    assert_eq!(moto.count("PUT", "/refs/"), 2);
    moto.empty_bucket().await;
    std::fs::remove_file(&path).expect("remove");
    let steps = uploads::plan(&sent, &frame(later)).expect("a plan");
    let failures = uploads::carry_out(&sent, steps, &storage, hour, |_, _, _| {}).await.expect_err("nothing to upload");
    let text = failures[0].to_string();
    assert!(text.contains("no longer in bucket") && text.contains("no longer there"), "{text}");
}
