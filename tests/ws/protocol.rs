//! The WebSocket server's conformance to RFC 6455, probed frame by frame:
//! masking, lengths, fragmentation, control frames, UTF-8, the size limit and
//! the closing handshake, each asserting what the server answers (the close
//! code it sends, or the JSON-RPC reply).
//!
//! The frames are written by hand over a plain `TcpStream`, and the server's
//! frames read by hand, with no WebSocket library: these tests pin the
//! server's behaviour independently of the implementation that produces it,
//! so that it can be replaced. `tests/ws/server.rs` covers the transport itself
//! (and already: an unmasked client frame, text that is not UTF-8 in one
//! frame, oversized messages, JSON in binary frames).

use crate::support;
use crate::support::raw::{
    FIN, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT, RSV1, RSV2, RSV3, WS_MASK, ws_frame,
    ws_header,
};
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typed_rpc::transport::{Limits, Server, ServerHandle};

/// How long anything in these tests may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(5);

/// Answered with `"result": 19`.
const SUBTRACT: &str = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;

// Close codes (section 7.4.1).
const NORMAL: u16 = 1000;
const PROTOCOL_ERROR: u16 = 1002;
const INVALID_DATA: u16 = 1007;
const TOO_BIG: u16 = 1009;

async fn serve(limits: Limits) -> (ServerHandle, SocketAddr) {
    let (router, _) = support::calculator();
    let handle = Server::new(router)
        .limits(limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

// ---------------------------------------------------------------------------
// The handshake, written by hand.

/// A TCP connection after a successful handshake.
async fn handshake(addr: SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(support::raw::WS_HANDSHAKE).await.unwrap();
    let head = support::raw::read_head(&mut tcp).await;
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    tcp
}

// ---------------------------------------------------------------------------
// Client frames: always masked (section 5.3).

/// A whole client frame, masked with RFC 6455's example key.
fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
    ws_frame(first, payload, WS_MASK)
}

/// One text message sent as three fragments holding `parts`.
fn in_three_frames(parts: [&[u8]; 3]) -> Vec<u8> {
    let [first, second, third] = parts;
    [
        frame(OP_TEXT, first),
        frame(OP_CONTINUATION, second),
        frame(FIN | OP_CONTINUATION, third),
    ]
    .concat()
}

/// A close frame's payload: the code, then the reason.
fn close_payload(code: u16, reason: &[u8]) -> Vec<u8> {
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(reason);
    payload
}

async fn send(tcp: &mut TcpStream, bytes: &[u8]) {
    tcp.write_all(bytes).await.unwrap();
}

// ---------------------------------------------------------------------------
// Server frames: never masked.

#[derive(Debug)]
struct ServerFrame {
    fin: bool,
    opcode: u8,
    payload: Vec<u8>,
}

impl ServerFrame {
    /// The code of a close frame, `None` when its payload is empty.
    fn close_code(&self) -> Option<u16> {
        assert_eq!(
            self.opcode, OP_CLOSE,
            "expected a close frame, got {self:?}"
        );
        assert_ne!(self.payload.len(), 1, "a close payload is 0 or 2+ bytes");
        (self.payload.len() >= 2).then(|| u16::from_be_bytes([self.payload[0], self.payload[1]]))
    }

    /// The reason of a close frame.
    fn close_reason(&self) -> &[u8] {
        assert_eq!(
            self.opcode, OP_CLOSE,
            "expected a close frame, got {self:?}"
        );
        self.payload.get(2..).unwrap_or_default()
    }
}

/// The server's next frame, after checking its header is one a server may
/// send: no RSV bits, no mask.
async fn read_frame(tcp: &mut TcpStream) -> ServerFrame {
    tokio::time::timeout(PATIENCE, async {
        let mut two = [0; 2];
        tcp.read_exact(&mut two).await.expect("a frame's header");
        assert_eq!(
            two[0] & (RSV1 | RSV2 | RSV3),
            0,
            "RSV bits: {:#04x}",
            two[0]
        );
        assert_eq!(two[1] & 0x80, 0, "a server's frame is not masked");
        let len = match two[1] & 0x7f {
            126 => u64::from(tcp.read_u16().await.unwrap()),
            127 => tcp.read_u64().await.unwrap(),
            len => u64::from(len),
        };
        let mut payload = vec![0; usize::try_from(len).unwrap()];
        tcp.read_exact(&mut payload)
            .await
            .expect("a frame's payload");
        ServerFrame {
            fin: two[0] & FIN != 0,
            opcode: two[0] & 0x0f,
            payload,
        }
    })
    .await
    .expect("the server sends a frame in time")
}

/// The next frame, a whole text message holding JSON.
async fn reply(tcp: &mut TcpStream) -> Value {
    let frame = read_frame(tcp).await;
    assert!(
        frame.fin && frame.opcode == OP_TEXT,
        "expected a text frame, got {frame:?}"
    );
    serde_json::from_slice(&frame.payload).unwrap()
}

/// Sends `bytes`, the frames of one `subtract(42, 23)` request, and checks
/// that the server answered it.
async fn assert_subtracts(tcp: &mut TcpStream, bytes: &[u8]) {
    send(tcp, bytes).await;
    assert_eq!(reply(tcp).await["result"], 19);
}

/// The code of the close frame the server sends next.
async fn close_code(tcp: &mut TcpStream) -> Option<u16> {
    read_frame(tcp).await.close_code()
}

/// Sends `bytes` on a fresh connection and returns the close code the server
/// answers with. After a protocol error the server reads until its peer is
/// gone: the connection is dropped.
async fn close_code_for(addr: SocketAddr, bytes: &[u8]) -> Option<u16> {
    let mut tcp = handshake(addr).await;
    send(&mut tcp, bytes).await;
    close_code(&mut tcp).await
}

/// Checks that the server has ended the connection: the next read sees the end.
async fn assert_ended(tcp: &mut TcpStream) {
    let mut byte = [0; 1];
    let read = tokio::time::timeout(PATIENCE, tcp.read(&mut byte))
        .await
        .expect("the server ends the connection in time");
    assert_eq!(read.unwrap(), 0, "nothing after the close frame");
}

// ---------------------------------------------------------------------------
// Data frames that are served.

#[tokio::test]
async fn a_masked_text_request_is_answered() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    assert_subtracts(&mut tcp, &frame(FIN | OP_TEXT, SUBTRACT.as_bytes())).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_request_with_a_16_bit_length_is_answered() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    let padded = format!("{SUBTRACT}{}", " ".repeat(200));
    assert!((126..=0xffff).contains(&padded.len()));
    let request = frame(FIN | OP_TEXT, padded.as_bytes());
    assert_eq!(request[1], 0x80 | 126, "a 16-bit length");
    assert_subtracts(&mut tcp, &request).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_frame_split_across_tcp_writes_is_answered() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    let request = frame(FIN | OP_TEXT, SUBTRACT.as_bytes());
    // Within the header, within the masking key, within the payload.
    for at in [1, 2, 4, 10, request.len() - 1] {
        send(&mut tcp, &request[..at]).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        send(&mut tcp, &request[at..]).await;
        assert_eq!(reply(&mut tcp).await["result"], 19, "split at {at}");
    }
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_fragmented_text_message_is_served() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    let (first, rest) = SUBTRACT.as_bytes().split_at(10);
    let (second, third) = rest.split_at(20);
    assert_subtracts(&mut tcp, &in_three_frames([first, second, third])).await;

    // Empty fragments count for nothing.
    let message = in_three_frames([b"", SUBTRACT.as_bytes(), b""]);
    assert_subtracts(&mut tcp, &message).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_ping_between_fragments_is_answered_and_the_message_still_served() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    let (first, rest) = SUBTRACT.as_bytes().split_at(10);
    let (second, third) = rest.split_at(20);
    send(
        &mut tcp,
        &[
            frame(OP_TEXT, first),
            frame(OP_CONTINUATION, second),
            frame(FIN | OP_PING, b"between"),
        ]
        .concat(),
    )
    .await;
    // The pong comes while the message is still unfinished.
    let pong = read_frame(&mut tcp).await;
    assert!(
        pong.fin && pong.opcode == OP_PONG && pong.payload == b"between",
        "expected the ping's pong, got {pong:?}"
    );
    assert_subtracts(&mut tcp, &frame(FIN | OP_CONTINUATION, third)).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn pings_up_to_125_bytes_are_answered_and_unsolicited_pongs_ignored() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    for payload in [&b""[..], &[b'p'; 125]] {
        send(&mut tcp, &frame(FIN | OP_PING, payload)).await;
        let pong = read_frame(&mut tcp).await;
        assert!(
            pong.fin && pong.opcode == OP_PONG && pong.payload == payload,
            "expected a pong of {} bytes, got {pong:?}",
            payload.len()
        );
    }
    // A pong nobody asked for is allowed (section 5.5.3) and not answered.
    send(&mut tcp, &frame(FIN | OP_PONG, b"heartbeat")).await;
    assert_subtracts(&mut tcp, &frame(FIN | OP_TEXT, SUBTRACT.as_bytes())).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// Protocol errors: 1002.

#[tokio::test]
async fn nonzero_reserved_bits_close_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    // No extension was negotiated: each RSV bit is an error, on a data
    // frame as on a control frame.
    for (name, first) in [
        ("RSV1", FIN | RSV1 | OP_TEXT),
        ("RSV2", FIN | RSV2 | OP_TEXT),
        ("RSV3", FIN | RSV3 | OP_TEXT),
        ("RSV1 on a ping", FIN | RSV1 | OP_PING),
    ] {
        let code = close_code_for(addr, &frame(first, SUBTRACT.as_bytes())).await;
        assert_eq!(code, Some(PROTOCOL_ERROR), "{name}");
    }
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn reserved_opcodes_close_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    // 0x3-0x7 are reserved data opcodes, 0xB-0xF reserved control opcodes.
    for opcode in [0x3, 0x7, 0xB, 0xF] {
        let code = close_code_for(addr, &frame(FIN | opcode, b"")).await;
        assert_eq!(code, Some(PROTOCOL_ERROR), "opcode {opcode:#x}");
    }
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_ping_over_125_bytes_closes_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    let code = close_code_for(addr, &frame(FIN | OP_PING, &[b'p'; 126])).await;
    assert_eq!(code, Some(PROTOCOL_ERROR));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_fragmented_ping_closes_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    let code = close_code_for(addr, &frame(OP_PING, b"no FIN")).await;
    assert_eq!(code, Some(PROTOCOL_ERROR));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_continuation_with_no_message_started_closes_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    for (name, first) in [
        ("final", FIN | OP_CONTINUATION),
        ("not final", OP_CONTINUATION),
    ] {
        let code = close_code_for(addr, &frame(first, SUBTRACT.as_bytes())).await;
        assert_eq!(code, Some(PROTOCOL_ERROR), "{name}");
    }
    // Nor after a message has ended.
    let mut tcp = handshake(addr).await;
    assert_subtracts(&mut tcp, &frame(FIN | OP_TEXT, SUBTRACT.as_bytes())).await;
    send(&mut tcp, &frame(FIN | OP_CONTINUATION, b" ")).await;
    assert_eq!(close_code(&mut tcp).await, Some(PROTOCOL_ERROR));
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_new_text_frame_inside_a_fragmented_message_closes_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    let bytes = [
        frame(OP_TEXT, b"[1,"),
        frame(FIN | OP_TEXT, SUBTRACT.as_bytes()),
    ]
    .concat();
    assert_eq!(close_code_for(addr, &bytes).await, Some(PROTOCOL_ERROR));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_close_frame_with_a_1_byte_payload_closes_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    let code = close_code_for(addr, &frame(FIN | OP_CLOSE, &[0x03])).await;
    assert_eq!(code, Some(PROTOCOL_ERROR));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn close_frames_with_invalid_codes_are_answered_with_1002() {
    let (handle, addr) = serve(Limits::default()).await;
    // Section 7.4: never sent (1005, 1006, 1015), reserved (1004, 1016-2999),
    // or undefined (below 1000, from 5000).
    for code in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
        let answer = close_code_for(addr, &frame(FIN | OP_CLOSE, &close_payload(code, b""))).await;
        assert_eq!(answer, Some(PROTOCOL_ERROR), "close code {code}");
    }
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// UTF-8: 1007.

/// `"é"` (2 bytes) and `"€"` (3 bytes) in a request whose result is 19.
const SUBTRACT_ACCENTED: &str =
    r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"é€"}"#;

#[tokio::test]
async fn characters_split_across_fragments_are_served() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    let bytes = SUBTRACT_ACCENTED.as_bytes();
    let e_acute = SUBTRACT_ACCENTED.find('é').unwrap();
    let euro = SUBTRACT_ACCENTED.find('€').unwrap();
    // Inside `é` after its first byte, inside `€` after its second.
    let message = [
        frame(OP_TEXT, &bytes[..e_acute + 1]),
        frame(OP_CONTINUATION, &bytes[e_acute + 1..euro + 2]),
        frame(FIN | OP_CONTINUATION, &bytes[euro + 2..]),
    ]
    .concat();
    send(&mut tcp, &message).await;
    let reply = reply(&mut tcp).await;
    assert_eq!((&reply["result"], &reply["id"]), (&19.into(), &"é€".into()));
    drop(tcp);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_message_ending_in_a_truncated_character_closes_with_1007() {
    let (handle, addr) = serve(Limits::default()).await;
    // Each fragment could begin valid text; the last one leaves `€` unfinished.
    let euro = "€".as_bytes();
    let bytes = [
        frame(OP_TEXT, b"\"abc"),
        frame(OP_CONTINUATION, &euro[..1]),
        frame(FIN | OP_CONTINUATION, &euro[1..2]),
    ]
    .concat();
    assert_eq!(close_code_for(addr, &bytes).await, Some(INVALID_DATA));
    // In one frame too.
    let bytes = frame(FIN | OP_TEXT, &[b'"', euro[0], euro[1]]);
    assert_eq!(close_code_for(addr, &bytes).await, Some(INVALID_DATA));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn invalid_utf8_in_a_first_fragment_closes_with_1007_before_the_message_ends() {
    let (handle, addr) = serve(Limits::default()).await;
    // 0xff is never valid: no need to wait for the rest of the message.
    let code = close_code_for(addr, &frame(OP_TEXT, &[b'"', 0xff])).await;
    assert_eq!(code, Some(INVALID_DATA));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_close_reason_that_is_not_utf8_closes_with_1007() {
    let (handle, addr) = serve(Limits::default()).await;
    let payload = close_payload(NORMAL, &[b'b', 0xff, b'e']);
    let code = close_code_for(addr, &frame(FIN | OP_CLOSE, &payload)).await;
    assert_eq!(code, Some(INVALID_DATA));
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// The size limit.

#[tokio::test]
async fn a_frame_declaring_2_pow_40_bytes_is_refused_with_1009_on_its_header() {
    let limit = 1024;
    let (handle, addr) = serve(Limits::default().max_message_size(limit)).await;
    // The header only: the close frame comes without a byte of the payload.
    let header = ws_header(FIN | OP_TEXT, 1 << 40, WS_MASK);
    assert_eq!(header[1], 0x80 | 127, "a 64-bit length");
    assert_eq!(close_code_for(addr, &header).await, Some(TOO_BIG));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_message_exactly_at_the_limit_in_fragments_is_served() {
    let limit = 1024;
    let (handle, addr) = serve(Limits::default().max_message_size(limit)).await;
    let mut tcp = handshake(addr).await;
    let fits = format!("{SUBTRACT}{}", " ".repeat(limit - SUBTRACT.len()));
    let (first, rest) = fits.as_bytes().split_at(400);
    let (second, third) = rest.split_at(400);
    assert_subtracts(&mut tcp, &in_three_frames([first, second, third])).await;
    drop(tcp);
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// The closing handshake.

#[tokio::test]
async fn a_close_with_1000_and_a_reason_is_echoed_and_the_connection_ends() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    assert_subtracts(&mut tcp, &frame(FIN | OP_TEXT, SUBTRACT.as_bytes())).await;
    send(
        &mut tcp,
        &frame(FIN | OP_CLOSE, &close_payload(NORMAL, b"bye")),
    )
    .await;
    let echo = read_frame(&mut tcp).await;
    assert!(echo.fin, "{echo:?}");
    assert_eq!(echo.close_code(), Some(NORMAL));
    assert_eq!(echo.close_reason(), b"bye");
    assert_ended(&mut tcp).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn an_empty_close_is_answered_with_an_empty_close_or_1000() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut tcp = handshake(addr).await;
    send(&mut tcp, &frame(FIN | OP_CLOSE, b"")).await;
    // Section 5.5.1: the endpoint "typically echos the status code it
    // received"; with none received, an empty close or 1000 are both right.
    // (The current server sends an empty close.)
    let answer = close_code(&mut tcp).await;
    assert!(matches!(answer, None | Some(NORMAL)), "{answer:?}");
    assert_ended(&mut tcp).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn application_close_codes_are_echoed() {
    let (handle, addr) = serve(Limits::default()).await;
    // 3000-3999 are registered with IANA, 4000-4999 private: both valid.
    for code in [3000, 3999, 4000, 4999] {
        let mut tcp = handshake(addr).await;
        send(
            &mut tcp,
            &frame(FIN | OP_CLOSE, &close_payload(code, b"app")),
        )
        .await;
        let echo = read_frame(&mut tcp).await;
        assert_eq!(echo.close_code(), Some(code));
        assert_eq!(echo.close_reason(), b"app", "close code {code}");
        assert_ended(&mut tcp).await;
    }
    assert!(handle.shutdown().await);
}
