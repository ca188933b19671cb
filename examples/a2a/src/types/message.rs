//! Messages and their parts: what a user and an agent say to each other.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// The client, on behalf of its user.
    #[serde(rename = "ROLE_USER")]
    User,
    /// The agent.
    #[serde(rename = "ROLE_AGENT")]
    Agent,
}

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Identifies the message; a server de-duplicates retried sends on it.
    #[serde(alias = "message_id")]
    pub message_id: String,
    /// The conversation the message belongs to.
    #[serde(default, alias = "context_id", skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The task the message continues or belongs to.
    #[serde(default, alias = "task_id", skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Who sent it.
    pub role: Role,
    /// Its content.
    pub parts: Vec<Part>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// URIs of the extensions the message uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Other tasks the message refers to.
    #[serde(
        default,
        alias = "reference_task_ids",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub reference_task_ids: Vec<String>,
}

impl Message {
    /// A message of one text part.
    pub fn text(role: Role, message_id: impl Into<String>, text: impl Into<String>) -> Self {
        Message {
            message_id: message_id.into(),
            context_id: None,
            task_id: None,
            role,
            parts: vec![Part::text(text)],
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// The text of the first part, when it is a text part.
    pub fn first_text(&self) -> Option<&str> {
        match &self.parts.first()?.content {
            PartContent::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// A piece of content: exactly one of text, raw bytes, a URL or JSON data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "PartFields")]
pub struct Part {
    /// What the part holds.
    #[serde(flatten)]
    pub content: PartContent,
    /// The content's media type (`text/plain`, `image/png`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// A file name for the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part {
            content: PartContent::Text(text.into()),
            media_type: None,
            filename: None,
            metadata: None,
        }
    }
}

/// The content of a [`Part`], one member on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PartContent {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded as proto JSON writes them.
    Raw(String),
    /// A URL that points at the content.
    Url(String),
    /// Any JSON value.
    Data(Value),
}

/// A part as read, before the one-content rule is checked.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartFields {
    text: Option<String>,
    raw: Option<String>,
    url: Option<String>,
    // `Option<Value>` would read `"data": null` as absent; a present null is content.
    #[serde(default, deserialize_with = "present")]
    data: Option<Value>,
    #[serde(alias = "media_type")]
    media_type: Option<String>,
    filename: Option<String>,
    metadata: Option<Map<String, Value>>,
}

fn present<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(de).map(Some)
}

impl TryFrom<PartFields> for Part {
    type Error = String;

    fn try_from(fields: PartFields) -> Result<Self, String> {
        let mut contents = [
            fields.text.map(PartContent::Text),
            fields.raw.map(PartContent::Raw),
            fields.url.map(PartContent::Url),
            fields.data.map(PartContent::Data),
        ]
        .into_iter()
        .flatten();
        let content = contents
            .next()
            .ok_or("a part needs one of `text`, `raw`, `url` or `data`")?;
        if contents.next().is_some() {
            return Err("a part holds only one of `text`, `raw`, `url` or `data`".into());
        }
        Ok(Part {
            content,
            media_type: fields.media_type,
            filename: fields.filename,
            metadata: fields.metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_part_holds_exactly_one_content() {
        let part: Part =
            serde_json::from_value(json!({"text": "hi", "media_type": "text/plain"})).unwrap();
        assert_eq!(part.content, PartContent::Text("hi".into()));
        assert_eq!(
            serde_json::to_value(&part).unwrap(),
            json!({"text": "hi", "mediaType": "text/plain"})
        );
        let data: Part = serde_json::from_value(json!({"data": null})).unwrap();
        assert_eq!(data.content, PartContent::Data(Value::Null));
        assert!(serde_json::from_value::<Part>(json!({"text": "a", "url": "b"})).is_err());
        assert!(serde_json::from_value::<Part>(json!({"mediaType": "text/plain"})).is_err());
    }

    #[test]
    fn messages_read_snake_case_and_ignore_unknown_fields() {
        let message: Message = serde_json::from_value(json!({
            "message_id": "m1", "context_id": "c1", "role": "ROLE_USER",
            "parts": [{"text": "hello"}], "kind": "message"
        }))
        .unwrap();
        assert_eq!(message.context_id.as_deref(), Some("c1"));
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"messageId": "m1", "contextId": "c1", "role": "ROLE_USER", "parts": [{"text": "hello"}]})
        );
    }
}
