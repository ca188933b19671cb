//! Running two futures to the end, polling them in a fixed order.

use std::future::Future;
use std::task::Poll;

/// Runs `first` and `second` to the end, polling `first` before `second`
/// in every pass (`tokio::join!` takes turns at going first).
pub(crate) async fn in_order<A: Future, B: Future>(first: A, second: B) -> (A::Output, B::Output) {
    let (mut first, mut second) = (std::pin::pin!(first), std::pin::pin!(second));
    let (mut first_done, mut second_done) = (None, None);
    std::future::poll_fn(|cx| {
        if first_done.is_none()
            && let Poll::Ready(output) = first.as_mut().poll(cx)
        {
            first_done = Some(output);
        }
        if second_done.is_none()
            && let Poll::Ready(output) = second.as_mut().poll(cx)
        {
            second_done = Some(output);
        }
        match (first_done.take(), second_done.take()) {
            (Some(first), Some(second)) => Poll::Ready((first, second)),
            (first, second) => {
                (first_done, second_done) = (first, second);
                Poll::Pending
            }
        }
    })
    .await
}
