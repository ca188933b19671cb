//! Typed values a call layer attaches to a request for its handler.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// A map from a type to one value of that type, as `http`'s `Extensions`
/// keeps per request: how a [call layer](crate::middleware) hands its
/// handler what it learned, such as the caller's identity.
///
/// Empty until something is inserted; values are kept behind an `Arc`, so
/// a [`Context`](crate::Context) copied per call copies pointers, not
/// values.
///
/// ```
/// use typed_rpc::context::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct Caller(&'static str);
///
/// let mut extensions = Extensions::new();
/// assert!(extensions.get::<Caller>().is_none());
/// extensions.insert(Caller("alice"));
/// extensions.insert(Caller("bob"));
/// assert_eq!(extensions.get::<Caller>(), Some(&Caller("bob")));
/// assert!(extensions.get::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    // A list, not a map: a call carries a handful of values at most, found
    // faster by a scan than by hashing, and an empty list allocates nothing.
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl Extensions {
    /// No values.
    pub const fn new() -> Self {
        Extensions { values: Vec::new() }
    }

    /// Stores `value`, replacing the value of the same type, if any.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        match self
            .values
            .iter_mut()
            .find(|(id, _)| *id == TypeId::of::<T>())
        {
            Some((_, held)) => *held = value,
            None => self.values.push((TypeId::of::<T>(), value)),
        }
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let (_, value) = self
            .values
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())?;
        value.downcast_ref::<T>()
    }

    /// Whether no value was inserted.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.values.len())
            .finish()
    }
}
