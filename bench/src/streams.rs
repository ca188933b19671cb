//! The streaming benchmark's API: `count(n)` answers with the numbers
//! `0..n`, one item each, as fast as the client takes them. Served by
//! typed-rpc (Server-Sent Events over HTTP and a subscription over
//! WebSocket), by jsonrpsee 0.26 (its WebSocket subscription) and by the
//! floors of both wire forms ([`floor`]).
//!
//! Over a WebSocket every implementation answers the call with a
//! subscription id, then sends `{"jsonrpc":"2.0","method":"count_item",
//! "params":{"subscription":ID,"result":I}}` for each `I`; over SSE each
//! item is the event `data: {"jsonrpc":"2.0","result":I,"id":ID}`.

/// The streaming method.
pub const METHOD: &str = "count";
/// The notification carrying each item of a subscription.
pub const NOTIFICATION: &str = "count_item";
/// The method that ends a subscription.
pub const UNSUBSCRIBE: &str = "count_unsubscribe";

/// typed-rpc.
pub mod ours {
    use futures_util::stream::{self, Stream, StreamExt};
    use typed_rpc::{Router, RpcResult, rpc};

    /// The streaming benchmark API.
    #[rpc]
    pub trait Feed {
        /// The numbers `0..n`.
        #[method(
            name = "count",
            stream(notification = "count_item", unsubscribe = "count_unsubscribe")
        )]
        async fn count(
            &self,
            n: u64,
        ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;
    }

    /// The server.
    pub struct Server;

    impl Feed for Server {
        async fn count(
            &self,
            n: u64,
        ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
            Ok(stream::iter(0..n).map(Ok))
        }
    }

    /// The router serving [`Server`].
    pub fn router() -> Router {
        Router::new(Server.into_service())
    }
}

/// jsonrpsee 0.26, written the way its documentation shows, with the
/// message built by `SubscriptionMessage::new`, which its documentation
/// calls the cheaper way (one allocation per item).
pub mod jsonrpsee_api {
    use jsonrpsee::core::{SubscriptionResult, async_trait};
    use jsonrpsee::proc_macros::rpc;
    use jsonrpsee::{PendingSubscriptionSink, RpcModule, SubscriptionMessage};

    /// The streaming benchmark API.
    #[rpc(server)]
    pub trait Feed {
        /// The numbers `0..n`.
        #[subscription(name = "count" => "count_item", unsubscribe = "count_unsubscribe", item = u64)]
        async fn count(&self, n: u64) -> SubscriptionResult;
    }

    /// The server.
    pub struct Server;

    #[async_trait]
    impl FeedServer for Server {
        async fn count(&self, pending: PendingSubscriptionSink, n: u64) -> SubscriptionResult {
            let sink = pending.accept().await?;
            let (method, subscription) = (sink.method_name().to_owned(), sink.subscription_id());
            for i in 0..n {
                let message = SubscriptionMessage::new(&method, subscription.clone(), &i)?;
                sink.send(message).await?;
            }
            Ok(())
        }
    }

    /// The module serving [`Server`].
    pub fn module() -> RpcModule<()> {
        let mut module = RpcModule::new(());
        module.merge(Server.into_rpc()).expect("no duplicate names");
        module
    }
}

/// The floors: the least work any correct server must do to send the
/// stream, as WebSocket notifications or as Server-Sent Events. Per item,
/// serde_json writes the number between a constant head and tail straight
/// into the output buffer (behind a hand-written frame header over
/// WebSocket); the buffer goes to the socket whenever it holds
/// [`floor::FLUSH_AT`] bytes (as one chunk of a chunked body over SSE),
/// and at the end.
pub mod floor {
    use serde::Deserialize;
    use serde_json::value::RawValue;

    /// Bytes gathered before a write to the socket: one system call per
    /// about 700 notifications of this size.
    pub const FLUSH_AT: usize = 64 * 1024;

    /// A `count` call as the floor reads it.
    #[derive(Deserialize)]
    struct Call<'a> {
        jsonrpc: &'a str,
        method: &'a str,
        #[serde(borrow)]
        id: &'a RawValue,
        params: (u64,),
    }

    /// What the floor answers a message with.
    pub enum Answer {
        /// A `count(n)` call: its reply (the subscription id) and `n`.
        Subscribed { reply: String, n: u64 },
        /// Anything else: the error reply.
        Refused(String),
    }

    /// The subscription id: the floor serves one stream per connection.
    const SUBSCRIPTION: &str = "\"0x1\"";

    /// The reply to anything but a `count` call.
    pub const REFUSED: &str =
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;

    /// A `count` call's id, as JSON text, and `n`; `None` for anything else.
    pub fn count_call(text: &[u8]) -> Option<(String, u64)> {
        match serde_json::from_slice::<Call>(text) {
            Ok(call) if call.jsonrpc == "2.0" && call.method == super::METHOD => {
                Some((call.id.get().to_owned(), call.params.0))
            }
            _ => None,
        }
    }

    /// Reads a call; only `count` with its one positional param is served.
    pub fn answer(text: &str) -> Answer {
        match count_call(text.as_bytes()) {
            Some((id, n)) => Answer::Subscribed {
                reply: format!(r#"{{"jsonrpc":"2.0","result":{SUBSCRIPTION},"id":{id}}}"#),
                n,
            },
            None => Answer::Refused(REFUSED.to_owned()),
        }
    }

    /// The text before each item of the subscription.
    pub fn head() -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"{}","params":{{"subscription":{SUBSCRIPTION},"result":"#,
            super::NOTIFICATION
        )
    }

    /// The text after each item.
    pub const TAIL: &[u8] = b"}}";

    /// Appends the notification of `item` to `out` as one unmasked text
    /// frame; `scratch` is where the payload is written first (kept from
    /// item to item, so it allocates once), since the frame header holds
    /// the payload's length.
    pub fn push_notification(out: &mut Vec<u8>, scratch: &mut Vec<u8>, head: &str, item: u64) {
        scratch.clear();
        scratch.extend_from_slice(head.as_bytes());
        serde_json::to_writer(&mut *scratch, &item).expect("a number serializes");
        scratch.extend_from_slice(TAIL);
        push_text_frame(out, scratch);
    }

    /// Appends `payload` to `out` as one unmasked, final text frame.
    pub fn push_text_frame(out: &mut Vec<u8>, payload: &[u8]) {
        out.push(0x81);
        match payload.len() {
            len @ 0..=125 => out.push(len as u8),
            len @ 126..=0xffff => {
                out.push(126);
                out.extend_from_slice(&(len as u16).to_be_bytes());
            }
            len => {
                out.push(127);
                out.extend_from_slice(&(len as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(payload);
    }

    /// The head of the floor's Server-Sent Events response: a chunked
    /// body, as any server keeping its connection open must send.
    pub const SSE_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
        cache-control: no-store\r\ntransfer-encoding: chunked\r\n\r\n";

    /// The text around each item's event, for the call `id`: a whole
    /// response, `data: {"jsonrpc":"2.0","result":` and `,"id":ID}` and
    /// the blank line that ends an event.
    pub fn event_frame(id: &str) -> (String, String) {
        (
            r#"data: {"jsonrpc":"2.0","result":"#.to_owned(),
            format!(",\"id\":{id}}}\n\n"),
        )
    }

    /// Appends the event of `item` to `out`: serde_json writes the number
    /// straight into it, between `head` and `tail`.
    pub fn push_event(out: &mut Vec<u8>, (head, tail): &(String, String), item: u64) {
        out.extend_from_slice(head.as_bytes());
        serde_json::to_writer(&mut *out, &item).expect("a number serializes");
        out.extend_from_slice(tail.as_bytes());
    }

    /// Room left at the start of a chunk's buffer for its size line, so
    /// that the chunk is written in one piece and never moved.
    pub const CHUNK_SIZE_LINE: usize = 10;

    /// A buffer for one chunk, its size line still to be written.
    pub fn new_chunk(capacity: usize) -> Vec<u8> {
        let mut chunk = Vec::with_capacity(capacity);
        chunk.resize(CHUNK_SIZE_LINE, 0);
        chunk
    }

    /// Seals `chunk` (from [`new_chunk`], data appended) as one chunk of a
    /// chunked body: its size, as eight hex digits (leading zeros are
    /// allowed), in the room left for it, and the line break after it.
    pub fn seal_chunk(chunk: &mut Vec<u8>) {
        let size = chunk.len() - CHUNK_SIZE_LINE;
        let line = format!("{size:08x}\r\n");
        chunk[..CHUNK_SIZE_LINE].copy_from_slice(line.as_bytes());
        chunk.extend_from_slice(b"\r\n");
    }

    /// The chunk that ends a chunked body.
    pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn an_event_is_a_whole_response_in_a_sized_chunk() {
            let frame = event_frame("7");
            let mut chunk = new_chunk(64);
            push_event(&mut chunk, &frame, 42);
            seal_chunk(&mut chunk);
            let event = "data: {\"jsonrpc\":\"2.0\",\"result\":42,\"id\":7}\n\n";
            assert_eq!(
                chunk,
                format!("{:08x}\r\n{event}\r\n", event.len()).into_bytes()
            );
        }

        #[test]
        fn a_notification_is_one_text_frame_of_the_item() {
            let mut out = b"before".to_vec();
            push_notification(&mut out, &mut Vec::new(), &head(), 42);
            let payload = r#"{"jsonrpc":"2.0","method":"count_item","params":{"subscription":"0x1","result":42}}"#;
            assert_eq!(out[6], 0x81);
            assert_eq!(usize::from(out[7]), payload.len());
            assert_eq!(&out[8..], payload.as_bytes());
        }

        #[test]
        fn frame_lengths_take_7_16_or_64_bits() {
            for (len, header) in [(125, 2), (126, 4), (0xffff, 4), (0x10000, 10)] {
                let mut out = Vec::new();
                push_text_frame(&mut out, &vec![b'x'; len]);
                assert_eq!(out.len(), header + len, "payload of {len}");
                assert_eq!(out[0], 0x81);
            }
            let mut out = Vec::new();
            push_text_frame(&mut out, &[b'x'; 300]);
            assert_eq!(&out[..4], &[0x81, 126, 1, 44]);
        }

        #[test]
        fn only_count_is_served() {
            let Answer::Subscribed { reply, n } =
                answer(r#"{"jsonrpc":"2.0","method":"count","params":[5],"id":"a"}"#)
            else {
                panic!("count refused");
            };
            assert_eq!(n, 5);
            assert_eq!(reply, r#"{"jsonrpc":"2.0","result":"0x1","id":"a"}"#);
            assert!(matches!(
                answer(r#"{"jsonrpc":"2.0","method":"add","params":[5],"id":1}"#),
                Answer::Refused(_)
            ));
            assert_eq!(
                count_call(br#"{"jsonrpc":"2.0","method":"count","params":[3],"id":"x"}"#),
                Some((r#""x""#.to_owned(), 3))
            );
        }
    }
}
