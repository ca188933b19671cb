//! A call as a layer sees it.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;

use super::Reply;
use crate::wire::{self, Id};
use crate::{Context, ErrorObject};

/// One JSON-RPC call (a request, a notification, or one entry of a batch)
/// on its way through the [call layers](crate::middleware) to its handler.
///
/// Everything is borrowed from the incoming message and the transport's
/// [`Context`]; only [`context_mut`](CallRequest::context_mut) copies the
/// context, for the handler to see what a layer adds to it.
#[derive(Debug)]
pub struct CallRequest<'a> {
    method: Cow<'a, str>,
    params: Option<&'a RawValue>,
    id: Option<Id<'a>>,
    context: Cow<'a, Context>,
    batched: bool,
}

impl<'a> CallRequest<'a> {
    pub(crate) fn new(
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
        id: Option<Id<'a>>,
        context: &'a Context,
        batched: bool,
    ) -> Self {
        CallRequest {
            method,
            params,
            id,
            context: Cow::Borrowed(context),
            batched,
        }
    }

    /// The method name, as the caller sent it (it may name no method).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The raw `params` (an array or an object), if the call had any.
    pub fn params(&self) -> Option<&'a RawValue> {
        self.params
    }

    /// The call's id; `None` for a notification, which is never answered.
    pub fn id(&self) -> Option<Id<'a>> {
        self.id
    }

    /// Whether the call is an entry of a batch.
    pub fn is_batched(&self) -> bool {
        self.batched
    }

    /// What the transport knows of the call: transport, peer address, HTTP
    /// headers, the connection.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The context, to change for the layers inside this one and the
    /// handler, typically to [insert](crate::context::Extensions::insert)
    /// the caller's identity into its
    /// [extensions](Context::extensions_mut). The first call copies the
    /// transport's context (its headers included) for this call alone.
    pub fn context_mut(&mut self) -> &mut Context {
        self.context.to_mut()
    }

    /// Answers the call with `error` instead of its handler: the reply of
    /// a layer that refuses it. Nothing is sent for a notification.
    pub fn reject(&self, error: &ErrorObject) -> Reply {
        Reply::new(self.id.map(|id| wire::failure(Some(id), error)))
    }

    /// Answers the call with `result` instead of its handler (a cached
    /// value, say). Nothing is sent for a notification.
    pub fn respond<T: Serialize + ?Sized>(&self, result: &T) -> Reply {
        Reply::new(self.id.map(|id| wire::success(id, result)))
    }

    /// The parts the handler's [`Call`](crate::Call) is made of.
    pub(super) fn into_parts(self) -> Parts<'a> {
        Parts {
            method: self.method,
            params: self.params,
            id: self.id,
            context: self.context,
            batched: self.batched,
        }
    }
}

/// A [`CallRequest`] taken apart by the innermost layer, the handler's.
pub(super) struct Parts<'a> {
    pub(super) method: Cow<'a, str>,
    pub(super) params: Option<&'a RawValue>,
    pub(super) id: Option<Id<'a>>,
    pub(super) context: Cow<'a, Context>,
    pub(super) batched: bool,
}
