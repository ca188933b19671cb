//! Locking a mutex whatever a panicking holder left behind.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, also when a holder panicked while holding it.
///
/// Every mutex of the transports guards state that a panic cannot leave
/// half-changed (each critical section is a single insert, remove, take or
/// store), or state whose holder's panic ends its connection anyway (a
/// WebSocket's socket), so a poisoned lock holds data that is still
/// consistent and is used as it is: one request's panic must not stop the
/// others.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
