//! The A2A binding's rules for every call, as a call layer in front of the
//! handler: the version the request speaks (`A2A-Version`), the
//! extensions it uses (`A2A-Extensions`), and params by name.

use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{Context, ErrorObject};

use crate::error::A2aError;
use crate::types::AgentExtension;

/// The header naming the version a request speaks.
pub const VERSION_HEADER: &str = "a2a-version";

/// The header listing the extensions a request uses, comma-separated.
pub const EXTENSIONS_HEADER: &str = "a2a-extensions";

/// The extensions a call asked for in `A2A-Extensions` that the agent's
/// card declares: the ones in force for the call. An agent ignores the
/// others, as the specification says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActiveExtensions(pub Vec<String>);

impl ActiveExtensions {
    /// The extensions in force for the call `cx` serves (none when the
    /// handler's layer did not run, as in a bare router).
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    /// use typed_rpc_a2a::server::ActiveExtensions;
    ///
    /// let mut cx = Context::new(TransportKind::Http);
    /// assert!(ActiveExtensions::of(&cx).is_empty());
    /// cx.extensions_mut().insert(ActiveExtensions(vec!["https://example.com/ext/v1".into()]));
    /// assert_eq!(ActiveExtensions::of(&cx), ["https://example.com/ext/v1"]);
    /// ```
    pub fn of(cx: &Context) -> &[String] {
        cx.extensions()
            .get::<ActiveExtensions>()
            .map_or(&[], |active| active.0.as_slice())
    }
}

/// Checks every call against the binding before the handler sees it.
pub(crate) struct ProtocolLayer {
    /// A request without `A2A-Version` is served as 1.0 instead of being
    /// refused as 0.3.
    pub(crate) lenient_version: bool,
    /// The extensions the agent's card declares.
    pub(crate) extensions: Vec<AgentExtension>,
}

impl CallLayer for ProtocolLayer {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        if let Err(refused) = self.check_version(request.context()) {
            return request.reject(&ErrorObject::from(refused));
        }
        let positional = request
            .params()
            .is_some_and(|params| params.get().trim_start().starts_with('['));
        if positional {
            let refused = A2aError::invalid_params(
                "params",
                "A2A methods take their params by name: an object, not an array",
            );
            return request.reject(&ErrorObject::from(refused));
        }
        let active = match self.active_extensions(request.context()) {
            Ok(active) => active,
            Err(refused) => return request.reject(&ErrorObject::from(refused)),
        };
        if !active.is_empty() {
            request
                .context_mut()
                .extensions_mut()
                .insert(ActiveExtensions(active));
        }
        next.run(request).await
    }
}

impl ProtocolLayer {
    /// `A2A-Version` must say 1.0 (`1` and `1.0.x` too: a patch number does
    /// not count). Without the header a request speaks 0.3, as the
    /// specification says, and is refused unless the layer is lenient.
    fn check_version(&self, cx: &Context) -> Result<(), A2aError> {
        let version = cx
            .headers()
            .and_then(|headers| headers.get(VERSION_HEADER))
            .map(|value| value.to_str().unwrap_or("?").trim())
            .filter(|version| !version.is_empty());
        let Some(version) = version else {
            return match self.lenient_version {
                true => Ok(()),
                false => Err(A2aError::version_missing()),
            };
        };
        let mut numbers = version.split('.');
        match (numbers.next(), numbers.next()) {
            (Some("1"), Some("0") | None) => Ok(()),
            _ => Err(A2aError::version_not_supported(version)),
        }
    }

    /// The extensions of `A2A-Extensions` the card declares; `-32008`
    /// when one the card requires is not among them.
    fn active_extensions(&self, cx: &Context) -> Result<Vec<String>, A2aError> {
        let asked: Vec<&str> = cx
            .headers()
            .map(|headers| headers.get_all(EXTENSIONS_HEADER))
            .into_iter()
            .flatten()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .filter(|uri| !uri.is_empty())
            .collect();
        if let Some(missing) = self
            .extensions
            .iter()
            .find(|declared| declared.required && !asked.contains(&declared.uri.as_str()))
        {
            return Err(A2aError::extension_support_required(&missing.uri));
        }
        Ok(self
            .extensions
            .iter()
            .filter(|declared| asked.contains(&declared.uri.as_str()))
            .map(|declared| declared.uri.clone())
            .collect())
    }
}
