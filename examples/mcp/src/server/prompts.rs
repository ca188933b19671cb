//! Prompts from `#[rpc]` traits: each method a prompt, its doc comment the
//! description, its (string) params the arguments, its result the
//! messages (a string is one user message).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;
use typed_rpc::{Context, ErrorObject, Router, RpcService, code};

use super::request::RequestContext;
use super::schema::{self, Output};
use super::services::Services;
use super::tools::{ServerBuildError, call_method, description};
use crate::error;
use crate::types::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};

struct Entry {
    prompt: Prompt,
    output: Output,
}

/// The prompts of a server, and the router that fills them in.
pub(crate) struct PromptSet {
    router: Router,
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

/// Prompt services, gathered by the server's builder.
#[derive(Default)]
pub(crate) struct PromptsBuilder {
    services: Services,
}

impl PromptsBuilder {
    pub(crate) fn add(&mut self, service: impl RpcService) {
        self.services.add(service);
    }

    pub(crate) fn build(self) -> Result<PromptSet, ServerBuildError> {
        let mut entries = Vec::new();
        for method in self.services.methods() {
            let schema = schema::input_schema(method).map_err(ServerBuildError::Schema)?;
            let prompt = Prompt {
                name: method.name().to_owned(),
                title: None,
                description: description(method.documentation()),
                arguments: Some(arguments(&schema)),
                icons: None,
                meta: None,
            };
            entries.push(Entry {
                prompt,
                output: schema::output(method),
            });
        }
        let by_name = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| (entry.prompt.name.clone(), index))
            .collect();
        Ok(PromptSet {
            router: self.services.router()?,
            entries,
            by_name,
        })
    }
}

/// A prompt's arguments: the properties of its input schema.
fn arguments(schema: &serde_json::Map<String, Value>) -> Vec<PromptArgument> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            title: None,
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            required: Some(required.contains(&name.as_str())),
        })
        .collect()
}

impl PromptSet {
    /// The prompts, in the order their traits declare them.
    pub(crate) fn prompts(&self) -> impl ExactSizeIterator<Item = &Prompt> {
        self.entries.iter().map(|entry| &entry.prompt)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Fills in the prompt `name` with `arguments`.
    pub(crate) async fn get(
        &self,
        cx: &Context,
        call: &Arc<RequestContext>,
        name: &str,
        arguments: Option<&BTreeMap<String, String>>,
    ) -> Result<GetPromptResult, ErrorObject> {
        let Some(&index) = self.by_name.get(name) else {
            return Err(error::unknown("prompt", name));
        };
        let arguments = arguments
            .map(serde_json::value::to_raw_value)
            .transpose()
            .map_err(|_| ErrorObject::invalid_params())?;
        let reply = call_method(&self.router, cx, call, name, arguments.as_deref()).await;
        if let Some(failure) = call.host_failure() {
            return Err(failure);
        }
        let entry = &self.entries[index];
        match reply {
            Ok(result) => into_result(&entry.output, &result, &entry.prompt),
            Err(err) if err.code() == code::INVALID_PARAMS => Err(err),
            Err(err) => Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                err.message().to_owned(),
            )),
        }
    }
}

/// The `prompts/get` result of a prompt's `result`.
fn into_result(
    output: &Output,
    result: &RawValue,
    prompt: &Prompt,
) -> Result<GetPromptResult, ErrorObject> {
    let malformed = |err: serde_json::Error| {
        ErrorObject::new(
            code::INTERNAL_ERROR,
            format!("the prompt's result is malformed: {err}"),
        )
    };
    let mut result = match output {
        Output::Passthrough => serde_json::from_str(result.get()).map_err(malformed)?,
        Output::Text => {
            let text: String = serde_json::from_str(result.get()).map_err(malformed)?;
            GetPromptResult::new(vec![PromptMessage::text(Role::User, text)])
        }
        _ => match serde_json::from_str::<Vec<PromptMessage>>(result.get()) {
            Ok(messages) => GetPromptResult::new(messages),
            Err(_) => GetPromptResult::new(vec![PromptMessage::text(Role::User, result.get())]),
        },
    };
    if result.description.is_none() {
        result.description = prompt.description.clone();
    }
    Ok(result)
}
