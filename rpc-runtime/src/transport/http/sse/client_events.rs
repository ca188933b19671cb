//! The client's side of Server-Sent Events: the items of a streaming call
//! read from a `text/event-stream` response, event by event.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use http::HeaderMap;
use http::header;
use hyper::body::{Body, Incoming};
use serde_json::value::RawValue;

use crate::Response;
use crate::client::{ClientError, DecodeError, RawItems, TransportError, TransportErrorKind};

/// Whether the response is an event stream.
pub(in crate::transport::http) fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// The items of the call `id` in the event stream `body`; an event over
/// `limit` bytes ends it with an error.
pub(in crate::transport::http) fn items(body: Incoming, id: u64, limit: usize) -> RawItems {
    Box::pin(EventItems {
        body,
        id,
        limit,
        buffer: Vec::new(),
        data: String::new(),
        ended: false,
    })
}

struct EventItems {
    body: Incoming,
    id: u64,
    limit: usize,
    /// What has arrived of lines not yet complete.
    buffer: Vec<u8>,
    /// The data lines of the event being read, joined.
    data: String,
    ended: bool,
}

impl EventItems {
    /// The next item among the complete lines in the buffer, if one is done.
    fn next_in_buffer(&mut self) -> Option<Result<Box<RawValue>, ClientError>> {
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if self.data.is_empty() {
                    continue;
                }
                let data = std::mem::take(&mut self.data);
                if let Some(item) = self.item(&data) {
                    return Some(item);
                }
                continue;
            }
            // Comments (keep-alives) and the fields other than `data` mean
            // nothing to a JSON-RPC stream.
            let Some(value) = line.strip_prefix("data:") else {
                continue;
            };
            if !self.data.is_empty() {
                self.data.push('\n');
            }
            self.data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
        None
    }

    /// The item one event's data carries: a response to this call (a
    /// notification the server sent along is not an item).
    fn item(&mut self, data: &str) -> Option<Result<Box<RawValue>, ClientError>> {
        let response = match serde_json::from_str::<Response<'_>>(data) {
            Ok(response) => response,
            Err(_) if data.contains("\"method\"") => return None,
            Err(err) => {
                self.ended = true;
                return Some(Err(ClientError::Decode(DecodeError::invalid_response(err))));
            }
        };
        if response.id().and_then(|id| id.as_u64()) != Some(self.id) {
            return None;
        }
        Some(match response.into_result() {
            Ok(result) => Ok(result.to_owned()),
            Err(error) => {
                self.ended = true;
                Err(crate::client::item_error(error))
            }
        })
    }
}

impl Stream for EventItems {
    type Item = Result<Box<RawValue>, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if self.ended {
                return Poll::Ready(None);
            }
            if let Some(item) = self.next_in_buffer() {
                return Poll::Ready(Some(item));
            }
            if self.buffer.len() + self.data.len() > self.limit {
                self.ended = true;
                return Poll::Ready(Some(Err(ClientError::Transport(
                    TransportError::with_source(
                        TransportErrorKind::Refused,
                        std::io::Error::other("an event is over the client's response size limit"),
                    ),
                ))));
            }
            let frame = match Pin::new(&mut self.body).poll_frame(cx) {
                Poll::Ready(frame) => frame,
                Poll::Pending => return Poll::Pending,
            };
            match frame {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        self.buffer.extend_from_slice(data);
                    }
                }
                Some(Err(err)) => {
                    self.ended = true;
                    return Poll::Ready(Some(Err(ClientError::Transport(
                        TransportError::with_source(TransportErrorKind::Closed, err),
                    ))));
                }
                None => {
                    self.ended = true;
                    return Poll::Ready(None);
                }
            }
        }
    }
}
