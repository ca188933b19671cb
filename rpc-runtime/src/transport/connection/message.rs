//! The interface of a message transport: a reader and a writer of whole messages.

use std::future::Future;
use std::io;

use bytes::Bytes;

/// The reading half of a message transport: yields whole messages.
///
/// Implemented by the framings of byte streams and by WebSocket; implement
/// it to run JSON-RPC over any other message channel.
pub trait MessageReader: Send + 'static {
    /// Reads the next message.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Inbound>> + Send;
}

/// What a [`MessageReader`] read.
#[derive(Debug)]
pub enum Inbound {
    /// A whole message.
    Message(Bytes),
    /// A message over the size limit, skipped without being buffered; the
    /// connection goes on.
    TooLarge,
    /// The peer closed its end.
    Closed,
}

/// Messages the connection serialized itself, one after another: each one
/// UTF-8 JSON text by construction (serde_json's output).
#[derive(Clone, Copy, Debug)]
pub struct Serialized<'a> {
    bytes: &'a [u8],
    /// Where each message ends in `bytes`.
    ends: &'a [usize],
}

impl<'a> Serialized<'a> {
    pub(crate) fn new(bytes: &'a [u8], ends: &'a [usize]) -> Self {
        Serialized { bytes, ends }
    }

    /// Each message's bytes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (bytes, ends) = (self.bytes, self.ends);
        let starts = std::iter::once(0).chain(ends.iter().copied());
        starts
            .zip(ends.iter().copied())
            .map(move |(start, end)| &bytes[start..end])
    }

    /// How many messages there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// The writing half of a message transport.
pub trait MessageWriter: Send + 'static {
    /// Queues one message; it goes out at the next [`flush`](MessageWriter::flush) at the latest.
    fn write_message(&mut self, message: &str) -> impl Future<Output = io::Result<()>> + Send;

    /// Queues messages that the connection serialized itself, as bytes
    /// (the connection sends subscriptions' items this way, many at once).
    /// The default checks each is UTF-8 and calls
    /// [`write_message`](MessageWriter::write_message); a transport that
    /// frames bytes can take them as they are.
    fn write_serialized(
        &mut self,
        messages: Serialized<'_>,
    ) -> impl Future<Output = io::Result<()>> + Send {
        async move {
            for message in messages.iter() {
                match std::str::from_utf8(message) {
                    Ok(text) => self.write_message(text).await?,
                    Err(err) => return Err(io::Error::new(io::ErrorKind::InvalidData, err)),
                }
            }
            Ok(())
        }
    }

    /// Sends everything queued.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;

    /// Ends the connection cleanly (a WebSocket close frame, a stream shutdown).
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transport that takes text only, as one a user writes.
    #[derive(Default)]
    struct Texts(Vec<String>);

    impl MessageWriter for Texts {
        async fn write_message(&mut self, message: &str) -> io::Result<()> {
            self.0.push(message.to_owned());
            Ok(())
        }

        async fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }

        async fn close(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn serialized_messages_reach_a_text_transport_one_by_one() {
        let bytes = br#"{"a":1}{"b":"\u00e9"}[]"#;
        let messages = Serialized::new(bytes, &[7, 21, 23]);
        assert_eq!(messages.len(), 3);
        let mut texts = Texts::default();
        texts.write_serialized(messages).await.unwrap();
        assert_eq!(texts.0, [r#"{"a":1}"#, r#"{"b":"\u00e9"}"#, "[]"]);

        let broken = Serialized::new(&[b'"', 0xff, b'"'], &[3]);
        let err = texts.write_serialized(broken).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(Serialized::new(b"", &[]).is_empty());
    }
}
