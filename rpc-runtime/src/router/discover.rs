//! `rpc.discover`: the router answers with its OpenRPC document, when the
//! builder was asked to (`RouterBuilder::discover`).

use std::sync::Arc;

use serde_json::value::RawValue;

use super::{Inner, Router, RouterBuilder};
use crate::ErrorObject;
use crate::schema::Document;
use crate::wire::{self, Request};

/// The method name OpenRPC reserves for the document.
const METHOD: &str = "rpc.discover";

/// The document, written once when the router is built.
pub(super) struct Discover {
    document: Box<RawValue>,
}

/// What the builder keeps until `build`: the `info` of the document.
pub(super) struct DiscoverInfo {
    title: String,
    version: String,
}

/// Gives a router just built the document of its services, if the builder
/// was asked for `rpc.discover`.
pub(super) fn install(mut router: Router, info: Option<DiscoverInfo>) -> Router {
    let Some(info) = info else { return router };
    let document = router.openrpc(info.title, info.version).to_json();
    let document =
        serde_json::value::to_raw_value(&document).expect("a serde_json::Value always serializes");
    // The router was made a moment ago: nothing else holds it yet.
    if let Some(inner) = Arc::get_mut(&mut router.inner) {
        inner.discover = Some(Discover { document });
    }
    router
}

/// The reply to `request` when it is an `rpc.discover` this router answers:
/// the document, or `-32602` when params are given (it takes none); `None`
/// inside for a notification. `None` for any other request.
pub(super) fn answer(inner: &Inner, request: &Request<'_>) -> Option<Option<String>> {
    let discover = inner.discover.as_ref()?;
    if request.method() != METHOD {
        return None;
    }
    let Some(id) = request.id() else {
        return Some(None);
    };
    let reply = match request.params().map(|params| params.get().trim()) {
        None | Some("[]" | "{}") => wire::success(id, &*discover.document),
        Some(_) => {
            let reason = serde_json::json!({ "reason": "rpc.discover takes no params" });
            wire::failure(Some(id), &ErrorObject::invalid_params().with_data(&reason))
        }
    };
    Some(Some(reply))
}

impl Router {
    /// The OpenRPC document of every service this router dispatches to.
    ///
    /// ```
    /// # use typed_rpc::{MethodInfo, Router, ServiceInfo, Call, HandlerFuture, RpcService};
    /// # struct Svc;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Svc", &[MethodInfo::method("ping").result("()")]);
    /// # impl RpcService for Svc {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    /// let document = Router::new(Svc).openrpc("Pinger", "1.0.0").to_json();
    /// assert_eq!(document["methods"][0]["name"], "ping");
    /// ```
    pub fn openrpc(&self, title: impl Into<String>, version: impl Into<String>) -> Document {
        Document::new(title, version).services(self.services())
    }
}

impl RouterBuilder {
    /// Answers `rpc.discover` with the OpenRPC document of the router's
    /// services, under this `info` title and version (the API's, not the
    /// library's). Off by default: a server publishes its description only
    /// when asked to.
    pub fn discover(mut self, title: impl Into<String>, version: impl Into<String>) -> Self {
        self.discover = Some(DiscoverInfo {
            title: title.into(),
            version: version.into(),
        });
        self
    }
}
