//! The buffers an event stream's chunks are gathered in: handed to hyper
//! without a copy, and taken back for the next chunks once written.
//!
//! A fast stream fills a chunk of [`GATHER`] bytes at a time. A fresh
//! buffer for each would cost an allocation that large, its growth on the
//! way, and the page faults of memory the allocator had given back; a
//! buffer that comes back from the socket costs none of these.

use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;

use crate::transport::sync::lock;

/// The size past which a chunk takes no more events: as much as the
/// duplex transports write between two flushes, and small beside what the
/// socket buffers hold.
pub(super) const GATHER: usize = 64 * 1024;

/// A chunk this small is copied out and its buffer kept: a slow stream's
/// events are small chunks, and neither wait in large buffers nor make
/// the stream keep one.
const COPY_BELOW: usize = 4 * 1024;

/// A large buffer's size: a whole chunk and the event that crosses
/// [`GATHER`], so that it seldom grows.
const LARGE: usize = GATHER + 4 * 1024;

/// The written buffers a stream keeps for its next chunks; more are freed.
/// As many as hyper queues at most (its write buffer of about 400 KiB),
/// since one `writev` may give back all it held at once.
const SPARES: usize = 8;

type Spares = Mutex<Vec<Vec<u8>>>;

/// The buffers of one event stream.
#[derive(Default)]
pub(super) struct Chunks {
    /// The buffer kept from the last chunk, if it was copied out.
    kept: Vec<u8>,
    /// Written large buffers, given back by the chunks that held them.
    spares: Arc<Spares>,
}

impl Chunks {
    /// An empty buffer to gather the next chunk in.
    pub(super) fn start(&mut self) -> Vec<u8> {
        if self.kept.capacity() == 0
            && let Some(spare) = lock(&self.spares).pop()
        {
            return spare;
        }
        std::mem::take(&mut self.kept)
    }

    /// How full a buffer of `capacity` may get before it goes out or
    /// grows: a whole chunk in a large buffer, else a small chunk, past
    /// which [`grow`](Self::grow) makes it large.
    #[inline]
    pub(super) fn room(capacity: usize) -> usize {
        if capacity >= LARGE {
            GATHER
        } else {
            COPY_BELOW
        }
    }

    /// Makes room for a chunk of [`GATHER`] bytes in one go once `buffer`
    /// holds more than a small chunk: a fast stream's buffer then grows
    /// once, not in steps.
    #[inline]
    pub(super) fn grow(buffer: &mut Vec<u8>) {
        if buffer.len() >= COPY_BELOW && buffer.capacity() < LARGE {
            buffer.reserve_exact(LARGE - buffer.len());
        }
    }

    /// Takes back `buffer`, unused.
    pub(super) fn put_back(&mut self, buffer: Vec<u8>) {
        debug_assert!(buffer.is_empty());
        if buffer.capacity() > self.kept.capacity() {
            self.kept = buffer;
        }
    }

    /// `buffer`'s events as one chunk for hyper.
    pub(super) fn finish(&mut self, mut buffer: Vec<u8>) -> Bytes {
        if buffer.len() < COPY_BELOW {
            let chunk = Bytes::copy_from_slice(&buffer);
            buffer.clear();
            self.put_back(buffer);
            // A stream that has slowed down keeps no large buffers idle.
            lock(&self.spares).clear();
            return chunk;
        }
        Bytes::from_owner(Written {
            buffer,
            home: Arc::downgrade(&self.spares),
        })
    }
}

/// A chunk's buffer while hyper holds it; given back to its stream's
/// spares once written, or freed if the stream has ended or has enough.
struct Written {
    buffer: Vec<u8>,
    home: Weak<Spares>,
}

impl AsRef<[u8]> for Written {
    fn as_ref(&self) -> &[u8] {
        &self.buffer
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        let Some(home) = self.home.upgrade() else {
            return;
        };
        let mut spares = lock(&home);
        if spares.len() < SPARES {
            let mut buffer = std::mem::take(&mut self.buffer);
            buffer.clear();
            spares.push(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_large_chunk_gives_its_buffer_back() {
        let mut chunks = Chunks::default();
        let mut buffer = chunks.start();
        buffer.extend_from_slice(&[b'x'; COPY_BELOW]);
        Chunks::grow(&mut buffer);
        assert_eq!(buffer.capacity(), LARGE);
        let address = buffer.as_ptr();
        let chunk = chunks.finish(buffer);
        assert_eq!(chunk.as_ptr(), address, "handed over without a copy");
        assert_eq!(chunk.len(), COPY_BELOW);
        assert_eq!(
            chunks.start().capacity(),
            0,
            "not back before it is written"
        );
        drop(chunk);
        let again = chunks.start();
        assert_eq!(again.as_ptr(), address, "the same buffer, once written");
        assert!(again.is_empty());
    }

    #[test]
    fn a_small_chunk_is_copied_and_its_buffer_kept() {
        let mut chunks = Chunks::default();
        let mut buffer = chunks.start();
        buffer.extend_from_slice(b"data: 1\n\n");
        let address = buffer.as_ptr();
        let chunk = chunks.finish(buffer);
        assert_eq!(&chunk[..], b"data: 1\n\n");
        let again = chunks.start();
        assert_eq!(again.as_ptr(), address);
        assert!(again.is_empty());
    }

    #[test]
    fn a_stream_that_slows_down_frees_its_spares() {
        let mut chunks = Chunks::default();
        drop(chunks.finish(vec![b'x'; COPY_BELOW]));
        assert_eq!(lock(&chunks.spares).len(), 1);
        drop(chunks.finish(b"data: 1\n\n".to_vec()));
        assert!(lock(&chunks.spares).is_empty());
    }

    #[test]
    fn spares_are_bounded_and_freed_with_the_stream() {
        let mut chunks = Chunks::default();
        let written: Vec<Bytes> = (0..SPARES + 2)
            .map(|_| chunks.finish(vec![b'x'; COPY_BELOW]))
            .collect();
        drop(written);
        assert_eq!(lock(&chunks.spares).len(), SPARES);
        let late = chunks.finish(vec![b'x'; COPY_BELOW]);
        drop(chunks);
        drop(late);
    }
}
