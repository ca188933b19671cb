//! Typed values a call layer attaches to a request for its handler.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A map from a type to one value of that type, as `http`'s `Extensions`
/// keeps per request: how a [call layer](crate::middleware) hands its
/// handler what it learned, such as the caller's identity.
///
/// Empty until something is inserted, and then shared by the clones of its
/// [`Context`](crate::Context): values are kept behind an `Arc`, so a
/// context copied per call copies pointers, not values.
///
/// ```
/// use rpc_runtime::context::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct Caller(&'static str);
///
/// let mut extensions = Extensions::new();
/// assert!(extensions.get::<Caller>().is_none());
/// extensions.insert(Caller("alice"));
/// assert_eq!(extensions.get::<Caller>(), Some(&Caller("alice")));
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    // Boxed so that a context without extensions carries one null pointer.
    values: Option<Box<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl Extensions {
    /// No values.
    pub const fn new() -> Self {
        Extensions { values: None }
    }

    /// Stores `value`, replacing the value of the same type, if any.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values
            .get_or_insert_default()
            .insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .as_ref()?
            .get(&TypeId::of::<T>())?
            .downcast_ref::<T>()
    }

    /// Whether no value was inserted.
    pub fn is_empty(&self) -> bool {
        self.values.as_ref().is_none_or(|values| values.is_empty())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let len = self.values.as_ref().map_or(0, |values| values.len());
        f.debug_struct("Extensions").field("len", &len).finish()
    }
}
