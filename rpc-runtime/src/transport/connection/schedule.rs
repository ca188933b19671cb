//! When each of the peer's messages may start: exclusive ones alone, shared ones together, in arrival order.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;

use tokio::sync::watch;

/// How a message takes its turn (see [`Turn`](crate::Turn)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Alone: after everything before it, before everything after it.
    Exclusive,
    /// Beside other shared messages, after the barriers before it; an
    /// exclusive message after it waits for it.
    Shared,
    /// After the barriers before it (not the shared messages), and before
    /// everything after it: an undeclared notification.
    InOrder,
    /// After the barriers before it, and nothing waits for it: an
    /// undeclared request.
    Loose,
}

/// The schedule of one connection's incoming messages. The read loop
/// admits each message as it arrives, in order, and hands it a [`Ticket`];
/// the message waits at its ticket before it starts and drops it when done.
///
/// Exclusive and in-order messages are *barriers*, numbered as admitted:
/// each starts only after the barrier before it has finished, so they
/// finish in order, and "every barrier up to n has finished" is one number.
/// Shared messages are counted by *epoch*, the number of exclusive messages
/// admitted before them: an exclusive message waits for the shared
/// messages of its epoch and the ones before. Loose ones are not counted.
pub(super) struct Schedule {
    /// Barriers admitted so far.
    barriers: u64,
    /// Exclusive messages admitted so far: the epoch of a shared message admitted now.
    epoch: u64,
    /// Made at the first message something waits for: most connections
    /// only ever get requests, which need none.
    progress: Option<Arc<watch::Sender<Progress>>>,
}

/// What has finished, as the tickets report it.
#[derive(Debug, Default)]
pub(super) struct Progress {
    /// Every barrier up to this one has finished.
    barriers_done: u64,
    /// Barriers that finished before one admitted ahead of them did (a
    /// message dropped while it waited for its turn).
    early: BTreeSet<u64>,
    /// How many shared messages are running or waiting, by epoch.
    shared: BTreeMap<u64, usize>,
}

/// A message's place in the [`Schedule`]: what it waits for before it
/// starts, and, while held, what later messages wait for.
pub(super) struct Ticket {
    /// `None` when nothing was ever waited for on the connection: the
    /// message may start at once, and nothing waits for it.
    progress: Option<Arc<watch::Sender<Progress>>>,
    wait: Wait,
    role: Role,
}

#[derive(Clone, Copy, Debug)]
enum Wait {
    /// Until every barrier up to this one has finished.
    Barriers(u64),
    /// Until then, and no shared message of this epoch or before runs.
    All { barriers: u64, epoch: u64 },
}

#[derive(Clone, Copy, Debug)]
enum Role {
    /// Its number: what finishing it lets start.
    Barrier(u64),
    /// A shared message of this epoch.
    Shared(u64),
    /// Nothing waits for it.
    Free,
}

impl Schedule {
    /// The schedule of a new connection.
    pub(super) fn new() -> Self {
        Schedule {
            barriers: 0,
            epoch: 0,
            progress: None,
        }
    }

    /// The progress, made now if it has not been.
    fn progress(&mut self) -> &Arc<watch::Sender<Progress>> {
        self.progress
            .get_or_insert_with(|| Arc::new(watch::Sender::new(Progress::default())))
    }

    /// The ticket of the next message, of `kind`.
    #[inline]
    pub(super) fn admit(&mut self, kind: Kind) -> Ticket {
        let before = self.barriers;
        let (wait, role) = match kind {
            Kind::Shared => {
                let epoch = self.epoch;
                self.progress().send_modify(|progress| {
                    *progress.shared.entry(epoch).or_default() += 1;
                });
                (Wait::Barriers(before), Role::Shared(epoch))
            }
            Kind::Loose => (Wait::Barriers(before), Role::Free),
            Kind::InOrder => {
                self.barriers += 1;
                (Wait::Barriers(before), Role::Barrier(self.barriers))
            }
            Kind::Exclusive => {
                self.barriers += 1;
                let epoch = self.epoch;
                self.epoch += 1;
                let wait = Wait::All {
                    barriers: before,
                    epoch,
                };
                (wait, Role::Barrier(self.barriers))
            }
        };
        let progress = match role {
            Role::Free => self.progress.clone(),
            Role::Barrier(_) | Role::Shared(_) => Some(self.progress().clone()),
        };
        Ticket {
            progress,
            wait,
            role,
        }
    }

    /// Whether every barrier admitted so far has finished: a shared message
    /// admitted now would start at once.
    pub(super) fn is_settled(&self) -> bool {
        self.progress
            .as_ref()
            .is_none_or(|progress| progress.borrow().barriers_done >= self.barriers)
    }

    /// Resolves once every barrier admitted so far has finished.
    pub(super) fn settled(&self) -> impl Future<Output = ()> + Send + use<> {
        Ticket {
            progress: self.progress.clone(),
            wait: Wait::Barriers(self.barriers),
            role: Role::Free,
        }
        .into_turn()
    }
}

impl Ticket {
    /// Whether the message may start now.
    pub(super) fn is_open(&self) -> bool {
        self.progress
            .as_ref()
            .is_none_or(|progress| self.wait.is_met(&progress.borrow()))
    }

    /// Waits for the message's turn; what it then does is done while the
    /// ticket is held (dropping it is finishing).
    pub(super) async fn turn(&self) {
        let Some(progress) = self.progress.as_ref().filter(|_| !self.is_open()) else {
            return;
        };
        let wait = self.wait;
        let mut changes = progress.subscribe();
        // The sender lives in this ticket: the wait cannot fail.
        let _ = changes.wait_for(|progress| wait.is_met(progress)).await;
    }

    /// Waits for the turn, holding the ticket only that long.
    async fn into_turn(self) {
        self.turn().await;
    }
}

impl Wait {
    fn is_met(&self, progress: &Progress) -> bool {
        match *self {
            Wait::Barriers(barriers) => progress.barriers_done >= barriers,
            Wait::All { barriers, epoch } => {
                progress.barriers_done >= barriers
                    && progress
                        .shared
                        .first_key_value()
                        .is_none_or(|(&first, _)| first > epoch)
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let Some(shared) = &self.progress else {
            return;
        };
        match self.role {
            Role::Free => {}
            Role::Shared(epoch) => shared.send_modify(|progress| {
                if let Some(running) = progress.shared.get_mut(&epoch) {
                    *running -= 1;
                    if *running == 0 {
                        progress.shared.remove(&epoch);
                    }
                }
            }),
            Role::Barrier(number) => shared.send_modify(|progress| {
                if number != progress.barriers_done + 1 {
                    // Dropped before an earlier barrier finished: it counts
                    // once that one has.
                    progress.early.insert(number);
                    return;
                }
                progress.barriers_done = number;
                while progress.early.remove(&(progress.barriers_done + 1)) {
                    progress.barriers_done += 1;
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_messages_start_together_and_an_exclusive_one_waits_for_them() {
        let mut schedule = Schedule::new();
        let (a, b) = (schedule.admit(Kind::Shared), schedule.admit(Kind::Shared));
        let change = schedule.admit(Kind::Exclusive);
        let after = schedule.admit(Kind::Shared);
        assert!(a.is_open() && b.is_open());
        assert!(!change.is_open() && !after.is_open());
        drop(a);
        assert!(!change.is_open(), "one shared message still runs");
        drop(b);
        assert!(change.is_open());
        assert!(
            !after.is_open(),
            "what came after waits for the exclusive one"
        );
        assert!(!schedule.is_settled());
        drop(change);
        assert!(after.is_open() && schedule.is_settled());
    }

    #[test]
    fn exclusive_messages_take_turns_in_arrival_order() {
        let mut schedule = Schedule::new();
        let tickets: Vec<Ticket> = (0..3).map(|_| schedule.admit(Kind::Exclusive)).collect();
        let open: Vec<bool> = tickets.iter().map(Ticket::is_open).collect();
        assert_eq!(open, [true, false, false]);
        let mut tickets = tickets.into_iter();
        let (first, second, third) = (tickets.next(), tickets.next(), tickets.next().unwrap());
        // The second is dropped while it waits (a cancel): the third still
        // waits for the first.
        drop(second);
        assert!(!third.is_open());
        drop(first);
        assert!(third.is_open());
    }

    #[test]
    fn an_in_order_message_waits_for_barriers_but_not_for_shared_ones() {
        let mut schedule = Schedule::new();
        let running = schedule.admit(Kind::Shared);
        let note = schedule.admit(Kind::InOrder);
        let change = schedule.admit(Kind::Exclusive);
        assert!(note.is_open(), "the request before it runs on beside it");
        drop(note);
        assert!(
            !change.is_open(),
            "the exclusive one waits for the request too"
        );
        drop(running);
        assert!(change.is_open());
    }

    #[test]
    fn a_loose_request_waits_for_barriers_and_nothing_waits_for_it() {
        let mut schedule = Schedule::new();
        let note = schedule.admit(Kind::InOrder);
        let loose = schedule.admit(Kind::Loose);
        let change = schedule.admit(Kind::Exclusive);
        assert!(
            !loose.is_open(),
            "it comes after the notification before it"
        );
        drop(note);
        assert!(
            loose.is_open() && change.is_open(),
            "the change does not wait for it"
        );
        assert!(schedule.progress.unwrap().borrow().shared.is_empty());
    }

    #[test]
    fn requests_alone_make_no_progress_to_keep() {
        let mut schedule = Schedule::new();
        let request = schedule.admit(Kind::Loose);
        assert!(request.is_open() && schedule.is_settled());
        assert!(schedule.progress.is_none(), "nothing allocated for them");
    }

    #[tokio::test]
    async fn a_turn_comes_when_what_it_waits_for_finishes() {
        let mut schedule = Schedule::new();
        let first = schedule.admit(Kind::Exclusive);
        let second = schedule.admit(Kind::Exclusive);
        let settled = schedule.settled();
        let waiting = tokio::spawn(async move {
            second.turn().await;
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        waiting.await.unwrap();
        settled.await;
    }
}
