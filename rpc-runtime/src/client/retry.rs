//! Retrying calls that are safe to repeat.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use super::{ClientError, TransportErrorKind};

/// When and how often a client sends a call again after a failure that may
/// pass: exponential backoff, optionally with jitter, honouring the
/// server's `Retry-After`.
///
/// Retries are opt-in (a client has no policy until given one) and apply
/// only to calls marked idempotent (`#[method(name = "...", idempotent)]`,
/// [`OutgoingRequest::idempotent`](super::OutgoingRequest::idempotent)): a
/// call that may create work, such as A2A's `message/send`, is never sent
/// twice behind the caller's back. A call is retried after:
///
/// - a transport failure: the connection could not be made or was lost, or
///   the attempt timed out;
/// - an HTTP `429`, `502`, `503` or `504`.
///
/// Never after a JSON-RPC error object, another HTTP status, or a reply that
/// could not be decoded: sending the same call again would get the same answer.
///
/// Before attempt `n + 1` the client waits `base_backoff × 2ⁿ⁻¹`, at most
/// `max_backoff`; with jitter, a random duration between half of that and
/// all of it, so that many clients do not retry in step. When the server
/// asked for a delay with `Retry-After`, the client waits at least that long;
/// if that is longer than `max_backoff`, it gives up at once and returns the
/// error, whose [`HttpError::retry_after`](super::HttpError::retry_after)
/// tells the caller when to come back.
///
/// ```
/// use std::time::Duration;
/// use typed_rpc::client::RetryPolicy;
///
/// let policy = RetryPolicy::new(4)
///     .base_backoff(Duration::from_millis(100))
///     .max_backoff(Duration::from_secs(2))
///     .jitter(false);
/// assert_eq!(policy.backoff(1), Duration::from_millis(100));
/// assert_eq!(policy.backoff(2), Duration::from_millis(200));
/// assert_eq!(policy.backoff(9), Duration::from_secs(2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_backoff: Duration,
    max_backoff: Duration,
    jitter: bool,
}

impl Default for RetryPolicy {
    /// Three attempts, 100 ms then 200 ms apart (with jitter), at most 10 s.
    fn default() -> Self {
        RetryPolicy::new(3)
    }
}

impl RetryPolicy {
    /// Up to `max_attempts` attempts in all (the first send included; at
    /// least 1), with a base backoff of 100 ms, at most 10 s, and jitter.
    pub fn new(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            jitter: true,
        }
    }

    /// Sets the wait before the second attempt; each later one doubles it.
    pub fn base_backoff(mut self, backoff: Duration) -> Self {
        self.base_backoff = backoff;
        self
    }

    /// Sets the longest wait between two attempts, and the longest
    /// `Retry-After` the client is willing to wait for.
    pub fn max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// Sets whether each wait is randomized (between half of it and all of it).
    pub fn jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
        self
    }

    /// The most attempts made for one call.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait after failed attempt number `attempt` (from 1), before jitter.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(31);
        self.base_backoff
            .saturating_mul(1 << doublings)
            .min(self.max_backoff)
    }

    /// How long to wait before trying again after `error` ended attempt
    /// number `attempt` (from 1); `None` when the call must not be tried
    /// again. For transports: check first that the call is idempotent.
    ///
    /// ```
    /// use std::time::Duration;
    /// use typed_rpc::client::{HttpError, RetryPolicy};
    /// use typed_rpc::{ClientError, ErrorObject};
    ///
    /// let policy = RetryPolicy::new(3).jitter(false);
    /// let busy = ClientError::Http(HttpError::new(503, Some(Duration::from_secs(1)), ""));
    /// assert_eq!(policy.delay_after(1, &busy), Some(Duration::from_secs(1)));
    /// assert_eq!(policy.delay_after(3, &busy), None, "out of attempts");
    /// let answered = ClientError::Rpc(ErrorObject::new(-32000, "busy"));
    /// assert_eq!(policy.delay_after(1, &answered), None, "a JSON-RPC error is an answer");
    /// ```
    pub fn delay_after(&self, attempt: u32, error: &ClientError) -> Option<Duration> {
        if attempt >= self.max_attempts || !is_transient(error) {
            return None;
        }
        let mut delay = self.backoff(attempt);
        if self.jitter {
            delay = jittered(delay);
        }
        if let ClientError::Http(http) = error
            && let Some(asked) = http.retry_after()
        {
            if asked > self.max_backoff {
                return None;
            }
            delay = delay.max(asked);
        }
        Some(delay)
    }
}

/// Whether `error` may pass if the same call is sent again.
fn is_transient(error: &ClientError) -> bool {
    match error {
        ClientError::Transport(err) => matches!(
            err.kind(),
            TransportErrorKind::Connect | TransportErrorKind::Closed | TransportErrorKind::Timeout
        ),
        ClientError::Http(err) => matches!(err.status(), 429 | 502 | 503 | 504),
        _ => false,
    }
}

/// A random duration between half of `delay` and all of it.
fn jittered(delay: Duration) -> Duration {
    // `RandomState` is seeded randomly per thread and bumped per instance:
    // enough randomness to spread retries, without a dependency.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let half = delay / 2;
    let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
    half + Duration::from_nanos(random % nanos.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorObject;
    use crate::client::{HttpError, TransportError};

    fn http(status: u16, retry_after: Option<u64>) -> ClientError {
        ClientError::Http(HttpError::new(
            status,
            retry_after.map(Duration::from_secs),
            "",
        ))
    }

    #[test]
    fn retries_only_what_may_pass() {
        let policy = RetryPolicy::new(3).jitter(false);
        for status in [429, 502, 503, 504] {
            assert!(policy.delay_after(1, &http(status, None)).is_some());
        }
        for status in [400, 401, 403, 404, 413, 500] {
            assert_eq!(policy.delay_after(1, &http(status, None)), None);
        }
        let connect = ClientError::Transport(TransportError::new(TransportErrorKind::Connect));
        assert!(policy.delay_after(1, &connect).is_some());
        let refused = ClientError::Transport(TransportError::new(TransportErrorKind::Refused));
        assert_eq!(policy.delay_after(1, &refused), None);
        let rpc = ClientError::Rpc(ErrorObject::new(-32000, "busy"));
        assert_eq!(policy.delay_after(1, &rpc), None);
    }

    #[test]
    fn stops_after_max_attempts() {
        let policy = RetryPolicy::new(3);
        assert!(policy.delay_after(2, &http(503, None)).is_some());
        assert_eq!(policy.delay_after(3, &http(503, None)), None);
        assert_eq!(RetryPolicy::new(0).max_attempts(), 1);
    }

    #[test]
    fn honours_retry_after_up_to_max_backoff() {
        let policy = RetryPolicy::new(3)
            .base_backoff(Duration::from_millis(1))
            .max_backoff(Duration::from_secs(5));
        assert_eq!(
            policy.delay_after(1, &http(429, Some(2))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(policy.delay_after(1, &http(429, Some(60))), None);
    }

    #[test]
    fn jitter_stays_within_half_and_whole() {
        let delay = Duration::from_millis(100);
        for _ in 0..100 {
            let jittered = jittered(delay);
            assert!(jittered >= delay / 2 && jittered <= delay, "{jittered:?}");
        }
        assert_eq!(jittered(Duration::ZERO), Duration::ZERO);
    }
}
