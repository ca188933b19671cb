//! A newline-delimited peer written by hand, to see exactly what is sent.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::connect::PATIENCE;

pub struct LinePeer {
    read: BufReader<OwnedReadHalf>,
    write: OwnedWriteHalf,
}

impl LinePeer {
    pub async fn connect(addr: SocketAddr) -> Self {
        let (read, write) = TcpStream::connect(addr).await.unwrap().into_split();
        LinePeer {
            read: BufReader::new(read),
            write,
        }
    }

    pub async fn send(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next message, which must come in time.
    pub async fn next(&mut self) -> serde_json::Value {
        let mut line = String::new();
        tokio::time::timeout(PATIENCE, self.read.read_line(&mut line))
            .await
            .expect("a message comes")
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Whether nothing arrives for `quiet`.
    pub async fn silent_for(&mut self, quiet: Duration) -> bool {
        let mut line = String::new();
        tokio::time::timeout(quiet, self.read.read_line(&mut line))
            .await
            .is_err()
    }
}
