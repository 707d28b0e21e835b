//! Uploads to a real S3-compatible server on 127.0.0.1: moto's server (`python3 -m pip install
//! 'moto[server]'`, done by .ci/run), one per test, started on a free port and killed at the end.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use reel_engine::media::storage::{Credentials, Progress, Storage, StorageError, StorageSettings, Transfer, Uploaded};
use reel_rules::params::MediaKind;
use sha2::{Digest, Sha256};

/// The sha256 of `bytes` as reel records it.
fn sha256_hex(bytes: &[u8]) -> String {
    reel_rules::text::hex(&Sha256::digest(bytes))
}

const HOUR: Duration = Duration::from_secs(3600);
const BUCKET: &str = "reel-media";

use crate::common::moto;

use moto::{Moto, http};

trait Media {
    fn settings(&self) -> StorageSettings;
    fn storage(&self, secret: &str) -> Storage;
}

impl Media for Moto {
    fn settings(&self) -> StorageSettings {
        StorageSettings {
            endpoint: Some(self.endpoint()),
            bucket: BUCKET.into(),
            prefix: "reel/refs".into(),
            ..StorageSettings::default()
        }
    }

    fn storage(&self, secret: &str) -> Storage {
        let creds = Credentials::new("AKIAREELTEST0001", secret, None).expect("complete");
        Storage::connect(Some(&self.settings()), creds).expect("connects")
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 % 251) as u8).collect()
}

async fn upload(storage: &Storage, path: &Path, kind: MediaKind, lifetime: Duration) -> Result<Uploaded, StorageError> {
    storage.upload(path, kind, lifetime, |_| {}).await
}

fn query(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url).expect("url").query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_content_is_uploaded_once() {
    let moto = Moto::start(true).await;
    moto.create_bucket(BUCKET).await;
    let storage = moto.storage("any-secret");
    let files = tempfile::tempdir().expect("tempdir");
    let bytes = pattern(70_000);
    let first_path = write(files.path(), "Photo.PNG", &bytes);
    let again_path = write(files.path(), "copy.png", &bytes);

    let mut seen = Vec::new();
    let first = storage.upload(&first_path, MediaKind::ReferenceImage, HOUR, |p| seen.push(p)).await.expect("uploads");
    assert_eq!(first.key, format!("reel/refs/{}.png", sha256_hex(&bytes)));
    assert_eq!((first.sha256.as_str(), first.size, first.reused), (sha256_hex(&bytes).as_str(), 70_000, false));
    assert_eq!(seen.last(), Some(&Progress { sent: 70_000, total: 70_000 }));
    let again = upload(&storage, &again_path, MediaKind::FirstFrame, HOUR).await.expect("second upload");
    assert_eq!((again.key.as_str(), again.reused), (first.key.as_str(), true));

    let requests = moto.requests();
    let on_key = |method: &str| requests.iter().filter(|(m, u)| m == method && u.contains(&first.key)).count();
    assert_eq!(on_key("PUT"), 1, "one PUT in all: {requests:?}");
    assert_eq!(on_key("HEAD"), 2, "each upload asks first: {requests:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn presigned_urls_fetch_the_exact_bytes_for_as_long_as_asked() {
    let moto = Moto::start(false).await;
    moto.create_bucket(BUCKET).await;
    let storage = moto.storage("any-secret");
    let files = tempfile::tempdir().expect("tempdir");
    let bytes = pattern(123_457);
    let path = write(files.path(), "clip.mp4", &bytes);

    let before = jiff::Timestamp::now();
    let up = upload(&storage, &path, MediaKind::ReferenceVideo, 2 * HOUR).await.expect("uploads");
    let after = jiff::Timestamp::now();
    assert_eq!(query(&up.url, "X-Amz-Expires").as_deref(), Some("7200"), "{}", up.url);
    let lifetime = jiff::SignedDuration::from_secs(7200);
    assert!(up.expires_at >= before + lifetime && up.expires_at <= after + lifetime, "{}", up.expires_at);
    let r = http().get(&up.url).send().await.expect("GET");
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["content-type"], "video/mp4");
    assert_eq!(r.bytes().await.expect("body").as_ref(), bytes.as_slice());

    // Longer than S3 allows: clamped to 7 days, and the URL still works.
    let long = upload(&storage, &path, MediaKind::ReferenceVideo, 30 * 24 * HOUR).await.expect("signs");
    assert_eq!(query(&long.url, "X-Amz-Expires").as_deref(), Some("604800"));
    assert!(long.expires_at <= jiff::Timestamp::now() + jiff::SignedDuration::from_hours(7 * 24));
    assert!(http().get(&long.url).send().await.expect("GET").status().is_success());

    // Re-signing an uploaded object (a re-run whose URL expired) checks it is still there.
    let re = storage.resign(&up.key, 3 * HOUR).await.expect("re-signs");
    assert_eq!((query(&re.url, "X-Amz-Expires").as_deref(), re.size), (Some("10800"), 123_457));
    assert_eq!(http().get(&re.url).send().await.expect("GET").bytes().await.expect("body").as_ref(), bytes.as_slice());
    let gone = storage.resign("reel/refs/0000.mp4", HOUR).await.expect_err("nothing there");
    assert!(matches!(gone, StorageError::Gone { .. }), "{gone}");
    assert!(gone.to_string().contains("upload the file again"), "{gone}");
}

#[tokio::test(flavor = "multi_thread")]
async fn large_files_go_in_parts_with_progress() {
    let moto = Moto::start(false).await;
    moto.create_bucket(BUCKET).await;
    let part = 5 << 20;
    let storage = moto.storage("any-secret").with_transfer(Transfer {
        multipart_threshold: part as u64,
        part_size: part,
        parallel: 2,
    });
    let files = tempfile::tempdir().expect("tempdir");
    let bytes = pattern(2 * part + 1000);
    let path = write(files.path(), "voice.wav", &bytes);

    let mut seen = Vec::new();
    let up = storage.upload(&path, MediaKind::ReferenceAudio, HOUR, |p| seen.push(p)).await.expect("uploads");
    let total = bytes.len() as u64;
    let sent: Vec<u64> = seen.iter().map(|p| p.sent).collect();
    assert!(seen.iter().all(|p| p.total == total), "{seen:?}");
    assert_eq!(sent.len(), 4, "a start and one report per part: {seen:?}");
    assert!(sent.windows(2).all(|w| w[0] < w[1]) && sent[0] == 0 && sent[3] == total, "{seen:?}");
    let body = http().get(&up.url).send().await.expect("GET").bytes().await.expect("body");
    assert_eq!((body.len(), sha256_hex(&body)), (bytes.len(), up.sha256.clone()));
}

/// Finds `needle` in any file under `dir`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path).expect("read").windows(needle.len()).any(|w| w == needle) {
            found.push(path);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_never_reach_the_disk() {
    let moto = Moto::start(false).await;
    moto.create_bucket(BUCKET).await;
    // The secret lives elsewhere (as in a password manager); reel's folders must never hold it.
    let vault = tempfile::tempdir().expect("vault");
    let secret = "hush-7f3a9c-do-not-store";
    let token = "tok-5e1d2b-do-not-store";
    let expiration = jiff::Timestamp::now().checked_add(jiff::SignedDuration::from_mins(30)).expect("in range");
    let expiration = jiff::Timestamp::from_second(expiration.as_second()).expect("whole seconds");
    let creds = format!(
        r#"{{"Version": 1, "AccessKeyId": "AKIAREELTEST0002", "SecretAccessKey": "{secret}", "SessionToken": "{token}", "Expiration": "{expiration}"}}"#
    );
    write(vault.path(), "creds.json", creds.as_bytes());
    let home = tempfile::tempdir().expect("home");
    let (config_dir, data_dir) = (home.path().join("config"), home.path().join("data"));
    std::fs::create_dir_all(&config_dir).expect("mkdir");
    let config = format!(
        "data_dir = {data:?}\n[storage]\nendpoint = {endpoint:?}\nbucket = {BUCKET:?}\nprefix = \"reel\"\ncredentials_cmd = [\"cat\", {creds:?}]\n",
        data = data_dir.display().to_string(),
        endpoint = moto.endpoint(),
        creds = vault.path().join("creds.json").display().to_string(),
    );
    let config_path = write(&config_dir, "config.toml", config.as_bytes());
    let file = reel_engine::config::parse_file(&config_path, &config).expect("parses");
    let settings =
        reel_engine::config::resolve(&file, &reel_engine::config::Env::default(), None, None).expect("resolves");
    let log =
        reel_engine::logging::init(&settings.data_dir, Some("reel=trace,object_store=trace"), false).expect("log");

    let storage_settings = settings.storage.as_ref().expect("[storage]");
    let credentials = Credentials::resolve(storage_settings, |_| None).await.expect("credentials_cmd");
    let storage = Storage::connect(Some(storage_settings), credentials).expect("connects");
    let media = write(home.path(), "still.webp", &pattern(4096));
    let up = upload(&storage, &media, MediaKind::ReferenceImage, HOUR).await.expect("uploads");
    // SigV4 puts a session token into every URL signed with it (useless without the secret);
    // the secret key itself is never in a URL.
    assert!(!up.url.contains(secret), "{}", up.url);
    assert_eq!(query(&up.url, "X-Amz-Security-Token").as_deref(), Some(token));
    // The credentials expire in 30 minutes: so does the hour-long URL.
    assert_eq!(up.expires_at, expiration);
    storage.resign(&up.key, HOUR).await.expect("re-signs");
    tracing::info!(storage = ?storage, settings = ?settings, "the test's own line, with both Debug outputs");
    drop(log);

    let logs = reel_engine::logging::folder(&data_dir);
    assert!(files_containing(&logs, b"uploaded a media file").len() == 1, "the log was written and is scanned");
    for needle in [secret, token] {
        assert_eq!(files_containing(home.path(), needle.as_bytes()), Vec::<PathBuf>::new(), "{needle} on disk");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_secret_key_is_refused_with_an_error_about_access() {
    let moto = Moto::start(false).await;
    moto.create_bucket(BUCKET).await;
    let (id, secret) = iam_user_with_s3_access(&moto).await;
    // From now on moto checks every request's signature against its IAM users.
    let r = http().post(format!("{}/moto-api/reset-auth", moto.endpoint())).body("0").send().await.expect("moto");
    assert!(r.status().is_success(), "{}", r.status());
    let files = tempfile::tempdir().expect("tempdir");
    let path = write(files.path(), "frame.jpg", &pattern(2048));
    let connect = |secret: &str| {
        let creds = Credentials::new(&id, secret, None).expect("complete");
        Storage::connect(Some(&moto.settings()), creds).expect("connects")
    };

    let refused = upload(&connect("not-the-secret"), &path, MediaKind::FirstFrame, HOUR).await.expect_err("refused");
    assert!(matches!(refused, StorageError::AccessDenied { .. }), "{refused}");
    assert!(refused.to_string().contains("refused access"), "{refused}");
    let up = upload(&connect(&secret), &path, MediaKind::FirstFrame, HOUR).await.expect("the right secret works");
    assert!(!up.reused);
}

/// Creates an IAM user, its access key and a policy allowing S3, while moto does not yet check
/// signatures (so these raw requests need none). Returns the key id and secret.
async fn iam_user_with_s3_access(moto: &Moto) -> (String, String) {
    let iam = |params: &[(&str, &str)]| {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params)
            .append_pair("Version", "2010-05-08")
            .finish();
        let request = http()
            .post(format!("{}/", moto.endpoint()))
            .header("content-type", "application/x-www-form-urlencoded")
            .header(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=00",
            )
            .body(body);
        async move {
            let r = request.send().await.expect("moto answers");
            let (status, text) = (r.status(), r.text().await.expect("body"));
            assert!(status.is_success(), "{status}: {text}");
            text
        }
    };
    iam(&[("Action", "CreateUser"), ("UserName", "reel")]).await;
    let policy = r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}"#;
    iam(&[("Action", "PutUserPolicy"), ("UserName", "reel"), ("PolicyName", "s3"), ("PolicyDocument", policy)]).await;
    let key = iam(&[("Action", "CreateAccessKey"), ("UserName", "reel")]).await;
    let field = |name: &str| {
        let open = format!("<{name}>");
        let start = key.find(&open).expect(name) + open.len();
        key[start..start + key[start..].find('<').expect(name)].to_string()
    };
    (field("AccessKeyId"), field("SecretAccessKey"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_bucket_is_named() {
    let moto = Moto::start(false).await;
    let files = tempfile::tempdir().expect("tempdir");
    let path = write(files.path(), "a.png", &pattern(100));
    let e = upload(&moto.storage("any-secret"), &path, MediaKind::ReferenceImage, HOUR).await.expect_err("no bucket");
    assert!(matches!(e, StorageError::BucketMissing { .. }), "{e}");
    assert!(e.to_string().contains(&format!("bucket \"{BUCKET}\" does not exist")), "{e}");
}

#[tokio::test]
async fn local_files_are_refused_without_storage_or_when_unusable() {
    let config = reel_engine::config::parse_file(Path::new("c.toml"), "data_dir = \"/tmp/reel-x\"\n").expect("parses");
    let settings =
        reel_engine::config::resolve(&config, &reel_engine::config::Env::default(), None, None).expect("resolves");
    let creds = Credentials::new("AKIA", "secret", None).expect("complete");
    let e = Storage::connect(settings.storage.as_ref(), creds.clone()).expect_err("no [storage]");
    assert!(matches!(e, StorageError::NotConfigured), "{e}");
    assert!(e.to_string().contains("[storage]") && e.to_string().contains("bucket ="), "{e}");

    // Checked before any request: the endpoint below does not exist.
    let settings =
        StorageSettings { endpoint: Some("http://127.0.0.1:9".into()), bucket: BUCKET.into(), ..Default::default() };
    let storage = Storage::connect(Some(&settings), creds).expect("connects");
    let files = tempfile::tempdir().expect("tempdir");
    let missing = upload(&storage, &files.path().join("gone.png"), MediaKind::ReferenceImage, HOUR).await;
    assert!(matches!(missing, Err(StorageError::FileUnreadable { .. })), "{missing:?}");
    let text = write(files.path(), "notes.txt", b"hello");
    let wrong = upload(&storage, &text, MediaKind::ReferenceImage, HOUR).await.expect_err("not an image");
    assert!(wrong.to_string().contains("reference_image takes .jpg"), "{wrong}");
}
