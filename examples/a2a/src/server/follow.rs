//! A subscriber's stream of a task: its events as the broadcast brings
//! them, and from the store's log those it fell behind on, in order,
//! without gaps or repeats, however slowly it reads.

use std::collections::VecDeque;
use std::sync::Arc;

use futures_util::stream::{self, BoxStream, StreamExt};
use tokio::sync::broadcast::{self, error::RecvError};

use super::live::Published;
use super::store::{Seq, TaskStore};
use crate::error::A2aError;
use crate::types::StreamResponse;

/// The most events read from the store's log at once to fill a gap.
const CATCH_UP_PAGE: usize = 256;

/// Where a stream ends: at the first event this is true of.
pub(crate) type Ends = fn(&StreamResponse) -> bool;

/// The stream of the task `task_id`: `first` (the task as it stood at its
/// event `from`, when given), then every event after `from` up to the
/// first one `ends` is true of.
pub(crate) fn follow<S: TaskStore>(
    store: Arc<S>,
    task_id: String,
    first: Option<StreamResponse>,
    from: Seq,
    events: broadcast::Receiver<Published>,
    ends: Ends,
) -> BoxStream<'static, Result<StreamResponse, A2aError>> {
    let follower = Follower {
        store,
        task_id,
        events,
        last: from,
        caught_up: VecDeque::new(),
        held: None,
        ends,
        ended: first.as_ref().is_some_and(ends),
    };
    let rest = stream::unfold(follower, |mut follower| async move {
        let item = follower.next().await?;
        Some((item, follower))
    });
    stream::iter(first.map(Ok)).chain(rest).boxed()
}

struct Follower<S> {
    store: Arc<S>,
    task_id: String,
    events: broadcast::Receiver<Published>,
    /// The number of the latest event delivered or passed over.
    last: Seq,
    /// Events read from the store's log, delivered before `held`.
    caught_up: VecDeque<Published>,
    /// An event that came after a gap, delivered once the gap is filled.
    held: Option<Published>,
    ends: Ends,
    ended: bool,
}

impl<S: TaskStore> Follower<S> {
    async fn next(&mut self) -> Option<Result<StreamResponse, A2aError>> {
        loop {
            if self.ended {
                return None;
            }
            let published = match self.next_in_order().await {
                Ok(Some(published)) => published,
                Ok(None) => return None,
                Err(err) => {
                    self.ended = true;
                    return Some(Err(err));
                }
            };
            if published.seq != 0 {
                self.last = published.seq;
            }
            // A user's message is in the log, not in the stream.
            if let Some(event) = published.event {
                self.ended = (self.ends)(&event);
                return Some(Ok(event));
            }
        }
    }

    /// The event after `last` (or a reply, numbered 0): caught up, held,
    /// or new from the broadcast, a gap before it filled from the log
    /// first. `None` once the task's broadcast is gone.
    async fn next_in_order(&mut self) -> Result<Option<Published>, A2aError> {
        loop {
            if let Some(published) = self.caught_up.pop_front() {
                return Ok(Some(published));
            }
            let published = match self.held.take() {
                Some(published) => published,
                None => match self.events.recv().await {
                    Ok(published) => published,
                    // The next one received is the oldest kept: the gap shows then.
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return Ok(None),
                },
            };
            if published.notice {
                self.read_log_to(published).await?;
                continue;
            }
            if published.seq == 0 || published.seq == self.last + 1 {
                return Ok(Some(published));
            }
            if published.seq <= self.last {
                continue;
            }
            let missing = published.seq - self.last - 1;
            let page = usize::try_from(missing).map_or(CATCH_UP_PAGE, |n| n.min(CATCH_UP_PAGE));
            let stored = self
                .store
                .events_after(&self.task_id, self.last, page)
                .await?;
            if stored.is_empty() {
                return Err(A2aError::internal(
                    "the task's log lacks events its stream missed",
                ));
            }
            self.caught_up.extend(
                stored
                    .into_iter()
                    .map(|stored| Published::event(stored.seq, stored.event.into_stream())),
            );
            self.held = Some(published);
        }
    }

    /// Reads the log after `last` towards the notice's number: one page of
    /// it, the notice held for the next page while it is not reached. A
    /// resync's notice (numbered past any event) reads until the log ends.
    async fn read_log_to(&mut self, notice: Published) -> Result<(), A2aError> {
        if notice.seq <= self.last {
            return Ok(());
        }
        let stored = self
            .store
            .events_after(&self.task_id, self.last, CATCH_UP_PAGE)
            .await?;
        let Some(newest) = stored.last().map(|stored| stored.seq) else {
            return Ok(());
        };
        self.caught_up.extend(
            stored
                .into_iter()
                .map(|stored| Published::event(stored.seq, stored.event.into_stream())),
        );
        if newest < notice.seq {
            self.held = Some(notice);
        }
        Ok(())
    }
}
