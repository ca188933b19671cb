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
        self.insert_shared(Arc::new(value));
    }

    /// Stores `value`; the value of the same type it replaces, if any.
    pub(crate) fn insert_shared<T: Send + Sync + 'static>(
        &mut self,
        value: Arc<T>,
    ) -> Option<Arc<T>> {
        let value: Arc<dyn Any + Send + Sync> = value;
        let replaced = match self.position::<T>() {
            Some(at) => Some(std::mem::replace(&mut self.values[at].1, value)),
            None => {
                self.values.push((TypeId::of::<T>(), value));
                None
            }
        };
        replaced.and_then(downcast)
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values[self.position::<T>()?].1.downcast_ref::<T>()
    }

    /// The value of type `T`, shared, if one was inserted.
    pub(crate) fn get_shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        downcast(self.values[self.position::<T>()?].1.clone())
    }

    /// Takes out the value of type `T`, if one was inserted.
    pub(crate) fn remove<T: Send + Sync + 'static>(&mut self) -> Option<Arc<T>> {
        let at = self.position::<T>()?;
        downcast(self.values.swap_remove(at).1)
    }

    fn position<T: 'static>(&self) -> Option<usize> {
        self.values
            .iter()
            .position(|(id, _)| *id == TypeId::of::<T>())
    }

    /// Whether no value was inserted.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The value behind `value`, whose type its key says is `T`.
fn downcast<T: Send + Sync + 'static>(value: Arc<dyn Any + Send + Sync>) -> Option<Arc<T>> {
    value.downcast::<T>().ok()
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.values.len())
            .finish()
    }
}
