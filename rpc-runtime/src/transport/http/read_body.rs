//! Reading a body whole, up to a limit: the request bodies of the server and
//! the response bodies of the client.
//!
//! `http_body_util`'s `Limited` and `collect` would do it, at the cost of a
//! queue of chunks (allocated and freed for each body) and a trailer map on
//! every request. Nearly every JSON-RPC body comes in
//! one chunk, kept here as it came; a second chunk starts a buffer.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, BufMut, Bytes};
use hyper::body::Body;

/// Errors of bodies, as `http_body::Body` implementations give them.
pub(crate) type BoxError = Box<dyn Error + Send + Sync>;

/// Reads `body` whole; fails as soon as it has more than `limit` bytes,
/// without buffering them. Trailers are ignored.
pub(crate) fn read_whole<B: Body>(body: B, limit: usize) -> ReadWhole<B> {
    ReadWhole {
        body,
        limit,
        first: Bytes::new(),
        joined: Vec::new(),
    }
}

pin_project_lite::pin_project! {
    /// The future of [`read_whole`].
    pub(crate) struct ReadWhole<B> {
        #[pin]
        body: B,
        limit: usize,
        // The first chunk, as it came.
        first: Bytes,
        // Every chunk, copied, once there is more than one.
        joined: Vec<u8>,
    }
}

impl<B> Future for ReadWhole<B>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    type Output = Result<Bytes, BodyError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            let frame = match ready!(this.body.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => frame,
                Some(Err(err)) => return Poll::Ready(Err(BodyError::Read(err.into()))),
                None if this.joined.is_empty() => {
                    return Poll::Ready(Ok(std::mem::take(this.first)));
                }
                None => return Poll::Ready(Ok(Bytes::from(std::mem::take(this.joined)))),
            };
            let Ok(mut data) = frame.into_data() else {
                continue;
            };
            let received = this.first.len() + this.joined.len();
            if data.remaining() > *this.limit - received {
                return Poll::Ready(Err(BodyError::TooLarge { limit: *this.limit }));
            }
            if received == 0 {
                *this.first = data.copy_to_bytes(data.remaining());
            } else {
                if this.joined.is_empty() {
                    this.joined.extend_from_slice(&std::mem::take(this.first));
                }
                this.joined.put(data);
            }
        }
    }
}

/// Why a body could not be read whole.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// It has more bytes than the limit.
    TooLarge { limit: usize },
    /// Reading it failed.
    Read(BoxError),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::TooLarge { limit } => {
                write!(f, "the body is over the limit of {limit} bytes")
            }
            BodyError::Read(_) => f.write_str("the body could not be read"),
        }
    }
}

impl Error for BodyError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            BodyError::TooLarge { .. } => None,
            BodyError::Read(err) => Some(&**err),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use http_body_util::Full;
    use hyper::body::{Body, Frame};

    use super::{BodyError, read_whole};

    /// A body of the given frames, all at hand.
    struct Frames(VecDeque<Result<Frame<Bytes>, io::Error>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
            Poll::Ready(self.0.pop_front())
        }
    }

    /// A body of `chunks`, then trailers.
    fn chunked(chunks: &[&'static str]) -> Frames {
        let data = chunks
            .iter()
            .map(|chunk| Ok(Frame::data(Bytes::from_static(chunk.as_bytes()))));
        let trailers = Ok(Frame::trailers(http::HeaderMap::new()));
        Frames(data.chain([trailers]).collect())
    }

    #[tokio::test]
    async fn one_chunk_is_kept_as_it_came() {
        let body = Bytes::from_static(br#"{"jsonrpc":"2.0"}"#);
        let read = read_whole(Full::new(body.clone()), 100).await.unwrap();
        assert_eq!(read, body);
        assert_eq!(read.as_ptr(), body.as_ptr(), "copied");
    }

    #[tokio::test]
    async fn chunks_are_joined_in_order_and_trailers_ignored() {
        let read = read_whole(chunked(&["[1,", "", "2,", "3]"]), 7)
            .await
            .unwrap();
        assert_eq!(read, "[1,2,3]");
        let read = read_whole(chunked(&[]), 7).await.unwrap();
        assert!(read.is_empty());
    }

    #[tokio::test]
    async fn a_body_over_the_limit_fails_at_the_chunk_that_crosses_it() {
        let over = read_whole(chunked(&["[1,", "2,", "3]"]), 6).await;
        assert!(matches!(over, Err(BodyError::TooLarge { limit: 6 })));
        let over = read_whole(Full::new(Bytes::from_static(b"1234")), 3).await;
        assert!(matches!(over, Err(BodyError::TooLarge { limit: 3 })));
    }

    #[tokio::test]
    async fn a_failing_body_reports_its_error() {
        let broken = Frames(VecDeque::from([
            Ok(Frame::data(Bytes::from_static(b"[1"))),
            Err(io::Error::other("connection reset")),
        ]));
        let err = read_whole(broken, 100).await.unwrap_err();
        assert!(matches!(err, BodyError::Read(_)));
        let source = std::error::Error::source(&err).unwrap();
        assert_eq!(source.to_string(), "connection reset");
    }
}
