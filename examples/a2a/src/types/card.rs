//! The Agent Card: what an agent is, where it listens and what it can do.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The agent's self-description, served at `/.well-known/agent-card.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The agent's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Where and how it is reached; the first entry is preferred.
    #[serde(alias = "supported_interfaces")]
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// The agent's version.
    pub version: String,
    /// Where its documentation is.
    #[serde(
        default,
        alias = "documentation_url",
        skip_serializing_if = "Option::is_none"
    )]
    pub documentation_url: Option<String>,
    /// The optional protocol features it supports.
    pub capabilities: AgentCapabilities,
    /// The authentication schemes it accepts, by name.
    #[serde(
        default,
        alias = "security_schemes",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Which schemes a caller must satisfy (any one requirement of the list).
    #[serde(
        default,
        alias = "security_requirements",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Media types it accepts.
    #[serde(alias = "default_input_modes")]
    pub default_input_modes: Vec<String>,
    /// Media types it answers with.
    #[serde(alias = "default_output_modes")]
    pub default_output_modes: Vec<String>,
    /// What it can do.
    pub skills: Vec<AgentSkill>,
}

impl AgentCard {
    /// The URL of the first JSON-RPC interface that speaks A2A 1.0.
    pub fn jsonrpc_url(&self) -> Option<&str> {
        self.supported_interfaces
            .iter()
            .find(|i| {
                i.protocol_binding == "JSONRPC" && i.protocol_version == crate::PROTOCOL_VERSION
            })
            .map(|i| i.url.as_str())
    }
}

/// One way to reach the agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// The endpoint.
    pub url: String,
    /// `JSONRPC`, `GRPC` or `HTTP+JSON`.
    #[serde(alias = "protocol_binding")]
    pub protocol_binding: String,
    /// The tenant to name in requests, if the endpoint serves several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The A2A version spoken there (`1.0`).
    #[serde(alias = "protocol_version")]
    pub protocol_version: String,
}

/// Who runs the agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentProvider {
    /// Their website.
    pub url: String,
    /// Their name.
    pub organization: String,
}

/// The optional protocol features an agent supports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `SendStreamingMessage` and `SubscribeToTask` are served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Task updates are pushed to the client's webhook.
    #[serde(
        default,
        alias = "push_notifications",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notifications: Option<bool>,
    /// `GetExtendedAgentCard` is served.
    #[serde(
        default,
        alias = "extended_agent_card",
        skip_serializing_if = "Option::is_none"
    )]
    pub extended_agent_card: Option<bool>,
    /// The protocol extensions it supports; a request must name those
    /// marked `required` in its `A2A-Extensions` header.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<AgentExtension>,
}

/// A protocol extension an agent supports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentExtension {
    /// The URI that names the extension (and its version).
    pub uri: String,
    /// How the agent uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A client must use it: a request that does not is refused (`-32008`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// The extension's own settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Something the agent can do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example requests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Media types it accepts, beyond the card's `defaultInputModes`.
    #[serde(default, alias = "input_modes", skip_serializing_if = "Vec::is_empty")]
    pub input_modes: Vec<String>,
    /// Media types it answers with, beyond the card's `defaultOutputModes`.
    #[serde(default, alias = "output_modes", skip_serializing_if = "Vec::is_empty")]
    pub output_modes: Vec<String>,
}

/// An authentication scheme, one member on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SecurityScheme {
    /// HTTP authentication (`Authorization: Bearer ...`).
    #[serde(alias = "http_auth_security_scheme")]
    HttpAuthSecurityScheme(HttpAuthSecurityScheme),
}

/// HTTP authentication, RFC 9110.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// The scheme, `bearer`.
    pub scheme: String,
    /// What the bearer token is (`JWT`, `opaque`).
    #[serde(
        default,
        alias = "bearer_format",
        skip_serializing_if = "Option::is_none"
    )]
    pub bearer_format: Option<String>,
    /// For people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Schemes that together authenticate a caller, by name, with their scopes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SecurityRequirement {
    /// Scheme name → scopes.
    pub schemes: BTreeMap<String, StringList>,
}

/// A list of strings, as proto JSON writes `repeated string` inside a map.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StringList {
    /// The strings.
    #[serde(default)]
    pub list: Vec<String>,
}
