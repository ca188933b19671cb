//! The connections one listener serves, as its admission sees them: which
//! are idle and since when, how many each peer address holds, and a way to
//! ask one of them to close.
//!
//! A slot under the connection limit is not kept by whoever took it: when
//! the server is full, a new client takes the slot of the connection idle
//! longest (nothing in flight, no message for at least
//! [`Limits::idle_timeout_at_capacity`]), which is asked to close
//! gracefully. The busy path pays a relaxed load and a relaxed store per
//! message (see `Presence::touch`) and reads no clock; the table's lock
//! is taken when a connection opens or ends, and by the sweep four times a
//! second.
//!
//! [`Limits::idle_timeout_at_capacity`]: crate::transport::Limits::idle_timeout_at_capacity

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::transport::sync::lock;
use crate::transport::sync::presence::{Clock, Presence, millis};

/// The connections of one listener, and its admission policy.
pub(crate) struct Registry {
    clock: Arc<Clock>,
    table: Mutex<Table>,
    /// The most connections open (not closing) at once.
    max_open: usize,
    /// The most connections, closing ones included, from one address.
    max_per_peer: Option<usize>,
    /// How long a connection stays idle before a newcomer may take its slot,
    /// and what every idle timeout shrinks to at full capacity.
    at_capacity: Duration,
    /// The server's stopping: each connection's stop token is its child.
    stopping: CancellationToken,
}

#[derive(Default)]
struct Table {
    entries: HashMap<u64, Entry>,
    peers: HashMap<IpAddr, usize>,
    /// Connections served, not asked to close.
    open: usize,
    /// Connections asked to close, still finishing their close.
    closing: usize,
    next_key: u64,
}

struct Entry {
    presence: Arc<Presence>,
    peer: IpAddr,
    state: State,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    /// Asked to close: finishing what it owes, then its closing handshake.
    Closing,
    /// Closing, and told to drop its closing handshake: too many were closing.
    Abandoned,
}

/// Why a connection was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Every slot is taken by a connection with work in flight, or idle
    /// too briefly.
    Full,
    /// The peer's address holds its limit of connections.
    PeerLimit,
}

/// A connection's slot, given back when dropped.
pub(crate) struct Admission {
    registry: Arc<Registry>,
    key: u64,
    presence: Arc<Presence>,
}

impl Registry {
    pub(crate) fn new(
        max_open: usize,
        max_per_peer: Option<usize>,
        at_capacity: Duration,
        stopping: CancellationToken,
    ) -> Arc<Self> {
        Arc::new(Registry {
            clock: Arc::new(Clock::new()),
            table: Mutex::new(Table::default()),
            max_open: max_open.max(1),
            max_per_peer,
            at_capacity,
            stopping,
        })
    }

    /// A slot for a connection from `peer`, whose idle timeout is
    /// `idle_timeout`: a free one, or the one of the connection idle
    /// longest, which is asked to close.
    pub(crate) fn admit(
        self: &Arc<Self>,
        peer: IpAddr,
        idle_timeout: Duration,
    ) -> Result<Admission, Refusal> {
        let peer = peer.to_canonical();
        let now = self.clock.read();
        let mut table = lock(&self.table);
        let from_peer = table.peers.get(&peer).copied().unwrap_or(0);
        if self.max_per_peer.is_some_and(|max| from_peer >= max) {
            return Err(Refusal::PeerLimit);
        }
        if table.open >= self.max_open {
            let Some(victim) = table.longest_idle(State::Open, now, millis(self.at_capacity))
            else {
                return Err(Refusal::Full);
            };
            table.close(victim);
            // Beyond the closing budget, the one idle longest drops its
            // closing handshake (a courtesy to a peer that has not answered).
            if table.closing > self.max_closing()
                && let Some(lingering) = table.longest_idle(State::Closing, now, 0)
            {
                table.abandon(lingering);
            }
        }
        let presence = Arc::new(Presence::new(
            self.clock.clone(),
            now,
            idle_timeout,
            self.stopping.child_token(),
        ));
        let key = table.next_key;
        table.next_key += 1;
        table.open += 1;
        *table.peers.entry(peer).or_insert(0) += 1;
        table.entries.insert(
            key,
            Entry {
                presence: presence.clone(),
                peer,
                state: State::Open,
            },
        );
        Ok(Admission {
            registry: self.clone(),
            key,
            presence,
        })
    }

    /// Reads the clock and, from three quarters of the connection limit
    /// on, closes the connections idle longer than their shrunk idle
    /// timeout: from its own value at three quarters down to
    /// `at_capacity` when full, in proportion.
    ///
    /// A connection seen busy counts as active now: idle time runs from the
    /// end of its last request, to within a sweep, at no cost to the request.
    pub(crate) fn sweep(&self) {
        let now = self.clock.read();
        let mut table = lock(&self.table);
        for entry in table.entries.values() {
            if !entry.presence.is_idle() {
                entry.presence.seen_active(now);
            }
        }
        let (open, max) = (table.open as u64, self.max_open as u64);
        if open * 4 < max * 3 {
            return;
        }
        // From 1 at three quarters full to 0 when full, in thousandths.
        let room = 1000 * max.saturating_sub(open) * 4 / max.max(1);
        let floor = millis(self.at_capacity);
        let mut expired: Vec<(u64, u64)> = table
            .entries
            .iter()
            .filter(|(_, entry)| entry.state == State::Open && entry.presence.is_idle())
            .filter_map(|(key, entry)| {
                let own = entry.presence.idle_timeout_millis();
                let floor = floor.min(own);
                let timeout = floor + (own - floor) * room.min(1000) / 1000;
                let idle = entry.presence.idle_for(now);
                (idle >= timeout).then_some((idle, *key))
            })
            .collect();
        // The longest idle first, as many as the closing budget has room
        // for: the rest at the next sweeps.
        expired.sort_unstable_by(|a, b| b.cmp(a));
        let room = self.max_closing().saturating_sub(table.closing);
        for (_, key) in expired.into_iter().take(room) {
            table.close(key);
        }
    }

    /// The most connections closing at once: each holds a socket and its
    /// buffers until its closing handshake ends.
    fn max_closing(&self) -> usize {
        (self.max_open / 4).max(1)
    }

    fn release(&self, key: u64) {
        let mut table = lock(&self.table);
        let Some(entry) = table.entries.remove(&key) else {
            return;
        };
        match entry.state {
            State::Open => table.open -= 1,
            State::Closing | State::Abandoned => table.closing -= 1,
        }
        if let Some(count) = table.peers.get_mut(&entry.peer) {
            *count -= 1;
            if *count == 0 {
                table.peers.remove(&entry.peer);
            }
        }
    }

    /// How many connections are open and closing.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let table = lock(&self.table);
        (table.open, table.closing)
    }
}

impl Table {
    /// The connection in `state` idle longest, for at least `min_idle` ms;
    /// among equals, the oldest.
    fn longest_idle(&self, state: State, now: u64, min_idle: u64) -> Option<u64> {
        self.entries
            .iter()
            .filter(|(_, entry)| entry.state == state && entry.presence.is_idle())
            .map(|(key, entry)| (entry.presence.idle_for(now), *key))
            .filter(|(idle, _)| *idle >= min_idle)
            .max_by(|(a, a_key), (b, b_key)| a.cmp(b).then(b_key.cmp(a_key)))
            .map(|(_, key)| key)
    }

    /// Asks the connection `key` to close: its slot is free from now.
    fn close(&mut self, key: u64) {
        if let Some(entry) = self.entries.get_mut(&key) {
            entry.state = State::Closing;
            entry.presence.stop().cancel();
            self.open -= 1;
            self.closing += 1;
        }
    }

    fn abandon(&mut self, key: u64) {
        if let Some(entry) = self.entries.get_mut(&key) {
            entry.state = State::Abandoned;
            entry.presence.abandoned().cancel();
        }
    }
}

impl Admission {
    /// What the connection shares with the registry.
    pub(crate) fn presence(&self) -> &Arc<Presence> {
        &self.presence
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.registry.release(self.key);
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};
    use std::time::Duration;

    use tokio_util::sync::CancellationToken;

    use super::{Admission, Refusal, Registry};

    const ONE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
    const TWO: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    const LONG: Duration = Duration::from_secs(300);

    #[tokio::test(start_paused = true)]
    async fn a_newcomer_takes_the_slot_idle_longest() {
        let registry = Registry::new(2, None, Duration::from_secs(1), CancellationToken::new());
        let first = registry.admit(ONE, LONG).unwrap();
        tokio::time::advance(Duration::from_secs(2)).await;
        let second = registry.admit(ONE, LONG).unwrap();
        tokio::time::advance(Duration::from_secs(2)).await;
        second.presence().touch();
        let third = registry.admit(ONE, LONG).unwrap();
        assert!(
            first.presence().stop().is_cancelled(),
            "the longest idle closes"
        );
        assert!(!second.presence().stop().is_cancelled());
        assert_eq!(registry.counts(), (2, 1));
        drop(first);
        assert_eq!(registry.counts(), (2, 0));
        drop((second, third));
    }

    #[tokio::test(start_paused = true)]
    async fn busy_and_briefly_idle_connections_keep_their_slots() {
        let registry = Registry::new(2, None, Duration::from_secs(1), CancellationToken::new());
        let busy = registry.admit(ONE, LONG).unwrap();
        busy.presence().serving();
        let fresh = registry.admit(ONE, LONG).unwrap();
        tokio::time::advance(Duration::from_secs(10)).await;
        // As the sweep reads it, four times a second.
        registry.clock.read();
        fresh.presence().answered();
        assert_eq!(registry.admit(ONE, LONG).err(), Some(Refusal::Full));
        busy.presence().answered();
        assert_eq!(registry.admit(ONE, LONG).err(), Some(Refusal::Full));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(registry.admit(ONE, LONG).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn the_per_peer_limit_refuses_only_that_peer() {
        let registry = Registry::new(
            10,
            Some(1),
            Duration::from_secs(1),
            CancellationToken::new(),
        );
        let first = registry.admit(ONE, LONG).unwrap();
        assert_eq!(registry.admit(ONE, LONG).err(), Some(Refusal::PeerLimit));
        let other = registry.admit(TWO, LONG).unwrap();
        drop(first);
        assert!(registry.admit(ONE, LONG).is_ok());
        drop(other);
    }

    #[tokio::test(start_paused = true)]
    async fn idle_timeouts_shrink_with_pressure() {
        let registry = Registry::new(4, None, Duration::from_secs(1), CancellationToken::new());
        let timeout = Duration::from_secs(100);
        let held: Vec<_> = (0..3)
            .map(|_| registry.admit(ONE, timeout).unwrap())
            .collect();
        // Three quarters full: the idle timeout is still its own.
        tokio::time::advance(Duration::from_secs(99)).await;
        registry.sweep();
        assert!(
            held.iter()
                .all(|slot| !slot.presence().stop().is_cancelled())
        );
        // Full: it shrinks to a second, and the longest idle close one at a
        // time (a quarter of the slots may be closing at once).
        let last = registry.admit(ONE, timeout).unwrap();
        tokio::time::advance(Duration::from_millis(999)).await;
        registry.sweep();
        assert!(!last.presence().stop().is_cancelled());
        let closing = |held: &[Admission]| {
            held.iter()
                .filter(|slot| slot.presence().stop().is_cancelled())
                .count()
        };
        assert_eq!(closing(&held), 1);
        registry.sweep();
        assert_eq!(closing(&held), 1, "the closing budget is spent");
    }

    #[tokio::test(start_paused = true)]
    async fn closing_connections_are_bounded_too() {
        let registry = Registry::new(1, None, Duration::ZERO, CancellationToken::new());
        let first = registry.admit(ONE, LONG).unwrap();
        let second = registry.admit(ONE, LONG).unwrap();
        assert!(!first.presence().abandoned().is_cancelled());
        let third = registry.admit(ONE, LONG).unwrap();
        assert!(
            first.presence().abandoned().is_cancelled(),
            "two closing, one open"
        );
        assert!(second.presence().stop().is_cancelled());
        drop((first, second, third));
        assert_eq!(registry.counts(), (0, 0));
    }
}
