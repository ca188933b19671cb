//! The server side: the answer to a WebSocket handshake on the HTTP server,
//! and the session of the upgraded connection.

use std::net::SocketAddr;

use http::header::{
    CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, SEC_WEBSOCKET_VERSION, UPGRADE,
};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode, Version};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

use super::socket;
use crate::transport::connection::Setup;
use crate::transport::http::ResponseBody;
use crate::transport::http::{
    Handover, Shared, admits_handshake, method_not_allowed, origin_refused, plain,
};
use crate::{Context, TransportKind};

/// `headers` with every value copied out of the buffer it was parsed from.
///
/// hyper's header values share its connection read buffer; the connection
/// keeps its handshake's headers for its whole life, and with them,
/// otherwise, that whole buffer: memory every idle connection would hold.
fn owned(headers: HeaderMap) -> HeaderMap {
    let mut copy = HeaderMap::with_capacity(headers.len());
    for (name, value) in &headers {
        // The same bytes were a valid value when hyper parsed them.
        let mut fresh = HeaderValue::from_bytes(value.as_bytes()).unwrap_or_else(|_| value.clone());
        fresh.set_sensitive(value.is_sensitive());
        copy.append(name.clone(), fresh);
    }
    copy
}

/// Answers a WebSocket handshake (a `GET` with `Connection: upgrade` and
/// `Upgrade: websocket`): `101 Switching Protocols`, and the upgraded
/// connection is served with `shared.router` under `shared.limits`. Its
/// session is left with `handover` (the server's connection task runs it),
/// or spawned when there is none.
///
/// Refusals: `403` for a browser's handshake from an origin that may not
/// call the server (see [`Cors`](crate::transport::http::Cors)), `400`
/// for a request that is not a valid handshake, `426` with
/// `Sec-WebSocket-Version: 13` for another protocol version, and `405` when
/// the server serving the request cannot hand its connection over (hyper's
/// upgrade extension is missing).
pub(crate) fn upgrade(
    mut request: Request<()>,
    shared: &Shared,
    peer: Option<SocketAddr>,
    handover: Option<&Handover>,
) -> Response<ResponseBody> {
    if !admits_handshake(shared.cors.as_deref(), request.uri(), request.headers()) {
        // Browsers open WebSockets to any origin without asking first:
        // this check is all that keeps other sites' pages out.
        return origin_refused();
    }
    if request.version() != Version::HTTP_11 {
        return plain(
            StatusCode::BAD_REQUEST,
            "A WebSocket handshake needs HTTP/1.1.\n",
        );
    }
    let headers = request.headers();
    if headers
        .get(SEC_WEBSOCKET_VERSION)
        .is_none_or(|version| version != "13")
    {
        let mut response = plain(
            StatusCode::UPGRADE_REQUIRED,
            "Only version 13 of the WebSocket protocol is spoken here.\n",
        );
        response
            .headers_mut()
            .insert(SEC_WEBSOCKET_VERSION, HeaderValue::from_static("13"));
        return response;
    }
    let Some(key) = headers
        .get(SEC_WEBSOCKET_KEY)
        .filter(|key| is_valid_key(key.as_bytes()))
    else {
        return plain(
            StatusCode::BAD_REQUEST,
            "The WebSocket handshake needs a Sec-WebSocket-Key of 16 bytes in base64.\n",
        );
    };
    if request.extensions().get::<OnUpgrade>().is_none() {
        // Served by something that does not hand connections over: refuse
        // as if WebSocket were not spoken here.
        return method_not_allowed();
    }
    let accept = derive_accept_key(key.as_bytes());
    let on_upgrade = hyper::upgrade::on(&mut request);

    let headers = owned(std::mem::take(request.headers_mut()));
    let peer = crate::transport::http::client_addr(&headers, peer, shared.limits.trusted_proxies());
    let mut context = Context::new(TransportKind::WebSocket).with_headers(headers);
    if let Some(peer) = peer {
        context = context.with_remote_addr(peer);
    }
    let presence = handover.map(|handover| handover.presence().clone());
    if let Some(presence) = &presence {
        // Idle from now on for the WebSocket's timeout, not HTTP's.
        presence.set_idle_timeout(shared.limits.idle_wait());
    }
    let shutdown = shared.stopping.clone();
    let setup = Setup {
        router: shared.router.clone(),
        context,
        max_in_flight: shared.limits.in_flight(),
        max_backlog: shared.limits.backlog_size(),
        idle_timeout: Some(shared.limits.idle_wait()),
        write_timeout: Some(shared.limits.write_wait()),
        // The connection's own when the listener admitted it: cancelled
        // also when the listener needs its slot.
        stopping: presence
            .as_ref()
            .map_or_else(|| shutdown.clone(), |presence| presence.stop().clone()),
        // The closing handshake waits for the peer's close frame.
        linger: None,
        subscriptions: crate::transport::connection::Budget::of_server(
            &shared.limits,
            shared.subscriptions.clone(),
        ),
        answer_after_close: None,
        presence,
    };
    let max = shared.limits.message_size();
    let session = async move {
        let upgraded = match on_upgrade.await {
            Ok(upgraded) => upgraded,
            Err(err) => {
                tracing::debug!(?peer, %err, "the WebSocket upgrade failed");
                return;
            }
        };
        match upgraded.downcast::<TokioIo<TcpStream>>() {
            // Our own server's connection: the socket itself, without
            // hyper's layers around every read and write, after whatever
            // hyper read past the handshake.
            Ok(parts) => {
                let io = parts.io.into_inner();
                socket::serve(io, &parts.read_buf, setup, shutdown, max).await;
            }
            // Anyone else's (`HttpService` in axum, say): hyper's `Upgraded`
            // replays whatever it read past the handshake.
            Err(upgraded) => socket::serve(TokioIo::new(upgraded), &[], setup, shutdown, max).await,
        }
    };
    match handover {
        Some(handover) => handover.leave(Box::pin(session)),
        None => drop(tokio::spawn(session)),
    }

    let mut response = Response::new(ResponseBody::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(
        SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).expect("base64 is a valid header value"),
    );
    response
}

/// Whether `key` is 16 bytes in base64, as RFC 6455 requires.
fn is_valid_key(key: &[u8]) -> bool {
    let base64 = |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/');
    key.len() == 24 && key.ends_with(b"==") && key[..22].iter().all(base64)
}

#[cfg(test)]
mod tests {
    use super::is_valid_key;

    #[test]
    fn handshake_keys() {
        assert!(is_valid_key(b"dGhlIHNhbXBsZSBub25jZQ=="));
        assert!(!is_valid_key(b"dGhlIHNhbXBsZSBub25jZQ="));
        assert!(!is_valid_key(b"dGhlIHNhbXBsZSBub25j*Q=="));
        assert!(!is_valid_key(b""));
    }
}
