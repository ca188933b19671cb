//! [`HandlerSlot`]: room for a handler's future inside the router's own
//! future, so that a small one runs without an allocation.
//!
//! This is the crate's only unsafe code: a future written into a byte
//! buffer and polled and dropped there through two functions instantiated
//! for its type. It stays sound because the slot is `!Unpin` and reached
//! only through `Pin<&mut HandlerSlot>`: the buffer never moves while it
//! holds a future, and the future is dropped in place before the buffer is
//! written again or goes away.

use std::future::Future;
use std::marker::PhantomPinned;
use std::mem::{MaybeUninit, align_of, size_of};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::HandlerFuture;

/// Bytes of room in a slot: a handler future up to this size (the method's
/// own future and the id) needs no allocation.
const ROOM: usize = 256;

/// The buffer a future is written into.
#[repr(C, align(16))]
struct Room([u8; ROOM]);

/// Where a running handler's future lives while the router polls it.
///
/// The router owns one per request, pinned inside its own future, and hands
/// it to [`RpcService::call_in`](crate::RpcService::call_in), which
/// [`set`](HandlerSlot::set)s the handler's future into it. A future of up
/// to 256 bytes (16-byte aligned) is kept in the slot itself; a larger one
/// is boxed.
///
/// As a future, a slot resolves to its handler's reply; an empty one (or one
/// whose handler has finished) to `None`.
///
/// ```
/// use std::pin::pin;
/// use typed_rpc::HandlerSlot;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut slot = pin!(HandlerSlot::new());
/// slot.as_mut().set(async { Some("reply".to_owned()) });
/// assert_eq!(slot.await.as_deref(), Some("reply"));
/// # });
/// ```
// `held` first: a new slot then writes only `held` (with the room first,
// LLVM zero-fills the whole slot, room included).
#[repr(C)]
pub struct HandlerSlot<'a> {
    held: Held<'a>,
    room: MaybeUninit<Room>,
    /// The future in `room` must not move: neither may the slot.
    _pinned: PhantomPinned,
}

/// What a slot holds.
enum Held<'a> {
    Empty,
    /// A future in the room, polled and dropped through these functions,
    /// instantiated for its type by [`HandlerSlot::set`].
    Inline {
        poll: unsafe fn(*mut u8, &mut Context<'_>) -> Poll<Option<String>>,
        drop: unsafe fn(*mut u8),
    },
    /// A future too large for the room.
    Boxed(HandlerFuture<'a>),
}

impl Default for HandlerSlot<'_> {
    fn default() -> Self {
        HandlerSlot::new()
    }
}

impl<'a> HandlerSlot<'a> {
    /// An empty slot.
    pub fn new() -> Self {
        HandlerSlot {
            held: Held::Empty,
            room: MaybeUninit::uninit(),
            _pinned: PhantomPinned,
        }
    }

    /// Puts `future` in the slot, dropping whatever it held: in the slot's
    /// own room when it fits, else in a box.
    #[inline]
    pub fn set<F>(self: Pin<&mut Self>, future: F)
    where
        F: Future<Output = Option<String>> + Send + 'a,
    {
        // SAFETY: nothing is moved out of the slot; the room is written in
        // place below.
        let this = unsafe { self.get_unchecked_mut() };
        this.clear();
        if fits::<F>() {
            // SAFETY: the room is large and aligned enough for an `F`, and
            // holds nothing (`clear` above): no live value is overwritten.
            unsafe { this.room.as_mut_ptr().cast::<F>().write(future) };
            this.held = Held::Inline {
                poll: poll_in_room::<F>,
                drop: drop_in_room::<F>,
            };
        } else {
            this.held = Held::Boxed(Box::pin(future));
        }
    }

    /// Puts `future` in the slot, as [`set`](HandlerSlot::set) does, and
    /// polls it once: its type is known here, so it is polled (and, once
    /// finished, dropped) directly rather than through the slot's function
    /// pointers.
    #[inline]
    pub(crate) fn start<F>(
        mut self: Pin<&mut Self>,
        future: F,
        cx: &mut Context<'_>,
    ) -> Poll<Option<String>>
    where
        F: Future<Output = Option<String>> + Send + 'a,
    {
        self.as_mut().set(future);
        if !fits::<F>() {
            return self.poll(cx);
        }
        // SAFETY: nothing is moved out of the slot.
        let this = unsafe { self.get_unchecked_mut() };
        let room = this.room.as_mut_ptr().cast::<F>();
        // SAFETY: `set` just wrote an `F` into the room (`Inline`), pinned
        // with the slot.
        let reply = unsafe { Pin::new_unchecked(&mut *room) }.poll(cx);
        if reply.is_ready() {
            // As in `clear`: `held` is emptied first. It says `Inline`, which
            // has nothing to drop.
            std::mem::forget(std::mem::replace(&mut this.held, Held::Empty));
            // SAFETY: the room holds the live `F` polled above; `held` no
            // longer says so, so it is not dropped again.
            unsafe { room.drop_in_place() }
        }
        reply
    }

    /// Drops the future held, if any.
    #[inline]
    fn clear(&mut self) {
        // `held` is emptied first: a future whose drop panics is not dropped twice.
        if let Held::Inline { drop, .. } = std::mem::replace(&mut self.held, Held::Empty) {
            // SAFETY: `Inline` means the room holds a live future of the
            // type `drop` was instantiated for; `held` no longer says so.
            unsafe { drop(self.room.as_mut_ptr().cast()) }
        }
    }
}

impl Future for HandlerSlot<'_> {
    type Output = Option<String>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
        // SAFETY: the slot is pinned, hence so is the future in its room;
        // nothing is moved out of it.
        let this = unsafe { self.get_unchecked_mut() };
        let reply = match &mut this.held {
            Held::Empty => return Poll::Ready(None),
            // SAFETY: `Inline` means the room holds a live future of the
            // type `poll` was instantiated for, pinned with the slot.
            Held::Inline { poll, .. } => unsafe { poll(this.room.as_mut_ptr().cast(), cx) },
            Held::Boxed(future) => future.as_mut().poll(cx),
        };
        if reply.is_ready() {
            this.clear();
        }
        reply
    }
}

impl Drop for HandlerSlot<'_> {
    #[inline]
    fn drop(&mut self) {
        // Most often there is nothing to drop: say so in one comparison.
        if !matches!(self.held, Held::Empty) {
            self.clear();
        }
    }
}

/// Whether an `F` fits in a slot's room.
const fn fits<F>() -> bool {
    size_of::<F>() <= ROOM && align_of::<F>() <= align_of::<Room>()
}

/// Polls the `F` in `room`.
///
/// # Safety
///
/// `room` points to a live `F` that is pinned.
unsafe fn poll_in_room<F>(room: *mut u8, cx: &mut Context<'_>) -> Poll<Option<String>>
where
    F: Future<Output = Option<String>>,
{
    // SAFETY: the caller's promise.
    unsafe { Pin::new_unchecked(&mut *room.cast::<F>()) }.poll(cx)
}

/// Drops the `F` in `room`.
///
/// # Safety
///
/// `room` points to a live `F`, not used again afterwards.
unsafe fn drop_in_room<F>(room: *mut u8) {
    // SAFETY: the caller's promise.
    unsafe { room.cast::<F>().drop_in_place() }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    use super::*;

    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(slot: Pin<&mut HandlerSlot<'_>>) -> Poll<Option<String>> {
        slot.poll(&mut Context::from_waker(Waker::noop()))
    }

    /// A future of about `N` bytes that waits once, then answers `N`.
    async fn sized<const N: usize>(counted: Counted) -> Option<String> {
        let bytes = [1u8; N];
        YieldOnce(false).await;
        let _keep = &counted;
        Some(
            bytes
                .iter()
                .map(|&b| usize::from(b))
                .sum::<usize>()
                .to_string(),
        )
    }

    /// Pending on its first poll, ready on the next.
    struct YieldOnce(bool);

    impl Future for YieldOnce {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            if std::mem::replace(&mut self.0, true) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }
    }

    #[test]
    fn small_and_large_futures_run_and_are_dropped_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut slot = pin!(HandlerSlot::new());
        slot.as_mut().set(sized::<16>(Counted(drops.clone())));
        assert!(matches!(slot.held, Held::Inline { .. }));
        assert_eq!(poll(slot.as_mut()), Poll::Pending);
        assert_eq!(poll(slot.as_mut()), Poll::Ready(Some("16".to_owned())));
        assert_eq!(poll(slot.as_mut()), Poll::Ready(None), "finished: empty");
        slot.as_mut()
            .set(sized::<{ 2 * ROOM }>(Counted(drops.clone())));
        assert!(matches!(slot.held, Held::Boxed(_)));
        assert_eq!(poll(slot.as_mut()), Poll::Pending);
        assert_eq!(poll(slot.as_mut()), Poll::Ready(Some("512".to_owned())));
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_started_future_is_polled_once_and_dropped_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut cx = Context::from_waker(Waker::noop());
        let mut slot = pin!(HandlerSlot::new());
        // Finished at once: dropped, the slot left empty.
        let counted = Counted(drops.clone());
        let ready = async move {
            let _keep = &counted;
            Some("now".to_owned())
        };
        let first = slot.as_mut().start(ready, &mut cx);
        assert_eq!(first, Poll::Ready(Some("now".to_owned())));
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert!(matches!(slot.held, Held::Empty));
        // Waiting, small then large: kept until polled to the end.
        let first = slot
            .as_mut()
            .start(sized::<16>(Counted(drops.clone())), &mut cx);
        assert_eq!(first, Poll::Pending);
        assert!(matches!(slot.held, Held::Inline { .. }));
        assert_eq!(poll(slot.as_mut()), Poll::Ready(Some("16".to_owned())));
        let large = sized::<{ 2 * ROOM }>(Counted(drops.clone()));
        assert_eq!(slot.as_mut().start(large, &mut cx), Poll::Pending);
        assert!(matches!(slot.held, Held::Boxed(_)));
        assert_eq!(poll(slot.as_mut()), Poll::Ready(Some("512".to_owned())));
        assert_eq!(drops.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_future_that_panics_as_it_starts_is_dropped_with_the_slot() {
        let drops = Arc::new(AtomicUsize::new(0));
        {
            let mut slot = pin!(HandlerSlot::new());
            let counted = Counted(drops.clone());
            let panics = async move {
                let _keep = &counted;
                YieldOnce(false).await;
                panic!("a handler panicked")
            };
            let mut cx = Context::from_waker(Waker::noop());
            assert_eq!(slot.as_mut().start(panics, &mut cx), Poll::Pending);
            let polled =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll(slot.as_mut())));
            assert!(polled.is_err());
            assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped as it panicked");
            // An `async` block drops what it holds as it panics; this one
            // does not, and is left to the slot.
            let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                slot.as_mut().start(
                    PanicsAtOnce {
                        _counted: Counted(drops.clone()),
                    },
                    &mut cx,
                )
            }));
            assert!(started.is_err());
            assert_eq!(drops.load(Ordering::SeqCst), 1, "kept by the slot");
        }
        assert_eq!(drops.load(Ordering::SeqCst), 2, "dropped with the slot");
    }

    /// Panics when polled.
    struct PanicsAtOnce {
        _counted: Counted,
    }

    impl Future for PanicsAtOnce {
        type Output = Option<String>;

        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<String>> {
            panic!("a handler panicked at once")
        }
    }

    #[test]
    fn a_waiting_future_is_dropped_when_replaced_or_with_the_slot() {
        let drops = Arc::new(AtomicUsize::new(0));
        let wait = |counted: Counted| async move {
            let _keep = &counted;
            std::future::pending::<()>().await;
            None
        };
        {
            let mut slot = pin!(HandlerSlot::new());
            slot.as_mut().set(wait(Counted(drops.clone())));
            assert_eq!(poll(slot.as_mut()), Poll::Pending);
            slot.as_mut().set(wait(Counted(drops.clone())));
            assert_eq!(drops.load(Ordering::SeqCst), 1, "replaced");
            assert_eq!(poll(slot.as_mut()), Poll::Pending);
        }
        assert_eq!(drops.load(Ordering::SeqCst), 2, "dropped with the slot");
    }
}
