//! The server side: the answer to a WebSocket handshake on the HTTP server
//! (`handshake.rs`), and the upgraded connection on our own framing
//! (`socket.rs`).

mod handshake;
mod socket;

pub(crate) use handshake::upgrade;
