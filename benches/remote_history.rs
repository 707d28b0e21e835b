//! A million-task history read from another machine over SSH: one history page, the next page
//! and searches, through the engine on the "host" (a real OpenSSH server on 127.0.0.1), side
//! by side with the same reads from the local file, over SSH as it is, and over SSH behind a
//! proxy that delays every byte by 50 ms each way (100 ms of round trip, a slow link).
//!
//! Run: `cargo bench --bench remote_history` (needs OpenSSH's sshd, as the tests do). The
//! database is the history bench's (`target/bench-history/reel.db`, built once), copied into a
//! host data folder of the bench's own. `ROUNDS=N` repeats each read N times (default 15).
//! The target: a page or a search in at most two round trips, under 250 ms at 100 ms RTT.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test or benchmark fails loudly on purpose")]

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reel_engine::Engine;
use reel_engine::reader::Reader;
use reel_engine::service::ssh::{SshReach, SshTarget};
use reel_store::history::HistoryQuery;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

#[path = "support/history_db.rs"]
mod history_db;

/// What tests/common/sshd.rs needs of its siblings.
mod folder {
    pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);
}
#[path = "../tests/it/common/sshd.rs"]
#[allow(dead_code)]
mod sshd;

/// Each way: 100 ms of round trip.
const ONE_WAY: Duration = Duration::from_millis(50);

/// A TCP proxy on 127.0.0.1 that holds every byte `delay` before passing it on, both ways (in
/// order, pipelined: a stream of bytes is late, not slow). Its port.
async fn delaying_proxy(target: u16, delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(outbound) = TcpStream::connect(("127.0.0.1", target)).await else { return };
                let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                let (ri, wi) = inbound.into_split();
                let (ro, wo) = outbound.into_split();
                tokio::join!(late(ri, wo, delay), late(ro, wi, delay));
            });
        }
    });
    port
}

async fn late(mut from: tokio::net::tcp::OwnedReadHalf, mut to: tokio::net::tcp::OwnedWriteHalf, delay: Duration) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    let reading = async move {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buf).await {
            if tx.send((tokio::time::Instant::now() + delay, buf[..n].to_vec())).is_err() {
                break;
            }
        }
    };
    let writing = async move {
        while let Some((due, bytes)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reading, writing);
}

/// The reads the dashboard's history makes, `rounds` times each: (name, times).
async fn measure(reader: &Reader, rounds: usize) -> Vec<(&'static str, Vec<Duration>)> {
    let page = reel_tui::history::PAGE;
    let query = |text: &str| HistoryQuery { text: text.into(), ..HistoryQuery::default() };
    let first = reader.history(&HistoryQuery::default(), None, page).await.expect("a page");
    let cursor = first.last().map(|r| r.record.id);
    let cases: Vec<(&'static str, HistoryQuery, Option<i64>)> = vec![
        ("history: first page (H)", HistoryQuery::default(), None),
        ("history: next page", HistoryQuery::default(), cursor),
        ("search: one word (fox)", query("fox"), None),
        ("search: two words (red fox)", query("red fox"), None),
        ("search: prefix (light)", query("light"), None),
        ("search: rating:>=4 night", query("rating:>=4 night"), None),
    ];
    let mut out = Vec::new();
    for (name, q, cursor) in cases {
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t = Instant::now();
            let rows = reader.history(&q, cursor, page).await.expect("a page");
            times.push(t.elapsed());
            assert!(!rows.is_empty(), "{name}: rows");
        }
        out.push((name, times));
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn max(v: &[Duration]) -> Duration {
    v.iter().copied().max().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

async fn over_ssh(sshd: &sshd::Sshd, port: u16, host_data: &Path) -> (Reader, Duration) {
    let remote_reel = sshd::remote_reel(&[(OsString::from("REEL_CONFIG"), host_data.join("config.toml").into())]);
    let reach = SshReach {
        target: SshTarget {
            user: Some(sshd.user().to_string()),
            host: "127.0.0.1".into(),
            port: Some(port),
            data_dir: Some(host_data.display().to_string()),
        },
        ssh: sshd.ssh(),
        reel: shell_words::split(&remote_reel).expect("words"),
    };
    let t = Instant::now();
    let (remote, _events) = reach.connect().await.expect("the engine over ssh");
    let connected = t.elapsed();
    (Reader::Engine(Arc::new(Engine::Remote(remote))), connected)
}

#[tokio::main]
async fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(15);
    let db = history_db::ensure();
    let Some(sshd) = sshd::Sshd::start() else { return };
    let host = tempfile::Builder::new().prefix("reel-bench-host").tempdir().expect("a host folder");
    let data = host.path().join("data");
    std::fs::create_dir_all(&data).expect("the host's data folder");
    let t = Instant::now();
    std::fs::copy(&db, data.join("reel.db")).expect("the history copied to the host");
    std::fs::write(data.join("config.toml"), "").expect("the host's config");
    eprintln!("copied the history to the host's folder in {:.1} s", t.elapsed().as_secs_f64());

    let local = Reader::Store(data.join("reel.db"));
    let (direct, direct_connect) = over_ssh(&sshd, sshd.port(), &data).await;
    let proxy = delaying_proxy(sshd.port(), ONE_WAY).await;
    let (slow, slow_connect) = over_ssh(&sshd, proxy, &data).await;

    // Warm the host's page cache the same for all three.
    measure(&local, 1).await;
    let mut runs = Vec::new();
    for (name, reader) in [("local file", &local), ("ssh", &direct), ("ssh +100 ms RTT", &slow)] {
        runs.push((name, measure(reader, rounds).await));
    }
    println!("history of {} tasks, {rounds} rounds each; median / slowest, ms", history_db::TASKS);
    println!("{:<30} {:>18} {:>18} {:>18}", "read", runs[0].0, runs[1].0, runs[2].0);
    for i in 0..runs[0].1.len() {
        let name = runs[0].1[i].0;
        let cell = |r: usize| {
            let times = runs[r].1[i].1.clone();
            format!("{} / {}", ms(median(times.clone())), ms(max(&times)))
        };
        println!("{name:<30} {:>18} {:>18} {:>18}", cell(0), cell(1), cell(2));
    }
    println!("connecting (ssh, hello): {} ms; at +100 ms RTT: {} ms", ms(direct_connect), ms(slow_connect));
    let worst = runs[2].1.iter().map(|(_, t)| max(t)).max().unwrap_or_default();
    println!(
        "slowest read at +100 ms RTT: {} ms = {:.2} round trips (target: at most 2, under 250 ms)",
        ms(worst),
        worst.as_secs_f64() / (2.0 * ONE_WAY.as_secs_f64())
    );
}
