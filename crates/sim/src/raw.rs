//! Answers written on the socket by hand, after hyper has handed the connection back: bodies
//! longer than their `Content-Length`, headers and body one byte at a time.

use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// What to write once the connection is taken over.
#[derive(Debug, Clone)]
pub struct RawReply {
    pub bytes: Bytes,
    /// Pause between single bytes; `None` writes everything at once.
    pub pace: Option<Duration>,
}

/// Where a handler leaves the raw answer for its connection.
#[derive(Debug, Default)]
pub struct RawSlot(Mutex<Option<RawReply>>);

impl RawSlot {
    pub fn put(&self, reply: RawReply) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(reply);
    }

    pub fn take(&self) -> Option<RawReply> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Writes the answer and closes the connection. Stops early when the client goes away or the
/// simulator stops.
pub async fn write(mut stream: TcpStream, reply: RawReply, mut shutdown: watch::Receiver<bool>) {
    let sending = async {
        match reply.pace {
            None => stream.write_all(&reply.bytes).await,
            Some(pace) => {
                for (i, byte) in reply.bytes.iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(pace).await;
                    }
                    stream.write_all(&[*byte]).await?;
                    stream.flush().await?;
                }
                Ok(())
            }
        }
    };
    tokio::select! {
        _ = sending => {}
        _ = shutdown.changed() => return,
    }
    // Close our side, then read what the client still sends until it closes: closing with
    // unread input would reset the connection and could discard the answer in flight.
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 1024];
    let drain = async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
    let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
}
