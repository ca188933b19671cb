//! The example agent: a few text skills a person can watch work, with no
//! model and no network. The message's first text part picks the skill.

use std::time::Duration;

use crate::server::{AgentExecutor, EventSink, RequestContext, TurnEnded};
use crate::types::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState};

/// The characters of one artifact chunk of a short text.
const CHUNK_CHARS: usize = 8;

/// The most chunks one text makes: a longer text makes longer chunks.
const MAX_CHUNKS: usize = 256;

/// Time between two steps of `slow`.
const STEP: Duration = Duration::from_millis(100);

/// What the agent asks when it does not know what to do.
pub const QUESTION: &str = "what should I upper-case?";

/// The text agent: `hello`, `upper <words>`, `slow <n>`, and a question for anything else.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextAgent;

/// The text agent's card, for a JSON-RPC endpoint at `endpoint`.
pub fn card(endpoint: &str) -> AgentCard {
    let skill = |id: &str, description: &str, example: &str| AgentSkill {
        id: id.into(),
        name: id.into(),
        description: description.into(),
        tags: vec!["text".into()],
        examples: vec![example.into()],
        input_modes: Vec::new(),
        output_modes: Vec::new(),
    };
    AgentCard {
        name: "text agent".into(),
        description: "Greets, upper-cases text in streamed chunks, and counts slow steps.".into(),
        supported_interfaces: vec![AgentInterface {
            url: endpoint.into(),
            protocol_binding: "JSONRPC".into(),
            tenant: None,
            protocol_version: crate::PROTOCOL_VERSION.into(),
        }],
        provider: None,
        version: env!("CARGO_PKG_VERSION").into(),
        documentation_url: None,
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(false),
            extended_agent_card: Some(false),
            extensions: Vec::new(),
        },
        security_schemes: Default::default(),
        security_requirements: Vec::new(),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![
            skill(
                "hello",
                "Answers `hello` with a greeting, without a task.",
                "hello",
            ),
            skill(
                "upper",
                "Upper-cases the words after `upper`, as a streamed artifact.",
                "upper make me loud",
            ),
            skill(
                "slow",
                "Reports `n` steps, one every 100 ms; can be canceled.",
                "slow 5",
            ),
        ],
    }
}

/// The card an authenticated caller gets from `GetExtendedAgentCard`: the
/// public one, with who runs the agent and where its documentation is.
pub fn extended_card(endpoint: &str) -> AgentCard {
    AgentCard {
        description: format!(
            "{} This is the extended card, for authenticated callers.",
            card(endpoint).description
        ),
        provider: Some(crate::types::AgentProvider {
            url: "https://github.com/typed-rpc/typed-rpc".into(),
            organization: "typed-rpc examples".into(),
        }),
        documentation_url: Some(
            "https://github.com/typed-rpc/typed-rpc/tree/main/examples/a2a".into(),
        ),
        ..card(endpoint)
    }
}

/// The skill a text asks for.
enum Skill<'t> {
    Hello,
    Upper(&'t str),
    Slow(u32),
    Unclear,
}

fn skill(text: &str) -> Skill<'_> {
    if text == "hello" {
        return Skill::Hello;
    }
    if let Some(words) = text.strip_prefix("upper ") {
        return Skill::Upper(words);
    }
    match text.strip_prefix("slow ").map(|n| n.trim().parse()) {
        Some(Ok(steps)) => Skill::Slow(steps),
        _ => Skill::Unclear,
    }
}

impl AgentExecutor for TextAgent {
    async fn execute(&self, request: RequestContext, events: EventSink) {
        let text = request.message.first_text().unwrap_or_default();
        // An answer to our question is the text to upper-case.
        let asked = request
            .task
            .as_ref()
            .is_some_and(|t| t.status.state == TaskState::InputRequired);
        let done = match (asked, skill(text)) {
            (true, _) => upper(&events, text).await,
            (false, Skill::Hello) => events.reply("hello, I am the text agent").await,
            (false, Skill::Upper(words)) => upper(&events, words).await,
            (false, Skill::Slow(steps)) => slow(&events, steps).await,
            (false, Skill::Unclear) => {
                events
                    .status(TaskState::InputRequired, Some(QUESTION))
                    .await
            }
        };
        // A turn that has ended (canceled) takes no more events; nothing is left to do.
        let _: Result<(), TurnEnded> = done;
    }
}

async fn upper(events: &EventSink, words: &str) -> Result<(), TurnEnded> {
    events
        .status(TaskState::Working, Some("upper-casing"))
        .await?;
    let loud = words.to_uppercase();
    let chunks = chunks(&loud);
    for (i, chunk) in chunks.iter().enumerate() {
        events
            .text_chunk("upper", "result", chunk, i > 0, i + 1 == chunks.len())
            .await?;
    }
    events.status(TaskState::Completed, None).await
}

/// `text` in chunks of [`CHUNK_CHARS`] characters, or of as many more as
/// keep them to [`MAX_CHUNKS`]; one empty chunk for an empty text.
fn chunks(text: &str) -> Vec<&str> {
    let chars = text.chars().count();
    let size = CHUNK_CHARS.max(chars.div_ceil(MAX_CHUNKS));
    let mut chunks = Vec::with_capacity(chars.div_ceil(size).max(1));
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .nth(size)
            .map_or(rest.len(), |(at, _)| at);
        let (chunk, after) = rest.split_at(end);
        chunks.push(chunk);
        rest = after;
    }
    if chunks.is_empty() {
        chunks.push("");
    }
    chunks
}

async fn slow(events: &EventSink, steps: u32) -> Result<(), TurnEnded> {
    for step in 1..=steps {
        tokio::time::sleep(STEP).await;
        events
            .status(TaskState::Working, Some(&format!("step {step} of {steps}")))
            .await?;
    }
    events.status(TaskState::Completed, None).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_chunk_by_eight_and_long_ones_in_at_most_256_chunks() {
        assert_eq!(chunks("ABCDEFGHIJ"), ["ABCDEFGH", "IJ"]);
        assert_eq!(chunks(""), [""]);
        assert_eq!(chunks("ÄÖÜ"), ["ÄÖÜ"]);
        let long = "x".repeat(1_000_000);
        let long_chunks = chunks(&long);
        assert_eq!(long_chunks.len(), 256);
        assert_eq!(long_chunks.concat(), long);
        assert_eq!(chunks(&"y".repeat(2048)).len(), 256);
        assert_eq!(chunks(&"y".repeat(2049)).len(), 228);
    }
}
