//! Without an async runtime (no `rt` feature) a router has no request
//! timeout: these stand in for `deadline.rs`, and none of them can exist.

use std::fmt;
use std::task::Context;

use super::Router;
use crate::wire::Id;

/// No timeout can be set.
#[derive(Clone, Copy)]
pub(super) struct Timeout;

impl Timeout {
    pub(super) const NONE: Timeout = Timeout;

    pub(super) fn begin(&self) -> Option<Began> {
        None
    }
}

impl fmt::Debug for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("None")
    }
}

pub(super) enum Began {}

pub(super) enum Deadline {}

impl Router {
    pub(super) fn deadline(&self, began: Option<Began>) -> Option<Deadline> {
        began.map(|began| match began {})
    }
}

impl Deadline {
    pub(super) fn scope<R>(&self, _: impl FnOnce() -> R) -> R {
        match *self {}
    }

    pub(super) fn poll_passed(&mut self, _: &mut Context<'_>) -> bool {
        match *self {}
    }

    pub(super) fn passed(&self) -> bool {
        match *self {}
    }

    pub(super) fn timed_out(&self, _: Option<Id<'_>>) -> Option<String> {
        match *self {}
    }
}
