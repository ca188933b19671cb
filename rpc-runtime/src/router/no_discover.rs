//! Without OpenRPC documents (no `schema` feature) a router answers no
//! `rpc.discover` of its own: these stand in for `discover.rs`, and none of
//! them can exist.

use super::{Inner, Router};
use crate::wire::Request;

pub(super) enum Discover {}

pub(super) enum DiscoverInfo {}

pub(super) fn install(router: Router, _: Option<DiscoverInfo>) -> Router {
    router
}

pub(super) fn answer(inner: &Inner, _: &Request<'_>) -> Option<Option<String>> {
    match *inner.discover.as_ref()? {}
}
