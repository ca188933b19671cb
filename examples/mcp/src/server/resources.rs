//! What a server needs from the code that owns its resources, and from
//! the code that completes arguments.

use std::future::Future;

use typed_rpc::{Context, RpcResult};

use super::peer::BoxFuture;
use crate::types::{CompleteParams, Completion, Resource, ResourceContents, ResourceTemplate};

/// A server's resources: what there is, and what each holds.
///
/// Say when a resource changes with the server's
/// [`Notifier`](super::Notifier): subscribed classic sessions and
/// 2026-07-28 listeners hear of it.
///
/// ```
/// use typed_rpc::{Context, RpcResult};
/// use typed_rpc_mcp::server::Resources;
/// use typed_rpc_mcp::types::{Resource, ResourceContents};
///
/// struct Greeting;
///
/// impl Resources for Greeting {
///     async fn list(&self, _: &Context) -> RpcResult<Vec<Resource>> {
///         Ok(vec![Resource::new("greeting://hello", "hello")])
///     }
///
///     async fn read(&self, _: &Context, uri: &str) -> RpcResult<Option<Vec<ResourceContents>>> {
///         Ok((uri == "greeting://hello").then(|| vec![ResourceContents::text(uri, Some("text/plain"), "Hello!")]))
///     }
/// }
/// ```
pub trait Resources: Send + Sync + 'static {
    /// Every resource (the server pages them).
    fn list(&self, cx: &Context) -> impl Future<Output = RpcResult<Vec<Resource>>> + Send;

    /// The templates of resources not listed (URIs made from a pattern).
    fn templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    /// The contents of `uri`; `None` when there is no such resource (the
    /// server answers with the generation's not-found error).
    fn read(
        &self,
        cx: &Context,
        uri: &str,
    ) -> impl Future<Output = RpcResult<Option<Vec<ResourceContents>>>> + Send;

    /// Whether clients may subscribe to resources' updates (the provider
    /// then tells of them through the server's notifier).
    fn subscribable(&self) -> bool {
        false
    }

    /// A client subscribed to `uri`: a provider that watches its resources
    /// may start watching this one.
    fn subscribed(&self, uri: &str) {
        let _ = uri;
    }
}

/// Completes the arguments of prompts and resource templates.
pub trait Completer: Send + Sync + 'static {
    /// Suggestions for `params.argument`.
    fn complete(
        &self,
        cx: &Context,
        params: &CompleteParams,
    ) -> impl Future<Output = RpcResult<Completion>> + Send;
}

/// [`Resources`] as an object.
pub(crate) trait DynResources: Send + Sync + 'static {
    fn list<'a>(&'a self, cx: &'a Context) -> BoxFuture<'a, RpcResult<Vec<Resource>>>;
    fn templates(&self) -> Vec<ResourceTemplate>;
    fn read<'a>(
        &'a self,
        cx: &'a Context,
        uri: &'a str,
    ) -> BoxFuture<'a, RpcResult<Option<Vec<ResourceContents>>>>;
    fn subscribable(&self) -> bool;
    fn subscribed(&self, uri: &str);
}

impl<R: Resources> DynResources for R {
    fn list<'a>(&'a self, cx: &'a Context) -> BoxFuture<'a, RpcResult<Vec<Resource>>> {
        Box::pin(Resources::list(self, cx))
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        Resources::templates(self)
    }

    fn read<'a>(
        &'a self,
        cx: &'a Context,
        uri: &'a str,
    ) -> BoxFuture<'a, RpcResult<Option<Vec<ResourceContents>>>> {
        Box::pin(Resources::read(self, cx, uri))
    }

    fn subscribable(&self) -> bool {
        Resources::subscribable(self)
    }

    fn subscribed(&self, uri: &str) {
        Resources::subscribed(self, uri);
    }
}

/// [`Completer`] as an object.
pub(crate) trait DynCompleter: Send + Sync + 'static {
    fn complete<'a>(
        &'a self,
        cx: &'a Context,
        params: &'a CompleteParams,
    ) -> BoxFuture<'a, RpcResult<Completion>>;
}

impl<C: Completer> DynCompleter for C {
    fn complete<'a>(
        &'a self,
        cx: &'a Context,
        params: &'a CompleteParams,
    ) -> BoxFuture<'a, RpcResult<Completion>> {
        Box::pin(Completer::complete(self, cx, params))
    }
}

/// Several providers as one: their resources and templates listed in the
/// order they were added, a URI read by the first that has it.
pub(crate) struct Several(pub(crate) Vec<Box<dyn DynResources>>);

impl DynResources for Several {
    fn list<'a>(&'a self, cx: &'a Context) -> BoxFuture<'a, RpcResult<Vec<Resource>>> {
        Box::pin(async move {
            let mut all = Vec::new();
            for provider in &self.0 {
                all.extend(provider.list(cx).await?);
            }
            Ok(all)
        })
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.0
            .iter()
            .flat_map(|provider| provider.templates())
            .collect()
    }

    fn read<'a>(
        &'a self,
        cx: &'a Context,
        uri: &'a str,
    ) -> BoxFuture<'a, RpcResult<Option<Vec<ResourceContents>>>> {
        Box::pin(async move {
            for provider in &self.0 {
                if let Some(contents) = provider.read(cx, uri).await? {
                    return Ok(Some(contents));
                }
            }
            Ok(None)
        })
    }

    fn subscribable(&self) -> bool {
        self.0.iter().any(|provider| provider.subscribable())
    }

    fn subscribed(&self, uri: &str) {
        self.0.iter().for_each(|provider| provider.subscribed(uri));
    }
}

/// Several completers as one: the first suggestions any of them has.
pub(crate) struct SeveralCompleters(pub(crate) Vec<Box<dyn DynCompleter>>);

impl DynCompleter for SeveralCompleters {
    fn complete<'a>(
        &'a self,
        cx: &'a Context,
        params: &'a CompleteParams,
    ) -> BoxFuture<'a, RpcResult<Completion>> {
        Box::pin(async move {
            for completer in &self.0 {
                let completion = completer.complete(cx, params).await?;
                if !completion.values.is_empty() {
                    return Ok(completion);
                }
            }
            Ok(Completion::default())
        })
    }
}
