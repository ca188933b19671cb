//! What a server may ask of the host: a sample of its model
//! (`sampling/createMessage`), an answer from its user
//! (`elicitation/create`), and its roots (`roots/list`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{MediaContent, Meta, Role, TextContent};

/// One block of a sampling message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingContent {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(MediaContent),
    /// A sound.
    Audio(MediaContent),
    /// The model calls a tool the server offered it.
    ToolUse(ToolUse),
    /// The answer of such a tool call.
    ToolResult(Map<String, Value>),
}

/// A model's call of a tool, in sampling with tools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// Names the call, for its result.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub input: Map<String, Value>,
}

/// A sampling message's content: one block or several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContents {
    /// One block.
    One(SamplingContent),
    /// Several blocks.
    Many(Vec<SamplingContent>),
}

impl SamplingContents {
    /// The text of the first text block.
    pub fn text(&self) -> Option<&str> {
        fn first_text(block: &SamplingContent) -> Option<&str> {
            match block {
                SamplingContent::Text(text) => Some(&text.text),
                _ => None,
            }
        }
        match self {
            SamplingContents::One(block) => first_text(block),
            SamplingContents::Many(blocks) => blocks.iter().find_map(first_text),
        }
    }
}

/// A message of a conversation to sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContents,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A text message from `role`.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        SamplingMessage {
            role,
            content: SamplingContents::One(SamplingContent::Text(TextContent {
                text: text.into(),
                annotations: None,
                meta: None,
            })),
            meta: None,
        }
    }
}

/// A model the server would like, by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A name or part of one (`claude`, `sonnet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What the server values in a model, each from 0 to 1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Models it would like, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// The params of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The longest answer wanted, in tokens.
    pub max_tokens: u32,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which models suit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Where to stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Context to include (`none`; the others are deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Provider-specific data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may call (sampling with tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    /// Whether and how it must call them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageParams {
    /// A request to answer `messages` in at most `max_tokens`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u32) -> Self {
        CreateMessageParams {
            messages,
            max_tokens,
            system_prompt: None,
            model_preferences: None,
            temperature: None,
            stop_sequences: None,
            include_context: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            meta: None,
        }
    }
}

/// The result of `sampling/createMessage`: the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who says it (the assistant).
    pub role: Role,
    /// What it says.
    pub content: SamplingContents,
    /// The model that answered.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The params of `elicitation/create`: a form for the user to fill in, or
/// (`mode: "url"`) a page for the user to visit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `form` (the default when absent) or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to tell the user.
    pub message: String,
    /// The form: a flat object schema of primitive fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Map<String, Value>>,
    /// The page, in URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Names a URL-mode elicitation (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitParams {
    /// A form asking `message`, its fields described by `requested_schema`.
    pub fn form(message: impl Into<String>, requested_schema: Map<String, Value>) -> Self {
        ElicitParams {
            mode: None,
            message: message.into(),
            requested_schema: Some(requested_schema),
            url: None,
            elicitation_id: None,
            meta: None,
        }
    }
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Answered (`content` holds the answer).
    Accept,
    /// Refused.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The answer, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A directory or file the host lets the server work in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// Where it is (a `file://` URI).
    pub uri: String,
    /// A name to show people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `roots/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
