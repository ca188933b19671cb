//! Static descriptions of services, methods and params.
//!
//! `#[rpc]` emits one [`ServiceInfo`] per trait as a constant; the router reads
//! it to build its method table, the params decoder reads it to name params in
//! errors, and tools read it to describe the API (OpenRPC, docs, clients).
//! Everything here is built by `const fn`s, so a description costs nothing at
//! run time.

pub use crate::error_info::{ErrorInfo, ErrorList};

mod stream;
mod turn;

pub use stream::{StreamFallback, StreamInfo};
pub use turn::{Access, Turn};

/// Writes the JSON Schema of one Rust type, registering the types it refers
/// to with the generator (they end up under `components/schemas` of an
/// OpenRPC document): what `#[rpc]` records of each param and result type
/// (the `schema` feature; also `typed_rpc::schema::SchemaFn`).
#[cfg(feature = "schema")]
pub type SchemaFn = fn(&mut schemars::SchemaGenerator) -> schemars::Schema;

/// A service: one `#[rpc]` trait and its methods.
///
/// ```
/// use typed_rpc::{MethodInfo, ParamInfo, ServiceInfo};
///
/// const INFO: ServiceInfo = ServiceInfo::new("Greeter", &[
///     MethodInfo::method("greet")
///         .params(&[ParamInfo::new("name", "String"), ParamInfo::new("greeting", "Option<String>").optional()])
///         .result("String")
///         .docs("Greets `name`."),
/// ]);
/// assert!(INFO.methods()[0].param_list()[1].is_optional());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ServiceInfo {
    name: &'static str,
    docs: &'static str,
    methods: &'static [MethodInfo],
}

impl ServiceInfo {
    /// A service named `name` (the trait's name) with these methods.
    pub const fn new(name: &'static str, methods: &'static [MethodInfo]) -> Self {
        ServiceInfo {
            name,
            docs: "",
            methods,
        }
    }

    /// Sets the service's documentation (the trait's doc comment).
    pub const fn docs(mut self, docs: &'static str) -> Self {
        self.docs = docs;
        self
    }

    /// The service's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The trait's doc comment; empty when it has none.
    pub const fn documentation(&self) -> &'static str {
        self.docs
    }

    /// The methods and notifications, in declaration order.
    pub const fn methods(&self) -> &'static [MethodInfo] {
        self.methods
    }

    /// The method answering to `name` (its name or one of its aliases).
    pub fn method(&self, name: &str) -> Option<&'static MethodInfo> {
        self.methods.iter().find(|m| m.names().any(|n| n == name))
    }
}

/// Whether a method answers (a request) or not (a notification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// A method: a call with an `id` gets a response.
    Method,
    /// A notification: it is never answered.
    Notification,
}

/// How a generated client sends a method's params.
///
/// The server always accepts both; this only chooses what the client writes.
/// The default is [`ParamStyle::Positional`], the one every JSON-RPC server
/// accepts (Ethereum-style nodes accept nothing else).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ParamStyle {
    /// `[42, 23]`; trailing `None`s are left out.
    #[default]
    Positional,
    /// `{"minuend": 42, "subtrahend": 23}`; `None`s are left out.
    Named,
}

/// One method or notification of a service.
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    name: &'static str,
    aliases: &'static [&'static str],
    kind: MethodKind,
    params: &'static [ParamInfo],
    whole_params: bool,
    result: Option<&'static str>,
    docs: &'static str,
    param_style: ParamStyle,
    allow_unknown_params: bool,
    idempotent: bool,
    deprecated: bool,
    errors: &'static [ErrorInfo],
    error_list: Option<fn() -> &'static [ErrorInfo]>,
    examples: &'static [ExampleInfo],
    stream: Option<StreamInfo>,
    turn: Turn,
    #[cfg(feature = "schema")]
    result_schema: Option<SchemaFn>,
}

impl MethodInfo {
    /// A method named `name` with no params.
    pub const fn method(name: &'static str) -> Self {
        MethodInfo {
            name,
            aliases: &[],
            kind: MethodKind::Method,
            params: &[],
            whole_params: false,
            result: None,
            docs: "",
            param_style: ParamStyle::Positional,
            allow_unknown_params: false,
            idempotent: false,
            deprecated: false,
            errors: &[],
            error_list: None,
            examples: &[],
            stream: None,
            turn: Turn::DEFAULT,
            #[cfg(feature = "schema")]
            result_schema: None,
        }
    }

    /// A notification named `name` with no params.
    pub const fn notification(name: &'static str) -> Self {
        let mut info = MethodInfo::method(name);
        info.kind = MethodKind::Notification;
        info
    }

    /// Sets the params, each decoded from its own position or name.
    pub const fn params(mut self, params: &'static [ParamInfo]) -> Self {
        self.params = params;
        self.whole_params = false;
        self
    }

    /// Binds the whole `params` value to one param (`#[params]`).
    pub const fn whole_params(mut self, param: &'static ParamInfo) -> Self {
        self.params = std::slice::from_ref(param);
        self.whole_params = true;
        self
    }

    /// Sets other names the method answers to.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// Sets the result type, as written in the trait.
    pub const fn result(mut self, ty: &'static str) -> Self {
        self.result = Some(ty);
        self
    }

    /// Sets the documentation (the method's doc comment).
    pub const fn docs(mut self, docs: &'static str) -> Self {
        self.docs = docs;
        self
    }

    /// Sets how a client sends the params.
    pub const fn param_style(mut self, style: ParamStyle) -> Self {
        self.param_style = style;
        self
    }

    /// Lets the server ignore named params it does not know instead of
    /// answering `-32602`.
    pub const fn allow_unknown_params(mut self) -> Self {
        self.allow_unknown_params = true;
        self
    }

    /// Marks the method safe to send more than once: calling it twice has the
    /// same effect as calling it once (a read, or a write keyed by the
    /// caller's own id). Only such calls are retried by a client with a
    /// [`RetryPolicy`](crate::client::RetryPolicy); `#[method(idempotent)]`
    /// sets it.
    ///
    /// ```
    /// use typed_rpc::MethodInfo;
    ///
    /// static GET_TASK: MethodInfo = MethodInfo::method("tasks/get").idempotent();
    /// assert!(GET_TASK.is_idempotent());
    /// assert!(!MethodInfo::method("message/send").is_idempotent());
    /// ```
    pub const fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Marks the method deprecated (`#[deprecated]` on the trait's method).
    pub const fn deprecated(mut self) -> Self {
        self.deprecated = true;
        self
    }

    /// Sets the application errors the method may answer with
    /// (`#[method(error(code = ..., message = ...))]`).
    pub const fn errors(mut self, errors: &'static [ErrorInfo]) -> Self {
        self.errors = errors;
        self
    }

    /// Sets the function that lists the errors of the method's error type
    /// (its `#[derive(RpcError)]` variants; `#[rpc]` sets it).
    pub const fn error_type(mut self, list: fn() -> &'static [ErrorInfo]) -> Self {
        self.error_list = Some(list);
        self
    }

    /// Sets example calls of the method (`#[method(example(...))]`).
    pub const fn examples(mut self, examples: &'static [ExampleInfo]) -> Self {
        self.examples = examples;
        self
    }

    /// Sets the function that writes the JSON Schema of the result.
    #[cfg(feature = "schema")]
    pub const fn result_schema(mut self, schema: SchemaFn) -> Self {
        self.result_schema = Some(schema);
        self
    }

    /// The method's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Other names the method answers to.
    pub const fn alias_names(&self) -> &'static [&'static str] {
        self.aliases
    }

    /// The name, then each alias.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + use<> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }

    /// Method or notification.
    pub const fn kind(&self) -> MethodKind {
        self.kind
    }

    /// Whether this is a notification.
    pub const fn is_notification(&self) -> bool {
        matches!(self.kind, MethodKind::Notification)
    }

    /// The params in declaration order (one param when they bind the whole value).
    pub const fn param_list(&self) -> &'static [ParamInfo] {
        self.params
    }

    /// Whether the whole `params` value binds to one param (`#[params]`).
    pub const fn binds_whole_params(&self) -> bool {
        self.whole_params
    }

    /// The result type as written in the trait (`T` of `Result<T, E>`);
    /// `None` for a notification.
    pub const fn result_type(&self) -> Option<&'static str> {
        self.result
    }

    /// The method's doc comment; empty when it has none.
    pub const fn documentation(&self) -> &'static str {
        self.docs
    }

    /// How a generated client sends the params.
    pub const fn client_param_style(&self) -> ParamStyle {
        self.param_style
    }

    /// Whether unknown named params are ignored rather than refused.
    pub const fn allows_unknown_params(&self) -> bool {
        self.allow_unknown_params
    }

    /// Whether the method is safe to send more than once, and so to retry.
    ///
    /// ```
    /// use typed_rpc::rpc;
    /// use typed_rpc::RpcResult;
    ///
    /// #[rpc]
    /// pub trait Tasks {
    ///     /// Reading a task twice does no harm.
    ///     #[method(name = "tasks/get", idempotent)]
    ///     async fn get(&self, id: String) -> RpcResult<String>;
    ///
    ///     /// Sending a message twice may start the work twice.
    ///     #[method(name = "message/send")]
    ///     async fn send(&self, text: String) -> RpcResult<String>;
    /// }
    ///
    /// let methods = TasksService::<()>::INFO.methods();
    /// assert!(methods[0].is_idempotent());
    /// assert!(!methods[1].is_idempotent());
    /// ```
    pub const fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// Whether the method is deprecated.
    pub const fn is_deprecated(&self) -> bool {
        self.deprecated
    }

    /// The application errors the method declares it may answer with.
    pub const fn declared_errors(&self) -> &'static [ErrorInfo] {
        self.errors
    }

    /// The errors the method's error type says it sends: each variant of
    /// a `#[derive(RpcError)]` enum; empty for `ErrorObject` and for types
    /// that do not list theirs ([`ErrorList`]).
    ///
    /// ```
    /// use typed_rpc::{RpcError, rpc};
    ///
    /// #[derive(Debug, RpcError)]
    /// pub enum KvError {
    ///     #[rpc_error(code = 1001, message = "Key not found")]
    ///     NotFound { key: String },
    /// }
    ///
    /// #[rpc]
    /// pub trait Kv {
    ///     #[method(name = "get")]
    ///     async fn get(&self, key: String) -> Result<String, KvError>;
    /// }
    ///
    /// let errors = KvService::<()>::INFO.methods()[0].error_type_errors();
    /// assert_eq!((errors[0].code(), errors[0].message()), (1001, "Key not found"));
    /// ```
    pub fn error_type_errors(&self) -> &'static [ErrorInfo] {
        self.error_list.map_or(&[], |list| list())
    }

    /// The method's example calls.
    pub const fn example_list(&self) -> &'static [ExampleInfo] {
        self.examples
    }

    /// Marks the method as streaming: it answers with a sequence of items
    /// (see [`streaming`](crate::streaming)), named on duplex transports as `stream` says.
    pub const fn stream(mut self, stream: StreamInfo) -> Self {
        self.stream = Some(stream);
        self
    }

    /// How the method streams, if it does.
    pub const fn stream_info(&self) -> Option<&StreamInfo> {
        self.stream.as_ref()
    }

    /// Sets when the peer's messages for this method run on a two-way
    /// connection, among the messages around them (`#[method(exclusive)]`,
    /// `shared`, `key = ...`, `supersede`): see [`Turn`].
    pub const fn turn(mut self, turn: Turn) -> Self {
        self.turn = turn;
        self
    }

    /// When the peer's messages for this method run, among the others.
    pub const fn turn_info(&self) -> &Turn {
        &self.turn
    }

    /// The function that writes the JSON Schema of the result, when the
    /// method has a result.
    #[cfg(feature = "schema")]
    pub const fn result_schema_fn(&self) -> Option<SchemaFn> {
        self.result_schema
    }
}

/// An example call of a method: its params as sent on the wire and, for a
/// method, the result it answers with.
///
/// ```
/// use typed_rpc::ExampleInfo;
///
/// let example = ExampleInfo::new("one less", "[42, 23]").result("19");
/// assert_eq!(example.result_json(), Some("19"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExampleInfo {
    name: &'static str,
    params: &'static str,
    result: Option<&'static str>,
}

impl ExampleInfo {
    /// An example named `name` whose params are the JSON text `params`: a
    /// positional array, or the whole params value of a `#[params]` method.
    pub const fn new(name: &'static str, params: &'static str) -> Self {
        ExampleInfo {
            name,
            params,
            result: None,
        }
    }

    /// Sets the result the call answers with, as JSON text.
    pub const fn result(mut self, result: &'static str) -> Self {
        self.result = Some(result);
        self
    }

    /// The example's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The params, as JSON text.
    pub const fn params_json(&self) -> &'static str {
        self.params
    }

    /// The result, as JSON text; `None` for a notification's example.
    pub const fn result_json(&self) -> Option<&'static str> {
        self.result
    }
}

/// One param of a method.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    name: &'static str,
    ty: &'static str,
    optional: bool,
    docs: &'static str,
    #[cfg(feature = "schema")]
    schema: Option<SchemaFn>,
}

impl ParamInfo {
    /// A required param `name` of type `ty` (as written in the trait).
    pub const fn new(name: &'static str, ty: &'static str) -> Self {
        ParamInfo {
            name,
            ty,
            optional: false,
            docs: "",
            #[cfg(feature = "schema")]
            schema: None,
        }
    }

    /// Marks the param optional (an `Option`): it may be left out.
    pub const fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Sets the documentation (the argument's doc comment).
    pub const fn docs(mut self, docs: &'static str) -> Self {
        self.docs = docs;
        self
    }

    /// Sets the function that writes the param's JSON Schema.
    #[cfg(feature = "schema")]
    pub const fn schema(mut self, schema: SchemaFn) -> Self {
        self.schema = Some(schema);
        self
    }

    /// The argument's doc comment; empty when it has none.
    pub const fn documentation(&self) -> &'static str {
        self.docs
    }

    /// The function that writes the param's JSON Schema.
    #[cfg(feature = "schema")]
    pub const fn schema_fn(&self) -> Option<SchemaFn> {
        self.schema
    }

    /// The param's name, as the server expects it in named params.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The Rust type, as written in the trait.
    pub const fn ty(&self) -> &'static str {
        self.ty
    }

    /// Whether the param may be left out.
    pub const fn is_optional(&self) -> bool {
        self.optional
    }
}
