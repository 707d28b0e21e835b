//! The simulator's hostile behaviours, checked with raw reqwest and raw TCP on 127.0.0.1 (not
//! through reel's client or engine): each flag makes the server do what it says, byte for byte.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use reel_sim::routes::encode_segment;
use reel_sim::{
    Faults, Hostile, HostileId, HostileProgress, HostileStatus, HostileUrl, LifecycleConfig, Origin, SimConfig,
    SimHandle, Storm, Trigger,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const MODEL: &str = "acme/aurora-3.0/text-to-video";
const AUTH: &str = "Bearer sim-key";
/// A bound for answers that do end: generous, so a loaded machine never fails a test.
const PATIENCE: Duration = Duration::from_secs(60);

/// Tasks complete the moment they are created, so no test waits on the clock.
fn instant() -> SimConfig {
    let zero = Duration::ZERO;
    let lifecycle = LifecycleConfig { queue_time: zero, render_min: zero, render_max: zero, failure_rate: 0.0 };
    SimConfig { lifecycle, seed: Some(7), ..SimConfig::default() }
}

async fn start(config: SimConfig) -> SimHandle {
    SimHandle::start(config, 0).await.expect("the simulator starts on 127.0.0.1")
}

async fn hostile(h: Hostile) -> SimHandle {
    start(SimConfig { hostile: h, ..instant() }).await
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).no_proxy().build().expect("client")
}

async fn submit_model(sim: &SimHandle, model: &str) -> Value {
    let body = json!({ "model": model, "prompt": "a red fox", "seconds": 4, "metadata": { "resolution": "480P" } });
    let r = http()
        .post(format!("{}/v1/videos", sim.base_url()))
        .header("authorization", AUTH)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("submitted");
    assert_eq!(r.status(), 200);
    serde_json::from_slice(&r.bytes().await.expect("body")).expect("a JSON task")
}

async fn submit(sim: &SimHandle) -> Value {
    submit_model(sim, MODEL).await
}

/// The task as the service answers it now, by raw TCP (so no client-side path normalization).
async fn task(sim: &SimHandle, id: &str) -> Value {
    let r = raw(sim.addr(), "GET", &format!("/v1/videos/{}", encode_segment(id)), &[]).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    serde_json::from_slice(&r.body).expect("a JSON task")
}

/// A completed task's file URL.
async fn file_url(sim: &SimHandle) -> (String, String) {
    let id = submit(sim).await["id"].as_str().expect("id").to_string();
    let url = task(sim, &id).await["url"].as_str().expect("url").to_string();
    (id, url)
}

async fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = http().get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.expect("an answer")
}

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

struct Raw {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// One request on a fresh connection, read to the end of the connection.
async fn raw(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)]) -> Raw {
    raw_with_body(addr, method, target, headers, "").await
}

async fn raw_with_body(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Raw {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let mut req =
        format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {AUTH}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).await.expect("request sent");
    let mut bytes = Vec::new();
    tokio::time::timeout(PATIENCE, s.read_to_end(&mut bytes)).await.expect("the answer ends").expect("read");
    let at = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8_lossy(&bytes[..at]).into_owned();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    Raw { status, head, body: bytes[at + 4..].to_vec() }
}

fn last_fault(sim: &SimHandle) -> Option<&'static str> {
    sim.requests().last().and_then(|r| r.fault)
}

#[tokio::test]
async fn trickle_sends_a_few_bytes_then_stalls_or_drips() {
    let sim = hostile(Hostile { trickle: Trigger::Always, trickle_head: 100, ..Hostile::default() }).await;
    let (id, url) = file_url(&sim).await;
    let video = sim.video_bytes(&id).expect("video");
    let mut r = get(&url, &[]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-length"), video.len().to_string(), "the whole length is promised");
    let mut got = Vec::new();
    while got.len() < 100 {
        got.extend_from_slice(&r.chunk().await.expect("read").expect("the head arrives"));
    }
    assert_eq!(got, video[..100]);
    // The simulator stalls for good here; a short wait cannot see a byte that is never sent.
    assert!(tokio::time::timeout(Duration::from_millis(300), r.chunk()).await.is_err(), "stalled");
    assert_eq!(last_fault(&sim), Some("trickle"));

    let drip = Hostile { trickle_every: Some(Duration::from_millis(10)), trickle_head: 10, ..sim.hostile() };
    sim.set_hostile(drip);
    let mut r = get(&url, &[]).await;
    let mut got = Vec::new();
    while got.len() < 14 {
        let chunk = tokio::time::timeout(PATIENCE, r.chunk()).await.expect("a byte drips").expect("read");
        got.extend_from_slice(&chunk.expect("more"));
    }
    assert_eq!(got, video[..got.len()]);
}

#[tokio::test]
async fn file_answers_carry_validators_and_honour_if_range() {
    let sim = start(instant()).await;
    let (id, url) = file_url(&sim).await;
    let video = sim.video_bytes(&id).expect("video");
    let whole = get(&url, &[]).await;
    let (etag, modified) = (header(&whole, "etag"), header(&whole, "last-modified"));
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    assert!(httpdate::parse_http_date(&modified).is_ok(), "{modified}");
    let cases = [
        (etag.as_str(), 206),
        ("\"not-it\"", 200),
        (&format!("W/{etag}"), 200),
        (modified.as_str(), 206),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 200),
    ];
    for (validator, want) in cases {
        let r = get(&url, &[("range", "bytes=100-"), ("if-range", validator)]).await;
        assert_eq!(r.status(), want, "If-Range: {validator}");
        let body = r.bytes().await.expect("body");
        assert_eq!(body, if want == 206 { video.slice(100..) } else { video.clone() });
    }
}

#[tokio::test]
async fn resumes_are_ignored_lied_about_or_mismatched() {
    let sim = start(instant()).await;
    let (id, url) = file_url(&sim).await;
    let video = sim.video_bytes(&id).expect("video");
    let len = video.len();
    let range = [("range", "bytes=100-")];

    sim.set_hostile(Hostile { range_ignored: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &range).await;
    assert_eq!((r.status().as_u16(), header(&r, "content-range")), (200, String::new()));
    assert_eq!(r.bytes().await.expect("body"), video);

    sim.set_hostile(Hostile { range_lying: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &range).await;
    assert_eq!(r.status(), 206);
    assert_eq!(header(&r, "content-range"), format!("bytes 100-{}/{len}", len - 1), "claims what was asked");
    assert_eq!(r.bytes().await.expect("body"), video.slice(..len - 100), "but carries bytes from 0");
    assert_eq!(last_fault(&sim), Some("range_lying"));

    sim.set_hostile(Hostile { range_mismatch: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &range).await;
    assert_eq!(r.status(), 206);
    let claim = header(&r, "content-range");
    assert_eq!(claim, format!("bytes 50-{}/{len}", len - 1), "another range than asked");
    assert_eq!(r.bytes().await.expect("body"), video.slice(50..), "labelled honestly");
}

#[tokio::test]
async fn a_changing_file_has_new_bytes_and_validators_and_if_range_notices() {
    let sim = start(instant()).await;
    let (id, url) = file_url(&sim).await;
    let first = get(&url, &[]).await;
    let etag = header(&first, "etag");
    let first = first.bytes().await.expect("body");
    sim.set_hostile(Hostile { file_changes: Trigger::Always, ..Hostile::default() });
    let second = get(&url, &[("range", "bytes=100-"), ("if-range", &etag)]).await;
    assert_eq!(second.status(), 200, "the validator no longer matches: the whole new file");
    assert_ne!(header(&second, "etag"), etag);
    let second = second.bytes().await.expect("body");
    assert_ne!(second, first);
    assert_eq!(Some(second), sim.current_file_bytes(&id));
    assert_eq!(last_fault(&sim), Some("file_changes"));
}

#[tokio::test]
async fn an_overlong_body_runs_past_its_content_length() {
    let sim = hostile(Hostile { overlong: Trigger::Always, ..Hostile::default() }).await;
    let (id, url) = file_url(&sim).await;
    let video = sim.video_bytes(&id).expect("video");
    let target = url.trim_start_matches(&sim.base_url());
    let r = raw(sim.addr(), "GET", target, &[]).await;
    assert_eq!(r.status, 200);
    let length: usize = r.header("content-length").and_then(|v| v.parse().ok()).expect("a Content-Length");
    assert_eq!(length, video.len());
    assert!(r.body.len() > length, "{} bytes for a Content-Length of {length}", r.body.len());
    assert_eq!(r.body[..length], video[..]);
    assert_eq!(last_fault(&sim), Some("overlong"));
}

#[tokio::test]
async fn files_answer_403_410_and_triggers_count_per_behaviour() {
    let sim = hostile(Hostile { file_403: Trigger::Every(2), file_410: Trigger::First(1), ..Hostile::default() }).await;
    let (_, url) = file_url(&sim).await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(get(&url, &[]).await.status().as_u16());
    }
    // 403 is counted on every file request, 410 only on those that 403 let through.
    assert_eq!(statuses, [410, 403, 200, 403, 200]);
}

#[tokio::test]
async fn file_urls_redirect_in_a_loop_to_another_path_or_another_origin() {
    let sim = hostile(Hostile { file_redirect_loop: Trigger::Always, ..Hostile::default() }).await;
    let (_, url) = file_url(&sim).await;
    let a = get(&url, &[]).await;
    assert_eq!(a.status(), 302);
    let to_b = header(&a, "location");
    assert!(to_b.ends_with("&hop=1"), "{to_b}");
    let b = get(&format!("{}{to_b}", sim.base_url()), &[]).await;
    assert_eq!(b.status(), 302);
    assert_eq!(format!("{}{}", sim.base_url(), header(&b, "location")), url, "back to the start");

    sim.set_hostile(Hostile { file_redirect_path: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &[]).await;
    assert_eq!(r.status(), 302);
    let location = header(&r, "location");
    assert!(location.starts_with("/mirror/files/"), "{location}");
    let mirror = get(&format!("{}{location}", sim.base_url()), &[]).await;
    assert_eq!(mirror.status(), 200);
    let via_mirror = mirror.bytes().await.expect("body");

    sim.set_hostile(Hostile { file_redirect_origin: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &[]).await;
    assert_eq!(r.status(), 302);
    let location = header(&r, "location");
    assert!(location.starts_with(&format!("{}/files/", sim.other_base_url())), "{location}");
    assert_ne!(sim.other_addr().port(), sim.addr().port());
    let other = get(&location, &[]).await;
    assert_eq!(other.status(), 200, "the other origin serves the file");
    assert_eq!(other.bytes().await.expect("body"), via_mirror);
    assert_eq!(sim.requests().last().map(|r| r.origin), Some(Origin::Other));
}

#[tokio::test]
async fn completed_tasks_can_point_at_other_schemes() {
    let sim = start(instant()).await;
    for (kind, prefix) in
        [(HostileUrl::Ftp, "ftp://"), (HostileUrl::File, "file:///etc/passwd"), (HostileUrl::Javascript, "javascript:")]
    {
        sim.set_hostile(Hostile { task_url: Some(kind), ..Hostile::default() });
        let id = submit(&sim).await["id"].as_str().expect("id").to_string();
        let t = task(&sim, &id).await;
        assert_eq!(t["status"], "completed");
        assert!(t["url"].as_str().is_some_and(|u| u.starts_with(prefix)), "{kind}: {}", t["url"]);
    }
}

#[tokio::test]
async fn endless_answers_never_end() {
    let sim = hostile(Hostile { endless: Trigger::Always, ..Hostile::default() }).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let url = format!("{}/v1/videos/{id}", sim.base_url());
    for (kind, starts) in [("endless", "["), ("endless_spaces", "{\"")] {
        if kind == "endless_spaces" {
            sim.set_hostile(Hostile { endless_spaces: Trigger::Always, ..Hostile::default() });
        }
        let mut r = get(&url, &[("authorization", AUTH)]).await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "content-length"), "", "no length: it never ends");
        let mut seen = Vec::new();
        while seen.len() < 4 << 20 {
            seen.extend_from_slice(&r.chunk().await.expect("read").expect("it goes on"));
        }
        assert!(seen.starts_with(starts.as_bytes()), "{kind}");
        let filler = if kind == "endless" { b'[' } else { b' ' };
        assert!(seen[seen.len() - 1024..].iter().all(|b| *b == filler), "{kind}");
        assert_eq!(last_fault(&sim), Some(kind));
    }
}

#[tokio::test]
async fn file_answers_without_a_length_never_end_or_end_cleanly_at_half() {
    let sim = hostile(Hostile { file_endless: Trigger::Always, ..Hostile::default() }).await;
    let (id, url) = file_url(&sim).await;
    let video = sim.video_bytes(&id).expect("video");
    let mut r = get(&url, &[]).await;
    assert_eq!((r.status().as_u16(), header(&r, "content-length")), (200, String::new()), "no length");
    let mut seen = Vec::new();
    while seen.len() < video.len() + (4 << 20) {
        seen.extend_from_slice(&r.chunk().await.expect("read").expect("it goes on"));
    }
    assert!(seen.starts_with(&video), "the file comes first");
    assert!(seen[seen.len() - 1024..].iter().all(|b| *b == 0), "then zeros");
    assert_eq!(last_fault(&sim), Some("file_endless"));

    // Close-delimited: no length, no chunking; half the file, then the connection closes.
    sim.set_hostile(Hostile { file_cut_clean: Trigger::Always, ..Hostile::default() });
    let target = url.trim_start_matches(&sim.base_url());
    let r = raw(sim.addr(), "GET", target, &[]).await;
    assert_eq!((r.status, r.header("content-length"), r.header("transfer-encoding")), (200, None, None));
    assert_eq!(r.body, video[..video.len() / 2], "half the file");
    assert_eq!(last_fault(&sim), Some("file_cut_clean"));
    // A client sees a clean end: nothing tells it the file is cut.
    let whole = get(&url, &[]).await.bytes().await.expect("a clean end");
    assert_eq!(whole.len(), video.len() / 2);

    sim.set_hostile(Hostile { file_redirect_scheme: Trigger::Always, ..Hostile::default() });
    let r = get(&url, &[]).await;
    assert_eq!((r.status().as_u16(), header(&r, "location")), (302, "file:///etc/passwd".to_string()));
}

#[tokio::test]
async fn a_huge_answer_is_valid_json_of_the_size_asked() {
    assert_eq!(Hostile::default().huge_bytes, 50 * 1024 * 1024);
    let size = 5 * 1024 * 1024;
    let sim = hostile(Hostile { huge: Trigger::Always, huge_bytes: size, ..Hostile::default() }).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let r = get(&format!("{}/v1/videos/{id}", sim.base_url()), &[("authorization", AUTH)]).await;
    assert_eq!(header(&r, "content-length"), size.to_string());
    let body = r.bytes().await.expect("body");
    assert_eq!(body.len() as u64, size);
    let t: Value = serde_json::from_slice(&body).expect("valid JSON");
    assert_eq!((t["id"].as_str(), t["status"].as_str()), (Some(id.as_str()), Some("completed")));
}

#[tokio::test]
async fn answers_can_come_one_byte_at_a_time() {
    let pace = Duration::from_millis(2);
    let sim = hostile(Hostile { slow_bytes: Trigger::Always, slow_bytes_every: pace, ..Hostile::default() }).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let began = Instant::now();
    let r = raw(sim.addr(), "GET", &format!("/v1/videos/{id}"), &[]).await;
    let t: Value = serde_json::from_slice(&r.body).expect("a whole JSON task in the end");
    assert_eq!((r.status, t["id"].as_str()), (200, Some(id.as_str())));
    let bytes = r.head.len() + 4 + r.body.len();
    assert!(began.elapsed() >= pace * (bytes as u32 - 1), "{bytes} bytes in {:?}", began.elapsed());
    assert_eq!(last_fault(&sim), Some("slow_bytes"));
}

#[tokio::test]
async fn retry_after_comes_as_huge_seconds_or_an_http_date() {
    let day = Duration::from_secs(86_400);
    let faults = Faults { rate_limit: 1.0, retry_after: day, ..Faults::default() };
    let sim = start(SimConfig { faults, ..instant() }).await;
    let r = raw(sim.addr(), "GET", "/v1/videos/x", &[]).await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("86400")));

    sim.set_hostile(Hostile { retry_after_date: true, ..Hostile::default() });
    let before = SystemTime::now();
    let r = raw(sim.addr(), "GET", "/v1/videos/x", &[]).await;
    assert_eq!(r.status, 429);
    let date = httpdate::parse_http_date(r.header("retry-after").expect("Retry-After")).expect("an HTTP date");
    let ahead = date.duration_since(before).expect("in the future");
    assert!(ahead >= day - Duration::from_secs(1) && ahead <= day + PATIENCE, "{ahead:?}");
}

#[tokio::test]
async fn statuses_outside_the_spec_come_with_a_url() {
    let sim = start(instant()).await;
    let cases = [
        (HostileStatus::Padded, Some(json!(" Completed "))),
        (HostileStatus::Succeeded, Some(json!("SUCCEEDED"))),
        (HostileStatus::Done, Some(json!("done"))),
        (HostileStatus::Upper, Some(json!("COMPLETED"))),
        (HostileStatus::Number, Some(json!(3))),
        (HostileStatus::Null, Some(Value::Null)),
        (HostileStatus::Missing, None),
        (HostileStatus::Escape, Some(json!("completed\x1b[2J"))),
    ];
    for (kind, want) in cases {
        sim.set_hostile(Hostile { task_status: Some(kind), ..Hostile::default() });
        let queued = submit(&sim).await;
        assert_eq!(queued["status"], "queued", "submission answers as the spec says");
        let t = task(&sim, queued["id"].as_str().expect("id")).await;
        assert_eq!(t.get("status").cloned(), want, "{kind}");
        let url = t["url"].as_str().expect("a url: the trap");
        assert_eq!(get(url, &[]).await.status(), 200, "{kind}: and the file is really there");
    }
}

#[tokio::test]
async fn hostile_ids_and_what_the_get_path_does_with_them() {
    let sim = start(instant()).await;
    let mut ids = Vec::new();
    for (name, kind) in [
        ("empty", HostileId::Empty),
        ("dot", HostileId::Dot),
        ("dotdot", HostileId::DotDot),
        ("slash", HostileId::Slash),
        ("encoded", HostileId::EncodedDotDot),
        ("huge", HostileId::Huge),
        ("control", HostileId::Control),
    ] {
        sim.set_hostile(Hostile { task_id: Some(kind), ..Hostile::default() });
        ids.push((name, submit(&sim).await["id"].as_str().expect("a string id").to_string()));
    }
    let id = |name: &str| ids.iter().find(|(n, _)| *n == name).map(|(_, id)| id.clone()).unwrap_or_default();
    assert_eq!([id("empty"), id("dot"), id("dotdot"), id("slash"), id("encoded")], ["", ".", "..", "a/b", "%2e%2e"]);
    assert_eq!(id("huge").len(), 100_000);
    assert!(id("control").contains("\x1b[2J") && id("control").contains('\u{9b}'));

    let list: Value = serde_json::from_slice(&raw(sim.addr(), "GET", "/v1/videos/", &[]).await.body).expect("json");
    assert_eq!(list["object"], "list", "an empty id reaches a list, not the task");
    let dot: Value = serde_json::from_slice(&raw(sim.addr(), "GET", "/v1/videos/.", &[]).await.body).expect("json");
    assert_eq!(dot["object"], "list");
    let cases = [
        ("/v1/videos/..", 404),
        ("/v1/videos/a/b", 404),
        ("/v1/videos/a%2Fb", 200),
        ("/v1/videos/%2e%2e", 404),
        ("/v1/videos/%252e%252e", 200),
    ];
    for (path, want) in cases {
        assert_eq!(raw(sim.addr(), "GET", path, &[]).await.status, want, "{path}");
    }
    assert_eq!(task(&sim, &id("slash")).await["id"], "a/b");
    assert_eq!(task(&sim, &id("control")).await["id"], id("control"));
    let huge = raw(sim.addr(), "GET", &format!("/v1/videos/{}", id("huge")), &[]).await;
    assert_eq!(huge.status, 414, "a 100 KB id does not fit in a request line");

    sim.set_hostile(Hostile { task_id: Some(HostileId::Duplicate), tasks: Trigger::Every(2), ..Hostile::default() });
    let first = submit_model(&sim, "acme/aurora-2.7/text-to-video").await;
    let second = submit(&sim).await;
    assert_eq!(first["id"], second["id"], "two tasks, one id");
    let t = task(&sim, first["id"].as_str().expect("id")).await;
    assert_eq!(t["model"], MODEL, "the id answers for the later task");
    assert_eq!(sim.task_count(), ids.len() + 2);
}

#[tokio::test]
async fn api_requests_redirect_to_another_origin_or_the_same_one() {
    let sim = hostile(Hostile { api_redirect_origin: Trigger::Always, ..Hostile::default() }).await;
    let body = json!({ "model": MODEL, "prompt": "a red fox", "seconds": 4 }).to_string();
    let post = raw_with_body(sim.addr(), "POST", "/v1/videos", &[], &body).await;
    assert_eq!(post.status, 307);
    assert_eq!(post.header("location"), Some(format!("{}/v1/videos", sim.other_base_url()).as_str()));
    assert_eq!(sim.task_count(), 0, "nothing was created by the redirected POST");
    let followed = http()
        .post(format!("{}/v1/videos", sim.other_base_url()))
        .header("authorization", AUTH)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("answer");
    assert_eq!(followed.status(), 200, "the other origin would take it: a client must refuse to follow");
    let created: Value = serde_json::from_slice(&followed.bytes().await.expect("body")).expect("json");
    let id = created["id"].as_str().expect("id").to_string();
    assert_eq!(sim.requests().last().map(|r| r.origin), Some(Origin::Other));

    sim.set_hostile(Hostile { api_redirect_origin: Trigger::Always, api_redirect_status: 308, ..Hostile::default() });
    let r = raw(sim.addr(), "GET", &format!("/v1/videos/{id}"), &[]).await;
    assert_eq!(r.status, 308);
    assert_eq!(r.header("location"), Some(format!("{}/v1/videos/{id}", sim.other_base_url()).as_str()));

    sim.set_hostile(Hostile { api_redirect_same: Trigger::Always, ..Hostile::default() });
    let r = raw(sim.addr(), "GET", &format!("/v1/videos/{id}"), &[]).await;
    assert_eq!(r.status, 307);
    let location = r.header("location").expect("Location").to_string();
    assert_eq!(location, format!("/v1/videos/{id}?hop=1"));
    assert_eq!(raw(sim.addr(), "GET", &location, &[]).await.status, 200, "the same origin serves it there");
    assert_eq!(last_fault(&sim), None);
}

#[tokio::test]
async fn control_sequences_reach_every_string() {
    let sequences = ["\x1b]52;c;", "\x1b]0;", "\x1b[2J", "\x1b]8;;", "\u{9b}", "\u{202e}"];
    let poison = Hostile { task_strings: true, ..Hostile::default() };
    let failing = LifecycleConfig { failure_rate: 1.0, ..instant().lifecycle };
    let sim = start(SimConfig { lifecycle: failing, hostile: poison, ..instant() }).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let t = task(&sim, &id).await;
    assert_eq!(t["status"], "failed", "the task still fails as it should");
    for field in [&t["error"]["message"], &t["error"]["code"], &t["model"], &t["object"]] {
        let text = field.as_str().expect("a string");
        for seq in sequences {
            assert!(text.contains(seq), "{seq:?} in {text:?}");
        }
    }

    let all = Hostile { task_id: Some(HostileId::Control), task_status: Some(HostileStatus::Escape), ..poison };
    let sim = hostile(all).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let t = task(&sim, &id).await;
    for text in [&t["id"], &t["status"], &t["model"], &t["object"]].map(|v| v.as_str().unwrap_or_default()) {
        assert!(text.contains('\x1b'), "{text:?}");
    }
}

#[tokio::test]
async fn a_429_storm_refuses_everything_for_its_window() {
    let (hour, zero) = (Duration::from_secs(3600), Duration::ZERO);
    let sim = start(instant()).await;
    let (id, url) = file_url(&sim).await;
    sim.set_hostile(Hostile { storm: Some(Storm { after: zero, lasting: hour }), ..Hostile::default() });
    let post = raw_with_body(sim.addr(), "POST", "/v1/videos", &[], "{}").await;
    let poll = raw(sim.addr(), "GET", &format!("/v1/videos/{id}"), &[]).await;
    let file = get(&url, &[]).await;
    assert_eq!([post.status, poll.status, file.status().as_u16()], [429; 3]);
    let wait: u64 = poll.header("retry-after").and_then(|v| v.parse().ok()).expect("Retry-After in seconds");
    assert!((3000..=3600).contains(&wait), "what is left of the window: {wait}");
    assert_eq!(last_fault(&sim), Some("storm"));

    sim.set_hostile(Hostile { storm: Some(Storm { after: hour, lasting: hour }), ..Hostile::default() });
    assert_eq!(raw(sim.addr(), "GET", &format!("/v1/videos/{id}"), &[]).await.status, 200, "not begun yet");
    sim.set_hostile(Hostile::default());
    assert_eq!(get(&url, &[]).await.status(), 200);
}

#[tokio::test]
async fn progress_is_a_percent_unless_made_hostile() {
    let hour = Duration::from_secs(3600);
    let rendering =
        LifecycleConfig { queue_time: Duration::ZERO, render_min: hour, render_max: hour, failure_rate: 0.0 };
    let sim = start(SimConfig { lifecycle: rendering, ..instant() }).await;
    let id = submit(&sim).await["id"].as_str().expect("id").to_string();
    let t = task(&sim, &id).await;
    assert_eq!(t["status"], "in_progress");
    assert!(t["progress"].as_u64().is_some_and(|p| p <= 100), "{}", t["progress"]);
    let cases = [
        (HostileProgress::Negative, json!(-25)),
        (HostileProgress::Over, json!(250)),
        (HostileProgress::NaN, json!("NaN")),
        (HostileProgress::Text, json!("50%")),
    ];
    for (kind, want) in cases {
        sim.set_hostile(Hostile { task_progress: Some(kind), ..Hostile::default() });
        let id = submit(&sim).await["id"].as_str().expect("id").to_string();
        assert_eq!(task(&sim, &id).await["progress"], want, "{kind}");
    }
}

/// Seconds of an MP4 from its `mvhd` box (version 0: timescale, then duration).
fn mp4_seconds(bytes: &[u8]) -> f64 {
    let at = bytes.windows(4).position(|w| w == b"mvhd").expect("an mvhd box");
    let be32 = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    f64::from(be32(at + 20)) / f64::from(be32(at + 16))
}

#[tokio::test]
async fn media_files_have_known_durations_and_types() {
    let sim = start(instant()).await;
    let base = sim.base_url();
    let mp4 = get(&format!("{base}/media/sample.mp4?seconds=7"), &[]).await;
    assert_eq!((mp4.status().as_u16(), header(&mp4, "content-type")), (200, "video/mp4".to_string()));
    let length = header(&mp4, "content-length");
    let bytes = mp4.bytes().await.expect("body");
    assert_eq!(&bytes[4..8], b"ftyp");
    assert_eq!(mp4_seconds(&bytes), 7.0);
    let head = http().head(format!("{base}/media/sample.mp4?seconds=7")).send().await.expect("HEAD");
    assert_eq!((head.status().as_u16(), header(&head, "content-length")), (200, length));

    let png = get(&format!("{base}/media/sample.png"), &[]).await;
    assert_eq!(header(&png, "content-type"), "image/png");
    assert_eq!(png.bytes().await.expect("body")[..], reel_sim::MEDIA_PNG[..]);

    let wav = get(&format!("{base}/media/sample.wav?seconds=3"), &[]).await;
    assert_eq!(header(&wav, "content-type"), "audio/wav");
    let w = wav.bytes().await.expect("body");
    let le32 = |i: usize| u32::from_le_bytes([w[i], w[i + 1], w[i + 2], w[i + 3]]);
    assert_eq!((&w[..4], &w[8..12], le32(40) / le32(28)), (&b"RIFF"[..], &b"WAVE"[..], 3));
    assert_eq!(le32(24), reel_sim::MEDIA_WAV_RATE);

    assert_eq!(get(&format!("{base}/media/sample.mp4?seconds=0"), &[]).await.status(), 400);

    sim.set_hostile(Hostile { media_head_405: true, media_wrong_type: true, ..Hostile::default() });
    let head = http().head(format!("{base}/media/sample.wav")).send().await.expect("HEAD");
    assert_eq!((head.status().as_u16(), header(&head, "allow")), (405, "GET".to_string()));
    for (name, right) in [("sample.mp4", "video/mp4"), ("sample.png", "image/png"), ("sample.wav", "audio/wav")] {
        let r = get(&format!("{base}/media/{name}"), &[]).await;
        assert_eq!(r.status(), 200);
        assert_ne!(header(&r, "content-type"), right, "{name}");
    }
}

#[tokio::test]
async fn by_default_nothing_is_hostile() {
    let sim = start(instant()).await;
    let (id, url) = file_url(&sim).await;
    let t = task(&sim, &id).await;
    assert_eq!((t["status"].as_str(), t["object"].as_str()), (Some("completed"), Some("video")));
    assert!(id.starts_with("task_") && id.len() == 29, "{id}");
    assert!(url.starts_with(&format!("{}/files/", sim.base_url())));
    let r = get(&url, &[("range", "bytes=10-")]).await;
    assert_eq!(r.status(), 206);
    assert_eq!(r.bytes().await.expect("body"), sim.video_bytes(&id).expect("video").slice(10..));
    assert!(sim.requests().iter().all(|r| r.fault.is_none() && r.origin == Origin::Main));
}
