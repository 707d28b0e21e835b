//! `reel engine attach --stdio`: the host's end of a link over SSH. It reads the client's
//! hello, refuses a client of another protocol by naming both versions, makes sure this data
//! folder's engine runs (starting it as any local reel would), then passes bytes both ways
//! between standard input and output and the engine's socket until either side closes.

use std::path::Path;

use std::io::{Read, Write};

use super::protocol::{self, FromEngine, MAX_LINE, PROTOCOL};
use super::spawn::{Launch, connect_or_start};
use super::{Served, ServiceError};

/// What the client said it is, read as far as any reel's hello can be.
fn client_hello(line: &str) -> Option<(u64, String)> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    (value.get("type")?.as_str()? == "hello").then_some(())?;
    let protocol = value.get("protocol")?.as_u64()?;
    let version = value.get("version").and_then(|v| v.as_str()).unwrap_or("unknown").to_string();
    Some((protocol, version))
}

/// Why a client of another protocol is turned away, in words for the person at the client.
fn mismatch(protocol: u64, version: &str) -> String {
    format!(
        "the host's reel is {} (protocol {PROTOCOL}) and yours is {version} (protocol {protocol}); \
         install the same version of reel on both machines",
        env!("CARGO_PKG_VERSION")
    )
}

/// Bridges standard input and output to the engine of the data folder whose socket is
/// `socket`, started with `launch` if needed.
#[cfg(unix)]
pub async fn bridge(socket: &Path, launch: &Launch, serves: &Served) -> Result<(), ServiceError> {
    use std::io::BufRead as _;
    let io = |source| ServiceError::Io { path: socket.to_path_buf(), source };
    // Plain threads and blocking reads: tokio's standard output waited here for standard input
    // to end before it wrote, which would hold every answer back.
    let hello = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().lock().take(MAX_LINE as u64).read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(|e| io(std::io::Error::other(e)))?
    .map_err(io)?;
    if hello.is_empty() {
        return Ok(());
    }
    let (protocol, version) =
        client_hello(&hello).ok_or_else(|| ServiceError::Protocol("the client's first line is not a hello".into()))?;
    if protocol != u64::from(PROTOCOL) {
        let refused = FromEngine::Refused { reason: mismatch(protocol, &version), replaceable: false };
        let line = protocol::encode(&refused).map_err(|e| ServiceError::Protocol(e.to_string()))?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}").and_then(|()| out.flush()).map_err(io)?;
        return Ok(());
    }
    // An engine of this host's version serving what this host is configured for: started,
    // or an idle one of another version replaced, as for any local reel.
    let (engine, _events) = connect_or_start(socket, launch, serves).await?;
    engine.detach().await;
    let mut to_engine = std::os::unix::net::UnixStream::connect(socket).map_err(io)?;
    let mut from_engine = to_engine.try_clone().map_err(io)?;
    to_engine.write_all(hello.as_bytes()).map_err(io)?;
    let (done, mut ended) = tokio::sync::mpsc::unbounded_channel();
    let up_done = done.clone();
    std::thread::spawn(move || {
        let pumped = pump(&mut std::io::stdin().lock(), &mut to_engine);
        let _ = to_engine.shutdown(std::net::Shutdown::Write);
        let _ = up_done.send(pumped);
    });
    std::thread::spawn(move || {
        let _ = done.send(pump(&mut from_engine, &mut std::io::stdout().lock()));
    });
    // Either end closing ends the link: the client's ssh went away, or the engine stopped.
    match ended.recv().await {
        Some(r) => r.map_err(io),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
pub async fn bridge(_: &Path, _: &Launch, _: &Served) -> Result<(), ServiceError> {
    Err(ServiceError::Unsupported)
}

/// Copies until the reader ends, flushing after every read: a message must leave at once,
/// not when a buffer fills.
fn pump(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_is_read_from_any_reel_and_a_mismatch_names_both_versions() {
        let ours = protocol::encode(&protocol::ToEngine::Hello { protocol: PROTOCOL, version: "9.9.9".into() })
            .expect("encodes");
        assert_eq!(client_hello(&ours), Some((u64::from(PROTOCOL), "9.9.9".into())));
        assert_eq!(client_hello(r#"{"type":"hello","protocol":2}"#), Some((2, "unknown".into())));
        assert_eq!(client_hello(r#"{"type":"request","seq":1}"#), None);
        assert_eq!(client_hello("SSH-2.0-OpenSSH"), None);
        let said = mismatch(2, "0.0.1");
        assert!(said.contains(env!("CARGO_PKG_VERSION")) && said.contains("0.0.1"), "{said}");
        assert!(said.contains("same version"), "{said}");
    }
}
