//! The server's JSON-RPC methods: each reads which generation its request
//! is of (the 2026-07-28 protocol fields in `_meta`, or the classic
//! session), serves it, and shapes the result for that generation.

use std::sync::Arc;

use serde_json::{Value, json};
use typed_rpc::{Context, ErrorObject, RpcResult, code};

use super::input::{self, Binding, InputRound};
use super::lifecycle::ListenId;
use super::peer::Peer;
use super::request::{Parts, RequestContext};
use super::session::{ClientState, Negotiated, Session};
use super::{Change, Server};
use crate::ProtocolVersion;
use crate::api::{McpServer, Outcome};
use crate::error;
use crate::types::*;

/// What a 2026-07-28 request says of itself in `_meta`.
struct Stateless {
    version: ProtocolVersion,
    client: ClientState,
    log_level: Option<LoggingLevel>,
}

/// The 2026-07-28 protocol fields of `meta`, when it has them (the call
/// layer has checked them).
fn stateless(meta: Option<&Meta>) -> Option<Stateless> {
    let meta = meta?;
    let version = meta.get(meta_keys::PROTOCOL_VERSION)?.as_str()?;
    fn field<T: serde::de::DeserializeOwned>(meta: &Meta, key: &str) -> Option<T> {
        meta.get(key)
            .cloned()
            .and_then(|value| serde_json::from_value(value).ok())
    }
    Some(Stateless {
        version: ProtocolVersion::parse(version)?,
        client: ClientState {
            capabilities: field(meta, meta_keys::CLIENT_CAPABILITIES).unwrap_or_default(),
            info: field(meta, meta_keys::CLIENT_INFO),
        },
        log_level: field(meta, meta_keys::LOG_LEVEL),
    })
}

fn progress_token(meta: Option<&Meta>) -> Option<ProgressToken> {
    let token = meta?.get(meta_keys::PROGRESS_TOKEN)?.clone();
    serde_json::from_value(token).ok()
}

fn session_of(cx: &Context) -> Option<Arc<Session>> {
    cx.extensions().get::<Arc<Session>>().cloned()
}

/// Which generation a request is of, for shaping its result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Era {
    Classic,
    Stateless,
}

fn era(meta: Option<&Meta>) -> Era {
    match meta.is_some_and(|meta| meta.contains_key(meta_keys::PROTOCOL_VERSION)) {
        true => Era::Stateless,
        false => Era::Classic,
    }
}

impl Server {
    /// The context of the request `meta` belongs to, for its handler.
    fn request_context(
        &self,
        cx: &Context,
        meta: Option<&Meta>,
        input: Option<InputRound>,
    ) -> Arc<RequestContext> {
        let peer = Peer::of(cx);
        let session = session_of(cx);
        let parts = match stateless(meta) {
            Some(request) => Parts {
                version: request.version,
                client: Arc::new(request.client),
                progress_token: progress_token(meta),
                peer,
                session: None,
                log_level: request.log_level,
                input,
            },
            None => {
                let negotiated = session.as_deref().and_then(Session::negotiated);
                Parts {
                    version: negotiated.map_or(ProtocolVersion::LATEST_CLASSIC, |n| n.version),
                    client: negotiated.map(|n| n.client.clone()).unwrap_or_default(),
                    progress_token: progress_token(meta),
                    peer,
                    session,
                    log_level: None,
                    input: None,
                }
            }
        };
        Arc::new(RequestContext::new(parts))
    }

    /// The 2026-07-28 fields and `_meta` of a result of `era`: a complete
    /// result, cacheable by `cache` when it says so, naming the server.
    fn stamp(
        &self,
        era: Era,
        cache: Option<CacheScope>,
        meta: Option<Meta>,
    ) -> (ResultFields, Option<Meta>) {
        if era == Era::Classic {
            return (ResultFields::default(), meta);
        }
        let fields = match cache {
            Some(scope) => ResultFields::cacheable(self.inner.cache_ttl.as_millis() as u64, scope),
            None => ResultFields::complete(),
        };
        let mut meta = meta.unwrap_or_default();
        meta.insert(meta_keys::SERVER_INFO.into(), json!(self.inner.info));
        (fields, Some(meta))
    }

    /// One page of `items` from `cursor`, and the next page's cursor.
    fn page<'a, T: Clone + 'a>(
        &self,
        items: impl ExactSizeIterator<Item = &'a T>,
        cursor: Option<&str>,
    ) -> RpcResult<(Vec<T>, Option<Cursor>)> {
        let total = items.len();
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start <= total)
                .ok_or_else(|| invalid_cursor(cursor))?,
        };
        let size = self.inner.page_size.unwrap_or(total.max(1));
        let page: Vec<T> = items.skip(start).take(size).cloned().collect();
        let end = start + page.len();
        Ok((page, (end < total).then(|| end.to_string())))
    }

    /// One page of `items` for a list request with `params`, and the
    /// result's 2026-07-28 fields.
    fn listing<'a, T: Clone + 'a>(
        &self,
        items: impl ExactSizeIterator<Item = &'a T>,
        params: Option<PaginatedParams>,
    ) -> RpcResult<Listing<T>> {
        let params = params.unwrap_or_default();
        let (items, next_cursor) = self.page(items, params.cursor.as_deref())?;
        let (fields, meta) = self.stamp(era(params.meta.as_ref()), Some(CacheScope::Public), None);
        Ok(Listing {
            items,
            next_cursor,
            fields,
            meta,
        })
    }

    /// The context of a request that may ask for input (2026-07-28): its
    /// try's answers, from its signed state and its responses.
    fn input_context(
        &self,
        cx: &Context,
        meta: Option<&Meta>,
        binding: &Binding,
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> RpcResult<Arc<RequestContext>> {
        let round = self.input_round(meta, binding, state, responses)?;
        Ok(self.request_context(cx, meta, round))
    }

    /// The outcome of a request run until it finished or asked for input.
    fn outcome<T: Stamped>(
        &self,
        meta: Option<&Meta>,
        run: Result<RpcResult<T>, InputRequests>,
        binding: &Binding,
        call: &RequestContext,
    ) -> RpcResult<Outcome<T>> {
        match run {
            Ok(result) => {
                let mut result = result?;
                let (fields, own_meta) = result.stamped();
                (*fields, *own_meta) = self.stamp(era(meta), None, own_meta.take());
                Ok(Outcome::Complete(result))
            }
            Err(asked) => Ok(Outcome::InputRequired(
                self.input_required(asked, binding, call),
            )),
        }
    }

    /// The input of a 2026-07-28 request's try, from its state and answers.
    fn input_round(
        &self,
        meta: Option<&Meta>,
        binding: &Binding,
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> RpcResult<Option<InputRound>> {
        if era(meta) == Era::Classic {
            return Ok(None);
        }
        let answers = input::answers_of(&self.inner.state_key, binding, state, responses)?;
        Ok(Some(InputRound::new(answers)))
    }

    /// The `input_required` result asking `asked`, with the answers so far
    /// sealed in its state.
    fn input_required(
        &self,
        asked: InputRequests,
        binding: &Binding,
        call: &RequestContext,
    ) -> InputRequiredResult {
        let answers = call
            .input()
            .map(InputRound::answers)
            .cloned()
            .unwrap_or_default();
        let state = input::seal(&self.inner.state_key, binding, &answers);
        let mut result = InputRequiredResult::new(asked, Some(state));
        result.meta = self.stamp(Era::Stateless, None, None).1;
        result
    }

    fn resources(&self) -> RpcResult<&dyn super::resources::DynResources> {
        self.inner
            .resources
            .as_deref()
            .ok_or_else(|| ErrorObject::new(code::METHOD_NOT_FOUND, "This server has no resources"))
    }
}

/// One page of a list, and its result's fields.
struct Listing<T> {
    items: Vec<T>,
    next_cursor: Option<Cursor>,
    fields: ResultFields,
    meta: Option<Meta>,
}

/// A result whose 2026-07-28 fields and `_meta` the server stamps.
trait Stamped {
    fn stamped(&mut self) -> (&mut ResultFields, &mut Option<Meta>);
}

impl Stamped for CallToolResult {
    fn stamped(&mut self) -> (&mut ResultFields, &mut Option<Meta>) {
        (&mut self.fields, &mut self.meta)
    }
}

impl Stamped for GetPromptResult {
    fn stamped(&mut self) -> (&mut ResultFields, &mut Option<Meta>) {
        (&mut self.fields, &mut self.meta)
    }
}

#[cold]
fn invalid_cursor(cursor: &str) -> ErrorObject {
    ErrorObject::new(code::INVALID_PARAMS, format!("Invalid cursor: {cursor}"))
        .with_data(&json!({ "param": "cursor", "reason": "not a cursor this server gave" }))
}

impl McpServer for Server {
    async fn initialize(
        &self,
        cx: &Context,
        params: InitializeParams,
    ) -> RpcResult<InitializeResult> {
        let version = ProtocolVersion::negotiate(&params.protocol_version);
        if let Some(session) = session_of(cx) {
            let client = Arc::new(ClientState {
                capabilities: params.capabilities,
                info: Some(params.client_info),
            });
            if !session.initialize(Negotiated { version, client }) {
                return Err(ErrorObject::new(
                    code::INVALID_REQUEST,
                    "The session is already initialized",
                ));
            }
            session.set_outlet(Peer::of(cx));
            session.forward(self.inner.notifier.subscribe());
        }
        Ok(InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.inner.capabilities.clone(),
            server_info: self.inner.info.clone(),
            instructions: self.inner.instructions.clone(),
            meta: None,
        })
    }

    async fn initialized(&self, _cx: &Context, _params: Option<PaginatedParams>) {}

    async fn ping(
        &self,
        _cx: &Context,
        _params: Option<PaginatedParams>,
    ) -> RpcResult<EmptyResult> {
        Ok(EmptyResult::default())
    }

    async fn discover(
        &self,
        _cx: &Context,
        _params: Option<PaginatedParams>,
    ) -> RpcResult<DiscoverResult> {
        let (fields, meta) = self.stamp(Era::Stateless, Some(CacheScope::Public), None);
        Ok(DiscoverResult {
            supported_versions: ProtocolVersion::all_names(),
            capabilities: self.inner.capabilities.clone(),
            instructions: self.inner.instructions.clone(),
            fields,
            meta,
        })
    }

    async fn list_tools(
        &self,
        _cx: &Context,
        params: Option<PaginatedParams>,
    ) -> RpcResult<ListToolsResult> {
        let page = self.listing(self.inner.tools.tools(), params)?;
        Ok(ListToolsResult {
            tools: page.items,
            next_cursor: page.next_cursor,
            fields: page.fields,
            meta: page.meta,
        })
    }

    async fn call_tool(
        &self,
        cx: &Context,
        params: CallToolParams,
    ) -> RpcResult<Outcome<CallToolResult>> {
        let meta = params.meta.as_ref();
        let arguments = params.arguments.as_deref();
        let binding = Binding::new("tools/call", &params.name, arguments.map(|a| a.get()));
        let state = params.request_state.as_deref();
        let call = self.input_context(cx, meta, &binding, state, params.input_responses.clone())?;
        let running = self.inner.tools.call(cx, &call, &params.name, arguments);
        let run = input::until_input(running, call.input()).await;
        self.outcome(meta, run, &binding, &call)
    }

    async fn list_resources(
        &self,
        cx: &Context,
        params: Option<PaginatedParams>,
    ) -> RpcResult<ListResourcesResult> {
        let all = self.resources()?.list(cx).await?;
        let page = self.listing(all.iter(), params)?;
        Ok(ListResourcesResult {
            resources: page.items,
            next_cursor: page.next_cursor,
            fields: page.fields,
            meta: page.meta,
        })
    }

    async fn list_resource_templates(
        &self,
        _cx: &Context,
        params: Option<PaginatedParams>,
    ) -> RpcResult<ListResourceTemplatesResult> {
        let all = self.resources()?.templates();
        let page = self.listing(all.iter(), params)?;
        Ok(ListResourceTemplatesResult {
            resource_templates: page.items,
            next_cursor: page.next_cursor,
            fields: page.fields,
            meta: page.meta,
        })
    }

    async fn read_resource(
        &self,
        cx: &Context,
        params: ResourceParams,
    ) -> RpcResult<Outcome<ReadResourceResult>> {
        let meta = params.meta.as_ref();
        let binding = Binding::new("resources/read", &params.uri, None);
        let state = params.request_state.as_deref();
        let call = self.input_context(cx, meta, &binding, state, params.input_responses.clone())?;
        let resources = self.resources()?;
        let mut inner = cx.clone();
        inner.extensions_mut().insert(call.clone());
        let reading = resources.read(&inner, &params.uri);
        let contents = match input::until_input(reading, call.input()).await {
            Ok(contents) => contents,
            Err(asked) => {
                return Ok(Outcome::InputRequired(
                    self.input_required(asked, &binding, &call),
                ));
            }
        };
        if let Some(failure) = call.host_failure() {
            return Err(failure);
        }
        let Some(contents) = contents? else {
            return Err(error::resource_not_found(
                &params.uri,
                era(meta) == Era::Stateless,
            ));
        };
        let (fields, meta) = self.stamp(era(meta), Some(CacheScope::Private), None);
        Ok(Outcome::Complete(ReadResourceResult {
            contents,
            fields,
            meta,
        }))
    }

    async fn subscribe(&self, cx: &Context, params: ResourceParams) -> RpcResult<EmptyResult> {
        if !self.resources()?.subscribable() {
            return Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                "This server's resources take no subscriptions",
            ));
        }
        if let Some(session) = session_of(cx) {
            session.subscribe(&params.uri);
        }
        Ok(EmptyResult::default())
    }

    async fn unsubscribe(&self, cx: &Context, params: ResourceParams) -> RpcResult<EmptyResult> {
        if let Some(session) = session_of(cx) {
            session.unsubscribe(&params.uri);
        }
        Ok(EmptyResult::default())
    }

    async fn list_prompts(
        &self,
        _cx: &Context,
        params: Option<PaginatedParams>,
    ) -> RpcResult<ListPromptsResult> {
        let page = self.listing(self.inner.prompts.prompts(), params)?;
        Ok(ListPromptsResult {
            prompts: page.items,
            next_cursor: page.next_cursor,
            fields: page.fields,
            meta: page.meta,
        })
    }

    async fn get_prompt(
        &self,
        cx: &Context,
        params: GetPromptParams,
    ) -> RpcResult<Outcome<GetPromptResult>> {
        let meta = params.meta.as_ref();
        let arguments = params.arguments.as_ref().map(|a| json!(a).to_string());
        let binding = Binding::new("prompts/get", &params.name, arguments.as_deref());
        let state = params.request_state.as_deref();
        let call = self.input_context(cx, meta, &binding, state, params.input_responses.clone())?;
        let getting = self
            .inner
            .prompts
            .get(cx, &call, &params.name, params.arguments.as_ref());
        let run = input::until_input(getting, call.input()).await;
        self.outcome(meta, run, &binding, &call)
    }

    async fn complete(&self, cx: &Context, params: CompleteParams) -> RpcResult<CompleteResult> {
        let completion = match &self.inner.completer {
            Some(completer) => completer.complete(cx, &params).await?,
            None => Completion::default(),
        };
        let (fields, meta) = self.stamp(era(params.meta.as_ref()), None, None);
        Ok(CompleteResult {
            completion,
            fields,
            meta,
        })
    }

    async fn set_level(&self, cx: &Context, params: SetLevelParams) -> RpcResult<EmptyResult> {
        if let Some(session) = session_of(cx) {
            session.set_log_level(params.level);
        }
        Ok(EmptyResult::default())
    }

    async fn listen(&self, cx: &Context, params: ListenParams) -> RpcResult<EmptyResult> {
        let id: Value = match cx.extensions().get::<ListenId>() {
            Some(ListenId(id)) => serde_json::from_str(id.get()).unwrap_or(Value::Null),
            None => Value::Null,
        };
        let honoured = self.honoured(&params.notifications);
        if let (Some(resources), Some(uris)) =
            (&self.inner.resources, &honoured.resource_subscriptions)
        {
            uris.iter().for_each(|uri| resources.subscribed(uri));
        }
        let subscription = json!({ meta_keys::SUBSCRIPTION_ID: id });
        let mut changes = self.inner.notifier.subscribe();
        let peer = Peer::of(cx);
        let acknowledged = AcknowledgedParams {
            notifications: honoured.clone(),
            meta: subscription.as_object().cloned(),
        };
        peer.notify("notifications/subscriptions/acknowledged", &acknowledged)
            .await
            .map_err(|_| ErrorObject::internal_error())?;
        loop {
            let change = match changes.recv().await {
                Ok(change) => change,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            if !wanted(&honoured, &change) {
                continue;
            }
            let mut params = json!({ "_meta": subscription });
            if let Change::ResourceUpdated(uri) = &change {
                params["uri"] = Value::String(uri.clone());
            }
            if peer.notify(change.method(), &params).await.is_err() {
                break;
            }
        }
        let (fields, _) = self.stamp(Era::Stateless, None, None);
        Ok(EmptyResult {
            fields,
            meta: subscription.as_object().cloned(),
        })
    }

    async fn roots_changed(&self, _cx: &Context, _params: Option<PaginatedParams>) {}
}

impl Server {
    /// The part of `filter` this server can honour.
    fn honoured(&self, filter: &SubscriptionFilter) -> SubscriptionFilter {
        let inner = &self.inner;
        let has_resources = inner.resources.is_some();
        let subscribable = inner.resources.as_ref().is_some_and(|r| r.subscribable());
        let keep = |asked: Option<bool>, can: bool| asked.filter(|&asked| asked && can);
        SubscriptionFilter {
            tools_list_changed: keep(filter.tools_list_changed, !inner.tools.is_empty()),
            prompts_list_changed: keep(filter.prompts_list_changed, !inner.prompts.is_empty()),
            resources_list_changed: keep(filter.resources_list_changed, has_resources),
            resource_subscriptions: filter
                .resource_subscriptions
                .clone()
                .filter(|_| subscribable),
        }
    }
}

/// Whether a listen honouring `filter` tells of `change`.
fn wanted(filter: &SubscriptionFilter, change: &Change) -> bool {
    match change {
        Change::ToolsListChanged => filter.tools_list_changed == Some(true),
        Change::PromptsListChanged => filter.prompts_list_changed == Some(true),
        Change::ResourcesListChanged => filter.resources_list_changed == Some(true),
        Change::ResourceUpdated(uri) => filter
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.contains(uri)),
    }
}
