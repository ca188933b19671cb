//! Hostile-input harness shared by `tests/core/properties.rs` and the fuzz targets
//! in `fuzz/` (which include this directory with `#[path]`), so the oracles
//! that judge the router and the framings exist once.
//!
//! - [`Gen`]: a source of entropy; the fuzzers back it with `arbitrary`'s
//!   `Unstructured`, the property tests with bytes drawn by proptest.
//! - [`router`]: a router with a few methods, a model of requests and
//!   batches, and the oracle that checks every reply against the protocol.
//! - [`framing`]: streams of frames, readers that split them anywhere, and a
//!   reference model of both framings.

// Each user takes its own part of this module.
#![allow(dead_code)]

pub mod framing;
pub mod router;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// A source of entropy for the generators.
pub trait Gen {
    /// The next byte; 0 once the source is exhausted, so generation always ends.
    fn byte(&mut self) -> u8;

    fn bool(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// True with probability about `1 / n`.
    fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u64(&mut self) -> u64 {
        let mut bytes = [0; 8];
        bytes.iter_mut().for_each(|b| *b = self.byte());
        u64::from_le_bytes(bytes)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        match n {
            0 | 1 => 0,
            2..=256 => self.byte() as usize % n,
            _ => self.u64() as usize % n,
        }
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Entropy from a fixed buffer, for the property tests.
pub struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Bytes { bytes, at: 0 }
    }
}

impl Gen for Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let byte = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }
}

/// Runs a future that never waits on anything outside itself (the router
/// with these services, a reader over in-memory chunks) to completion on the
/// current thread. Panics if it is still pending after `max_polls` polls: a
/// future that keeps returning `Pending` without progress is a hang.
pub fn block_on<F: Future>(future: F, max_polls: usize) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..max_polls {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("the future was still pending after {max_polls} polls: a hang");
}
