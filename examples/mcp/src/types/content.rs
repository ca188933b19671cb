//! Content blocks: what tool results, prompt messages and sampling carry.

use serde::{Deserialize, Serialize};

use super::{Meta, Resource};

/// Who a message is from, or who content is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (or the client on its behalf).
    User,
    /// The model.
    Assistant,
}

/// Hints on how content is meant to be used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How much it matters, from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When it last changed (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// Text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints on its use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An image or a sound, base64-encoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// The bytes, in base64.
    pub data: String,
    /// Their media type (`image/png`, `audio/wav`).
    pub mime_type: String,
    /// Hints on its use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The contents of a resource: text, or bytes in base64.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text(TextResourceContents),
    /// Bytes.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The text contents `text` of `uri`, of media type `mime_type`.
    pub fn text(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            text: text.into(),
            meta: None,
        })
    }

    /// The URI the contents are of.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(text) => &text.uri,
            ResourceContents::Blob(blob) => &blob.uri,
        }
    }
}

/// Text contents of a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource.
    pub uri: String,
    /// Its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Binary contents of a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource.
    pub uri: String,
    /// Its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes, in base64.
    pub blob: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A resource's contents carried in a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Hints on its use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One block of content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(MediaContent),
    /// A sound.
    Audio(MediaContent),
    /// A link to a resource the client may read.
    ResourceLink(Resource),
    /// A resource's contents.
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An image block of base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An audio block of base64 `data`.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// A block carrying a resource's contents.
    pub fn resource(contents: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource {
            resource: contents,
            annotations: None,
            meta: None,
        })
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(text) => Some(&text.text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_tagged_by_type() {
        let blocks = vec![
            ContentBlock::text("hi"),
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::resource(ResourceContents::text("file:///a", Some("text/plain"), "x")),
        ];
        let json = serde_json::to_string(&blocks).unwrap();
        assert_eq!(
            json,
            r#"[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"x"}}]"#
        );
        let back: Vec<ContentBlock> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, blocks);
        let link: ContentBlock =
            serde_json::from_str(r#"{"type":"resource_link","uri":"file:///b","name":"b"}"#)
                .unwrap();
        assert!(matches!(link, ContentBlock::ResourceLink(resource) if resource.name == "b"));
    }
}
