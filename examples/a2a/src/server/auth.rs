//! Bearer tokens and the callers they name: [`BearerAuth`] is the call
//! layer that tells every handler who called, once per call, as the
//! [`Caller`] in the request's context.

use std::collections::HashMap;

use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{Context, ErrorObject};

use crate::error::ErrorDetails;

/// The code of the error a call without a known token gets from the
/// layer: an implementation-defined server error (over HTTP, the app
/// answers such a request `401` before it gets here).
pub const UNAUTHENTICATED: i64 = -32000;

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The name the server's authentication gives the caller.
    pub name: String,
}

impl Caller {
    /// The caller of the call `cx` serves, as the authentication layer
    /// named it; `None` when the server authenticates no one.
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    /// use typed_rpc_a2a::server::Caller;
    ///
    /// let mut cx = Context::new(TransportKind::Http);
    /// assert!(Caller::of(&cx).is_none());
    /// cx.extensions_mut().insert(Caller { name: "alice".into() });
    /// assert_eq!(Caller::of(&cx).unwrap().name, "alice");
    /// ```
    pub fn of(cx: &Context) -> Option<&Caller> {
        cx.extensions().get::<Caller>()
    }
}

/// The bearer tokens a server accepts, each naming its caller.
///
/// As a [`CallLayer`] it reads the `Authorization` header of each call
/// once and puts the [`Caller`] it names into the call's context, where
/// the handler reads it with [`Caller::of`]; a call without one of its
/// tokens is answered [`UNAUTHENTICATED`] without reaching the handler.
/// [`crate::http::app`] stacks it for you, behind an HTTP check that
/// answers such requests `401` before their body is read.
#[derive(Clone, Debug, Default)]
pub struct BearerAuth {
    callers: HashMap<String, String>,
}

impl BearerAuth {
    /// Accepts `token` as the caller `name`.
    pub fn token(mut self, token: impl Into<String>, name: impl Into<String>) -> Self {
        self.callers.insert(token.into(), name.into());
        self
    }

    /// The caller an `Authorization` header value names, when its token is one of ours.
    pub fn identify(&self, authorization: Option<&str>) -> Option<Caller> {
        let value = authorization?.trim();
        let (scheme, token) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let name = self.callers.get(token.trim())?;
        Some(Caller { name: name.clone() })
    }
}

impl CallLayer for BearerAuth {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let headers = request.context().headers();
        let authorization = headers
            .and_then(|headers| headers.get("authorization"))
            .and_then(|value| value.to_str().ok());
        let Some(caller) = self.identify(authorization) else {
            let details = ErrorDetails::new("UNAUTHENTICATED", [("scheme", "Bearer")]);
            let refused =
                ErrorObject::new(UNAUTHENTICATED, "A bearer token is required").with_data(&details);
            return request.reject(&refused);
        };
        request.context_mut().extensions_mut().insert(caller);
        next.run(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_tokens_name_a_caller() {
        let auth = BearerAuth::default().token("s3cret", "alice");
        assert_eq!(auth.identify(Some("Bearer s3cret")).unwrap().name, "alice");
        assert_eq!(auth.identify(Some("bearer s3cret")).unwrap().name, "alice");
        assert!(auth.identify(Some("Bearer wrong")).is_none());
        assert!(auth.identify(Some("Basic s3cret")).is_none());
        assert!(auth.identify(None).is_none());
    }
}
