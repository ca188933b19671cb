//! The rules of both generations that come before any handler: a classic
//! session is initialized before anything but `ping`; a 2026-07-28
//! request carries a version the server speaks and the client's
//! capabilities, and uses no method that generation removed.

use serde::Deserialize;
use serde_json::value::RawValue;
use typed_rpc::ErrorObject;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::wire::Id;

use super::session::Session;
use crate::ProtocolVersion;
use crate::error;
use crate::types::meta_keys;

/// Methods the 2026-07-28 generation removed.
const REMOVED: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Methods only the 2026-07-28 generation has.
const STATELESS_ONLY: &[&str] = &["server/discover", "subscriptions/listen"];

/// The call layer that applies the generations' rules.
pub(crate) struct Lifecycle;

/// The id of a `subscriptions/listen` request, for its handler: the
/// subscription is named after it.
#[derive(Clone, Debug)]
pub(crate) struct ListenId(pub(crate) Box<RawValue>);

impl CallLayer for Lifecycle {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let method = request.method();
        if is_stateless(request.params()) {
            if let Err(err) = check_meta(request.params()) {
                return request.reject(&err);
            }
            if REMOVED.contains(&method) {
                return request.reject(&removed(method));
            }
            if method == "subscriptions/listen"
                && let Some(id) = request.id().map(id_of)
            {
                request.context_mut().extensions_mut().insert(ListenId(id));
            }
            return next.run(request).await;
        }
        if STATELESS_ONLY.contains(&method) {
            return request.reject(&error::missing_meta(meta_keys::PROTOCOL_VERSION));
        }
        let open = method == "initialize" || method == "ping" || request.id().is_none();
        let initialized = request
            .context()
            .extensions()
            .get::<std::sync::Arc<Session>>()
            .is_none_or(|session| session.is_initialized());
        if open || initialized {
            return next.run(request).await;
        }
        request.reject(&error::not_initialized(method))
    }
}

fn id_of(id: Id<'_>) -> Box<RawValue> {
    RawValue::from_string(id.as_json().to_owned()).expect("an id is JSON")
}

/// Whether `params` carry the 2026-07-28 generation's protocol version: a
/// look for the key before any parse, as nearly every classic request
/// lacks it.
pub(crate) fn is_stateless(params: Option<&RawValue>) -> bool {
    params.is_some_and(|params| params.get().contains(meta_keys::PROTOCOL_VERSION))
}

#[derive(Deserialize)]
struct WithMeta<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<ProtocolMeta<'a>>,
}

#[derive(Deserialize)]
struct ProtocolMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'a RawValue>,
}

/// Checks a 2026-07-28 request's protocol fields: `-32602` when one is
/// missing, `-32022` when the version is not one the server speaks.
fn check_meta(params: Option<&RawValue>) -> Result<(), ErrorObject> {
    let parsed = params.and_then(|params| serde_json::from_str::<WithMeta<'_>>(params.get()).ok());
    let Some(meta) = parsed.and_then(|parsed| parsed.meta) else {
        return Err(error::missing_meta(meta_keys::PROTOCOL_VERSION));
    };
    let Some(version) = meta.version else {
        return Err(error::missing_meta(meta_keys::PROTOCOL_VERSION));
    };
    let version: String = serde_json::from_str(version.get())
        .map_err(|_| error::missing_meta(meta_keys::PROTOCOL_VERSION))?;
    if !ProtocolVersion::parse(&version).is_some_and(ProtocolVersion::is_stateless) {
        return Err(error::unsupported_version(&version));
    }
    match meta
        .capabilities
        .map(|caps| caps.get().trim_start().starts_with('{'))
    {
        Some(true) => Ok(()),
        _ => Err(error::missing_meta(meta_keys::CLIENT_CAPABILITIES)),
    }
}

#[cold]
fn removed(method: &str) -> ErrorObject {
    ErrorObject::new(
        typed_rpc::code::METHOD_NOT_FOUND,
        format!("Method not found: `{method}` is not part of protocol version 2026-07-28"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn protocol_fields_are_checked() {
        let good = raw(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        );
        assert!(check_meta(Some(&good)).is_ok());
        let old = raw(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        );
        let err = check_meta(Some(&old)).unwrap_err();
        assert_eq!(err.code(), -32022);
        assert!(
            err.data()
                .unwrap()
                .get()
                .contains(r#""requested":"1900-01-01""#)
        );
        let no_caps = raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
        assert_eq!(check_meta(Some(&no_caps)).unwrap_err().code(), -32602);
    }
}
