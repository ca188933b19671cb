//! The body of the server's responses.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

use crate::transport::http::sse::EventBody;

/// The body of a response of the HTTP server: the reply text in one piece,
/// nothing, or a stream of Server-Sent Events.
///
/// It implements [`http_body::Body`](Body) with `Bytes` data and no error,
/// so it fits hyper, axum (as an `IntoResponse`) and tower middleware.
///
/// ```
/// use hyper::body::Body;
/// use typed_rpc::transport::http::ResponseBody;
///
/// let body = ResponseBody::from(String::from("{}"));
/// assert_eq!(body.size_hint().exact(), Some(2));
/// assert!(ResponseBody::empty().is_end_stream());
/// ```
#[derive(Default)]
pub struct ResponseBody {
    data: Option<Bytes>,
    /// Boxed: a plain reply, the common case, stays two words.
    events: Option<Box<EventBody>>,
}

impl ResponseBody {
    /// A body with nothing in it.
    pub fn empty() -> Self {
        ResponseBody {
            data: None,
            events: None,
        }
    }

    /// A body of Server-Sent Events.
    pub(crate) fn events(events: EventBody) -> Self {
        ResponseBody {
            data: None,
            events: Some(Box::new(events)),
        }
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseBody")
            .field("data", &self.data)
            .field("events", &self.events.is_some())
            .finish()
    }
}

impl From<Bytes> for ResponseBody {
    fn from(data: Bytes) -> Self {
        ResponseBody {
            data: (!data.is_empty()).then_some(data),
            events: None,
        }
    }
}

impl From<String> for ResponseBody {
    /// Takes the string's buffer as it is, without a copy.
    fn from(text: String) -> Self {
        ResponseBody::from(Bytes::from(text))
    }
}

impl From<&'static str> for ResponseBody {
    fn from(text: &'static str) -> Self {
        ResponseBody::from(Bytes::from_static(text.as_bytes()))
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(events) = &mut self.events {
            return events
                .poll_chunk(cx)
                .map(|chunk| chunk.map(|chunk| Ok(Frame::data(chunk))));
        }
        Poll::Ready(self.data.take().map(|data| Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none() && self.events.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        match self.events {
            Some(_) => SizeHint::default(),
            None => SizeHint::with_exact(self.data.as_ref().map_or(0, |data| data.len() as u64)),
        }
    }
}
