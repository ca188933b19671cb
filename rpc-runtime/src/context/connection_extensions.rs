//! Typed values that live as long as a connection: set by one call, read by
//! every later call on it.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use super::Extensions;

/// What a connection has learned of its peer, kept for every later call on
/// the same connection: the caller a `login` method authenticated, the
/// tenant a [call layer](crate::middleware) resolved on the first call, a
/// session, a protocol version the peer negotiated, per-connection
/// filters.
///
/// A handler or a layer reaches it through
/// [`Context::connection_extensions`](crate::Context::connection_extensions).
/// Every call of a connection sees the same set; clones share it. A value a
/// call inserts is seen by the calls that start after it (calls already
/// running on the connection may or may not see it). Each value is kept
/// behind an `Arc`, and [`get`](ConnectionExtensions::get) hands out a
/// clone of it, so no lock is held while a handler uses it.
///
/// ```
/// use typed_rpc::context::ConnectionExtensions;
///
/// #[derive(Debug, PartialEq)]
/// struct Caller(&'static str);
///
/// let connection = ConnectionExtensions::new();
/// let seen_by_a_later_call = connection.clone();
/// assert!(connection.insert(Caller("alice")).is_none());
/// assert_eq!(seen_by_a_later_call.get::<Caller>().as_deref(), Some(&Caller("alice")));
/// // A logout.
/// assert_eq!(connection.remove::<Caller>().as_deref(), Some(&Caller("alice")));
/// assert!(seen_by_a_later_call.get::<Caller>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct ConnectionExtensions {
    values: Arc<RwLock<Extensions>>,
}

impl ConnectionExtensions {
    /// An empty set, for a new connection.
    pub fn new() -> Self {
        ConnectionExtensions::default()
    }

    /// Stores `value` for the rest of the connection; the value of the
    /// same type it replaces, if any.
    pub fn insert<T: Send + Sync + 'static>(&self, value: T) -> Option<Arc<T>> {
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        values.insert_shared(Arc::new(value))
    }

    /// The value of type `T`, if one is stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let values = self.values.read().unwrap_or_else(PoisonError::into_inner);
        values.get_shared()
    }

    /// The value of type `T`, stored first by `make` when there is none:
    /// what a layer sets up on a connection's first call, made once even
    /// when the connection's first calls race.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use typed_rpc::context::ConnectionExtensions;
    ///
    /// struct Calls(AtomicU64);
    ///
    /// let connection = ConnectionExtensions::new();
    /// for _ in 0..3 {
    ///     let calls = connection.get_or_insert_with(|| Calls(AtomicU64::new(0)));
    ///     calls.0.fetch_add(1, Ordering::Relaxed);
    /// }
    /// assert_eq!(connection.get::<Calls>().unwrap().0.load(Ordering::Relaxed), 3);
    /// ```
    pub fn get_or_insert_with<T: Send + Sync + 'static>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        if let Some(value) = self.get() {
            return value;
        }
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = values.get_shared() {
            return value;
        }
        let value = Arc::new(make());
        values.insert_shared(value.clone());
        value
    }

    /// Takes out the value of type `T` (a logout), if one is stored.
    pub fn remove<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        values.remove()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        let values = self.values.read().unwrap_or_else(PoisonError::into_inner);
        values.is_empty()
    }
}

impl fmt::Debug for ConnectionExtensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = self.values.read().unwrap_or_else(PoisonError::into_inner);
        f.debug_tuple("ConnectionExtensions")
            .field(&*values)
            .finish()
    }
}
