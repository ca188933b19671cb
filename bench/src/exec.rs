//! The in-process benchmarks' executor: poll once with a no-op waker.
//!
//! Every in-process case (but the sleeping batch) completes on its first poll,
//! so this is the smallest harness possible, and the same for all columns: a
//! future built on the stack, one `poll`, no runtime, no allocation.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Polls `future` once and returns its output.
///
/// # Panics
///
/// If the future is not ready after one poll: that benchmark needs a real
/// runtime.
#[inline]
pub fn run_ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the benchmarked future did not complete on its first poll"),
    }
}
