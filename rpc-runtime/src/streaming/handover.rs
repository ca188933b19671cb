//! Where a streaming call made in the same process leaves its items for
//! its caller, who reads them itself.

use std::sync::{Arc, Mutex, PoisonError};

use super::Items;

/// The place one streaming call's items are left in: set by the caller in
/// the call's context, filled by the call once its handler has its stream.
#[derive(Clone, Default)]
pub(crate) struct Handover(Arc<Mutex<Option<Items>>>);

impl Handover {
    /// Leaves `items` for the caller.
    pub(super) fn put(&self, items: Items) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(items);
    }

    /// The items the call left, if it got as far as its stream.
    pub(crate) fn take(&self) -> Option<Items> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl std::fmt::Debug for Handover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handover")
    }
}
