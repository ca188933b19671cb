//! Tools from `#[rpc]` traits: each method a tool, its doc comment the
//! description, its params the `inputSchema`, its result turned into
//! content (and `structuredContent` when it is an object).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use typed_rpc::{BuildError, Context, ErrorObject, Response, Router, RpcService, code};

use super::request::RequestContext;
use super::schema::{self, Output, SchemaError};
use super::services::Services;
use crate::error;
use crate::mirrored::{self, Mirrored};
use crate::types::{CallToolResult, ContentBlock, Tool, ToolAnnotations};

/// One tool: its description, and what its result is.
struct Entry {
    tool: Tool,
    output: Output,
    /// The arguments mirrored into `Mcp-Param-*` headers.
    mirrored: Vec<Mirrored>,
}

/// The tools of a server, and the router that runs them.
pub(crate) struct ToolSet {
    router: Router,
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

/// Why a server could not be built from its parts.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerBuildError {
    /// Two services (of tools, or of prompts) define the same name.
    Duplicate(BuildError),
    /// A method cannot be a tool.
    Schema(SchemaError),
    /// Annotations or a schema name no tool.
    UnknownTool(String),
    /// A tool's `x-mcp-header` annotations are invalid (or name no
    /// argument): the tool, and why.
    MirroredHeader(String, String),
}

impl std::fmt::Display for ServerBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerBuildError::Duplicate(err) => err.fmt(f),
            ServerBuildError::Schema(err) => err.fmt(f),
            ServerBuildError::UnknownTool(name) => {
                write!(f, "annotations for `{name}`, which is no tool")
            }
            ServerBuildError::MirroredHeader(tool, why) => write!(f, "tool `{tool}`: {why}"),
        }
    }
}

impl std::error::Error for ServerBuildError {}

/// Tool services and annotations, gathered by the server's builder.
#[derive(Default)]
pub(crate) struct ToolsBuilder {
    services: Services,
    annotations: Vec<(String, ToolAnnotations)>,
    input_schemas: Vec<(String, serde_json::Map<String, serde_json::Value>)>,
    /// Tool, argument, header.
    mirror_headers: Vec<(String, String, String)>,
}

impl ToolsBuilder {
    pub(crate) fn add(&mut self, service: impl RpcService) {
        self.services.add(service);
    }

    pub(crate) fn annotate(&mut self, name: String, annotations: ToolAnnotations) {
        self.annotations.push((name, annotations));
    }

    pub(crate) fn input_schema(
        &mut self,
        name: String,
        schema: serde_json::Map<String, serde_json::Value>,
    ) {
        self.input_schemas.push((name, schema));
    }

    pub(crate) fn mirror_header(&mut self, tool: String, argument: String, header: String) {
        self.mirror_headers.push((tool, argument, header));
    }

    pub(crate) fn build(self) -> Result<ToolSet, ServerBuildError> {
        let mut entries = Vec::new();
        for method in self.services.methods() {
            let input_schema = schema::input_schema(method).map_err(ServerBuildError::Schema)?;
            let output = schema::output(method);
            let output_schema = match &output {
                Output::Structured(schema) | Output::Wrapped(schema) => Some(schema.clone()),
                _ => None,
            };
            let idempotent = method.is_idempotent().then_some(ToolAnnotations {
                idempotent_hint: Some(true),
                ..ToolAnnotations::default()
            });
            let tool = Tool {
                name: method.name().to_owned(),
                title: None,
                description: description(method.documentation()),
                input_schema,
                output_schema,
                annotations: idempotent,
                icons: None,
                meta: None,
            };
            entries.push(Entry {
                tool,
                output,
                mirrored: Vec::new(),
            });
        }
        let by_name: HashMap<String, usize> = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| (entry.tool.name.clone(), index))
            .collect();
        for (name, annotations) in self.annotations {
            let index = *by_name
                .get(&name)
                .ok_or(ServerBuildError::UnknownTool(name))?;
            let tool = &mut entries[index].tool;
            tool.title = tool.title.take().or_else(|| annotations.title.clone());
            tool.annotations = Some(annotations);
        }
        for (name, schema) in self.input_schemas {
            let index = *by_name
                .get(&name)
                .ok_or(ServerBuildError::UnknownTool(name))?;
            entries[index].tool.input_schema = schema;
        }
        for (name, argument, header) in self.mirror_headers {
            let index = *by_name
                .get(&name)
                .ok_or_else(|| ServerBuildError::UnknownTool(name.clone()))?;
            let property = entries[index]
                .tool
                .input_schema
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(&argument))
                .and_then(serde_json::Value::as_object_mut)
                .ok_or_else(|| {
                    ServerBuildError::MirroredHeader(name, format!("no argument `{argument}`"))
                })?;
            property.insert(mirrored::KEYWORD.into(), header.into());
        }
        for entry in &mut entries {
            entry.mirrored = mirrored::of_schema(&entry.tool.input_schema)
                .map_err(|why| ServerBuildError::MirroredHeader(entry.tool.name.clone(), why))?;
        }
        Ok(ToolSet {
            router: self.services.router()?,
            entries,
            by_name,
        })
    }
}

/// A tool's description: its doc comment, without the leading spaces
/// rustdoc keeps on each line.
pub(crate) fn description(docs: &str) -> Option<String> {
    let text: Vec<&str> = docs
        .lines()
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    let text = text.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

impl ToolSet {
    /// The tools, in the order their traits declare them.
    pub(crate) fn tools(&self) -> impl ExactSizeIterator<Item = &Tool> {
        self.entries.iter().map(|entry| &entry.tool)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The arguments of the tool `name` mirrored into headers.
    pub(crate) fn mirrored(&self, name: &str) -> &[Mirrored] {
        self.by_name
            .get(name)
            .map_or(&[], |&index| &self.entries[index].mirrored)
    }

    /// Runs the tool `name` with `arguments` for the request `call` (in
    /// the context `cx`). A bad argument, an unknown tool, and a host
    /// call the client lacks the capability for are errors; a failure of
    /// the tool itself is a result with `isError`.
    pub(crate) async fn call(
        &self,
        cx: &Context,
        call: &Arc<RequestContext>,
        name: &str,
        arguments: Option<&RawValue>,
    ) -> Result<CallToolResult, ErrorObject> {
        let Some(&index) = self.by_name.get(name) else {
            return Err(error::unknown("tool", name));
        };
        let reply = call_method(&self.router, cx, call, name, arguments).await;
        if let Some(failure) = call.host_failure() {
            return Err(failure);
        }
        match reply {
            Ok(result) => Ok(into_result(&self.entries[index].output, result.get())),
            Err(err) if err.code() == code::INVALID_PARAMS => Err(err),
            Err(err) => Ok(CallToolResult::error(err.message())),
        }
    }
}

/// Calls `method` of `router` with `params`, in a copy of `cx` that carries
/// `call` for the handler: its result, or its error object.
pub(crate) async fn call_method(
    router: &Router,
    cx: &Context,
    call: &Arc<RequestContext>,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Box<RawValue>, ErrorObject> {
    let mut inner = cx.clone();
    inner.extensions_mut().insert(call.clone());
    let message = request_text(method, params);
    let Some(reply) = router.handle_with(message.as_bytes(), &inner).await else {
        return Err(ErrorObject::internal_error());
    };
    let response: Response<'_> =
        serde_json::from_str(&reply).map_err(|_| ErrorObject::internal_error())?;
    response.into_result().map(ToOwned::to_owned)
}

/// The text of the request calling `method` with `params`.
fn request_text(method: &str, params: Option<&RawValue>) -> String {
    let params = params.map(RawValue::get);
    let mut text = String::with_capacity(64 + method.len() + params.map_or(0, str::len));
    text.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"#);
    text.push_str(&serde_json::to_string(method).unwrap_or_default());
    if let Some(params) = params {
        text.push_str(r#","params":"#);
        text.push_str(params);
    }
    text.push('}');
    text
}

/// The `tools/call` result of a tool's `result` (its JSON text).
fn into_result(output: &Output, result: &str) -> CallToolResult {
    match output {
        Output::Passthrough => serde_json::from_str(result).unwrap_or_else(|err| {
            CallToolResult::error(format!("the tool's result is malformed: {err}"))
        }),
        Output::Text => match serde_json::from_str::<String>(result) {
            Ok(text) => CallToolResult::text(text),
            Err(_) => CallToolResult::text(result),
        },
        Output::Empty => CallToolResult::new(Vec::new()),
        Output::Structured(_) => CallToolResult {
            content: vec![ContentBlock::text(result)],
            structured_content: serde_json::from_str(result).ok(),
            ..CallToolResult::default()
        },
        Output::Wrapped(_) => CallToolResult {
            content: vec![ContentBlock::text(result)],
            structured_content: serde_json::from_str(result)
                .ok()
                .map(|value: serde_json::Value| serde_json::json!({ "result": value })),
            ..CallToolResult::default()
        },
        Output::Json => CallToolResult::text(result),
    }
}
