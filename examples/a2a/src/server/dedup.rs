//! The messages seen lately, so a retried `messageId` joins the turn its
//! first copy started instead of starting the work again.
//!
//! Bounded twice: at most `max_messages` entries, and none older than
//! `max_age`; the oldest go first. A retry arriving after its entry went is
//! taken as a new message, so the bounds should cover a client's whole retry
//! window (the defaults, 10 000 messages and 10 minutes, do for a client
//! retrying within seconds).

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::live::TurnState;

/// How many messages are remembered by default.
pub const DEFAULT_MAX_MESSAGES: usize = 10_000;

/// How long a message is remembered by default.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(600);

/// Who sent a message, and its `messageId`.
pub(crate) type MessageKey = (String, String);

/// The turns recent messages started, by sender and `messageId`.
pub(crate) struct SeenMessages {
    turns: HashMap<MessageKey, watch::Receiver<TurnState>>,
    /// The keys in the order they came, with when.
    order: VecDeque<(Instant, MessageKey)>,
    max_messages: usize,
    max_age: Duration,
}

impl SeenMessages {
    /// Remembers at most `max_messages` messages for at most `max_age`.
    pub(crate) fn new(max_messages: usize, max_age: Duration) -> Self {
        SeenMessages {
            turns: HashMap::new(),
            order: VecDeque::new(),
            max_messages,
            max_age,
        }
    }

    /// The turn `key` started, when it is still remembered.
    pub(crate) fn get(&mut self, key: &MessageKey) -> Option<watch::Receiver<TurnState>> {
        self.forget_old(Instant::now());
        self.turns.get(key).cloned()
    }

    /// Remembers that `key` started `turn`, forgetting the oldest past the bounds.
    pub(crate) fn insert(&mut self, key: MessageKey, turn: watch::Receiver<TurnState>) {
        let now = Instant::now();
        self.forget_old(now);
        if self.max_messages == 0 {
            return;
        }
        while self.turns.len() >= self.max_messages {
            let Some((_, oldest)) = self.order.pop_front() else {
                break;
            };
            self.turns.remove(&oldest);
        }
        if self.turns.insert(key.clone(), turn).is_none() {
            self.order.push_back((now, key));
        }
    }

    fn forget_old(&mut self, now: Instant) {
        while let Some((at, _)) = self.order.front() {
            if now.duration_since(*at) <= self.max_age {
                break;
            }
            if let Some((_, key)) = self.order.pop_front() {
                self.turns.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str) -> MessageKey {
        (String::new(), id.to_owned())
    }

    fn turn() -> watch::Receiver<TurnState> {
        watch::channel(TurnState::Pending).1
    }

    #[test]
    fn past_the_count_the_oldest_message_is_forgotten() {
        let mut seen = SeenMessages::new(2, DEFAULT_MAX_AGE);
        for id in ["a", "b", "c"] {
            seen.insert(key(id), turn());
        }
        assert!(seen.get(&key("a")).is_none());
        assert!(seen.get(&key("b")).is_some());
        assert!(seen.get(&key("c")).is_some());
    }

    #[test]
    fn past_the_age_a_message_is_forgotten() {
        let mut seen = SeenMessages::new(10, Duration::from_millis(20));
        seen.insert(key("a"), turn());
        assert!(seen.get(&key("a")).is_some());
        std::thread::sleep(Duration::from_millis(40));
        assert!(seen.get(&key("a")).is_none());
        assert!(seen.order.is_empty());
    }
}
