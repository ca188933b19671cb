//! Waiting on events that almost never happen (a shutdown, a timeout) beside
//! work that happens all the time, without paying for them on every poll.
//!
//! A connection's task waits on its I/O and, at the same time, on the
//! server's shutdown signal and its own timers. In a `select!`, every wakeup
//! of the task polls every branch: polling a `CancellationToken`'s future
//! takes two mutexes, and a fresh `tokio::time::timeout` per message
//! registers and removes a timer each time: work on every request and every
//! message, for events that almost never come. [`Rare`] polls its future only after the future itself asked to
//! be woken (its own waker fired), so the cost on the busy path is one
//! pointer comparison and one atomic load.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use tokio::time::Sleep;

use super::lock;

/// A future polled only when its own waker has fired since its last poll
/// (and on its first poll).
///
/// It forwards its wakeups to the task polling it. Once it is ready, it must
/// not be polled again unless the future inside allows polls after it was
/// ready (as [`Quiet`] and [`Either`] do).
pub(crate) struct Rare<F> {
    future: Pin<Box<F>>,
    flag: Arc<Flag>,
    /// `flag` as a waker, handed to the inner future.
    own: Waker,
    /// The task's waker that `flag` forwards to, as last registered.
    registered: Option<Waker>,
}

struct Flag {
    /// Set when the inner future's waker fired: poll it again.
    woken: AtomicBool,
    /// The waker of the task polling the [`Rare`].
    task: Mutex<Option<Waker>>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        // Woken by reference, under the lock: no clone of the waker to make
        // and drop.
        let task = lock(&self.task);
        if let Some(task) = task.as_ref() {
            task.wake_by_ref();
        }
    }
}

impl<F: Future> Rare<F> {
    pub(crate) fn new(future: F) -> Self {
        let flag = Arc::new(Flag {
            // The first poll polls the future.
            woken: AtomicBool::new(true),
            task: Mutex::new(None),
        });
        Rare {
            future: Box::pin(future),
            own: Waker::from(flag.clone()),
            flag,
            registered: None,
        }
    }
}

// Used by the connection engine only (WebSocket and streams).
#[cfg(feature = "duplex")]
impl<F: Future> Rare<F> {
    /// A handle that marks this future to be polled at its next poll without
    /// waking the task: for a [`Rare`] that the task polls later in the same
    /// pass anyway.
    pub(crate) fn nudge(&self) -> Nudge {
        Nudge(self.flag.clone())
    }
}

/// Marks a [`Rare`] to be polled at its next poll (see [`Rare::nudge`]).
#[cfg(feature = "duplex")]
pub(crate) struct Nudge(Arc<Flag>);

#[cfg(feature = "duplex")]
impl Nudge {
    pub(crate) fn nudge(&self) {
        self.0.woken.store(true, Ordering::Release);
    }
}

impl<F: Future> Future for Rare<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        if !this
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            // A new task (or the first poll): forward wakeups to it.
            let waker = cx.waker().clone();
            *lock(&this.flag.task) = Some(waker.clone());
            this.registered = Some(waker);
        }
        if !this.flag.woken.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        // Cleared before the poll: a wakeup during it is seen next time.
        this.flag.woken.store(false, Ordering::Release);
        this.future
            .as_mut()
            .poll(&mut Context::from_waker(&this.own))
    }
}

impl<F: Future> Rare<F> {
    /// Waits for `work` or for this future, whichever is ready first (this
    /// one is polled first): `select!` with `biased;` for the pair that
    /// every connection polls at each wakeup, minus what `select!` adds on
    /// each poll (a look at the task's coop budget, a thread-local, and its
    /// bookkeeping of branches), on every poll of every connection. `work`
    /// is pinned by the caller, so that it can be
    /// waited for again after an interruption.
    pub(crate) fn race<'a, W: Future>(
        &'a mut self,
        mut work: Pin<&'a mut W>,
    ) -> impl Future<Output = Raced<F::Output, W::Output>> + 'a {
        std::future::poll_fn(move |cx| {
            if let Poll::Ready(event) = Pin::new(&mut *self).poll(cx) {
                return Poll::Ready(Raced::Interrupted(event));
            }
            work.as_mut().poll(cx).map(Raced::Done)
        })
    }
}

/// What [`Rare::race`] saw first.
pub(crate) enum Raced<I, W> {
    /// The rare event.
    Interrupted(I),
    /// The work's output.
    Done(W),
}

/// A timeout that watches something busy (an HTTP connection's wait for
/// headers, a connection's idle time): ready once `timeout` has passed
/// without activity. `active` is asked at every quarter of the timeout
/// whether there was activity since it was last asked; four quiet quarters
/// in a row make it ready, between `timeout` and a quarter more after the
/// last activity. Polled again, it counts the next four. One timer for the
/// life of what it watches, woken four times per timeout: the activity
/// itself only sets a flag, where reading the clock would cost something
/// on each message or request.
pub(crate) fn quiet<A: FnMut() -> bool>(timeout: Duration, active: A) -> Quiet<A> {
    // Never zero: a timer of zero would fire without end while active.
    let quarter = (timeout / 4).max(Duration::from_millis(1));
    Quiet {
        sleep: tokio::time::sleep(quarter),
        quarter,
        quiet: 0,
        active,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`quiet`].
    pub(crate) struct Quiet<A> {
        #[pin]
        sleep: Sleep,
        quarter: Duration,
        // Quiet quarters in a row so far.
        quiet: u8,
        active: A,
    }
}

impl<A: FnMut() -> bool> Future for Quiet<A> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut this = self.project();
        loop {
            std::task::ready!(this.sleep.as_mut().poll(cx));
            // From now, not from the deadline: a task that ran late does
            // not count the quarters it missed all at once.
            let next = tokio::time::Instant::now() + *this.quarter;
            this.sleep.as_mut().reset(next);
            *this.quiet = if (this.active)() { 0 } else { *this.quiet + 1 };
            if *this.quiet == 4 {
                *this.quiet = 0;
                return Poll::Ready(());
            }
        }
    }
}

/// Which of [`Either`]'s two events happened.
pub(crate) enum Event {
    /// `first`: reported once.
    First,
    /// `second`: reported each time it is ready.
    Second,
}

/// Two rare events in one future, to put in one [`Rare`]: each poll of a
/// `Rare` that was not woken still reads its flag, a cache line of its
/// own, and two events for the same task need only one. `first` is
/// reported once; `second` as often as it is ready (it must allow polls
/// after it was ready, as [`Quiet`] does), so the pair may be polled again
/// after it was ready too.
pub(crate) fn either<F, S>(first: F, second: S) -> Either<F, S> {
    Either {
        first,
        first_seen: false,
        second,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`either`].
    pub(crate) struct Either<F, S> {
        #[pin]
        first: F,
        first_seen: bool,
        #[pin]
        second: S,
    }
}

impl<F: Future<Output = ()>, S: Future<Output = ()>> Future for Either<F, S> {
    type Output = Event;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Event> {
        let this = self.project();
        if !*this.first_seen && this.first.poll(cx).is_ready() {
            *this.first_seen = true;
            return Poll::Ready(Event::First);
        }
        this.second.poll(cx).map(|()| Event::Second)
    }
}

/// Runs `future` within `wait` like `tokio::time::timeout` (`None` once
/// `wait` has passed), but makes the timer only if the first poll finds the
/// future pending: nearly every request body and write is ready at once,
/// and those then cost no timer (tokio registers a timer only when polled,
/// but still reads the clock and builds it). The timer is boxed when made,
/// and the future is a struct that holds `future` once: an `async fn` would
/// hold it twice, as its argument and again pinned.
pub(crate) fn timeout<F: Future>(wait: Duration, future: F) -> Timeout<F> {
    Timeout {
        future,
        wait,
        timer: None,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`timeout`].
    pub(crate) struct Timeout<F> {
        #[pin]
        future: F,
        wait: Duration,
        timer: Option<Pin<Box<Sleep>>>,
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Some(output));
        }
        let wait = *this.wait;
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(wait)));
        timer.as_mut().poll(cx).map(|()| None)
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Waker};
    use std::time::Duration;

    use tokio_util::sync::CancellationToken;

    use super::{Raced, Rare};

    /// Never ready; counts its polls.
    struct Counting(Arc<AtomicUsize>);

    impl Future for Counting {
        type Output = ();

        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Poll::Pending
        }
    }

    #[test]
    fn the_future_is_polled_only_when_woken() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut rare = Rare::new(Counting(polls.clone()));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..3 {
            assert!(Pin::new(&mut rare).poll(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::Relaxed), 1);
        rare.own.wake_by_ref();
        assert!(Pin::new(&mut rare).poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::Relaxed), 2);
    }

    #[tokio::test]
    async fn a_cancellation_is_seen_among_busy_wakeups() {
        let token = CancellationToken::new();
        let mut rare = Rare::new(token.clone().cancelled_owned());
        let mut ticks = tokio::time::interval(Duration::from_millis(1));
        let canceller = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            token.cancel();
        });
        let mut busy = 0;
        loop {
            match rare.race(std::pin::pin!(ticks.tick())).await {
                Raced::Interrupted(()) => break,
                Raced::Done(_) => busy += 1,
            }
        }
        assert!(busy >= 5, "{busy}");
        canceller.await.unwrap();
    }

    #[tokio::test]
    async fn a_race_goes_to_the_interruption_when_both_are_ready() {
        let mut rare = Rare::new(std::future::ready("interrupted"));
        let work = std::pin::pin!(std::future::ready("done"));
        assert!(matches!(
            rare.race(work).await,
            Raced::Interrupted("interrupted")
        ));
    }

    #[tokio::test]
    async fn a_timer_fires() {
        let started = tokio::time::Instant::now();
        Rare::new(tokio::time::sleep(Duration::from_millis(30))).await;
        assert!(started.elapsed() >= Duration::from_millis(30));
    }

    #[tokio::test]
    async fn quiet_is_ready_within_a_quarter_past_the_timeout_after_the_last_activity() {
        const TIMEOUT: Duration = Duration::from_millis(80);
        let activity = std::sync::atomic::AtomicBool::new(false);
        let quiet = super::quiet(TIMEOUT, || activity.swap(false, Ordering::Relaxed));
        let mut quiet = std::pin::pin!(quiet);
        // Activity for longer than the timeout keeps it from ending.
        for _ in 0..6 {
            activity.store(true, Ordering::Relaxed);
            tokio::select! {
                () = quiet.as_mut() => panic!("ended while active"),
                () = tokio::time::sleep(TIMEOUT / 3) => {}
            }
        }
        activity.store(true, Ordering::Relaxed);
        let last = tokio::time::Instant::now();
        quiet.as_mut().await;
        let after = last.elapsed();
        // A quarter more, and some room for a loaded machine's timer.
        assert!(after >= TIMEOUT && after < TIMEOUT * 2, "{after:?}");
        // Polled again, it counts a whole timeout anew.
        quiet.await;
        assert!(last.elapsed() >= after + TIMEOUT, "{:?}", last.elapsed());
    }

    #[tokio::test]
    async fn either_reports_its_first_event_once_and_its_second_each_time() {
        let token = CancellationToken::new();
        let events = super::either(
            token.clone().cancelled_owned(),
            super::quiet(TICK, || false),
        );
        let mut events = std::pin::pin!(events);
        token.cancel();
        assert!(matches!(events.as_mut().await, super::Event::First));
        for _ in 0..2 {
            let started = tokio::time::Instant::now();
            assert!(matches!(events.as_mut().await, super::Event::Second));
            assert!(started.elapsed() >= TICK);
        }
    }

    const TICK: Duration = Duration::from_millis(20);
}
