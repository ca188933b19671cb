//! An agent for the A2A TCK (`a2aproject/a2a-tck`): it answers the suite's
//! scenarios, which pick their behaviour by the `messageId`'s prefix, as
//! the TCK's own reference agent does. `text-agent --tck` serves it.

use std::time::Duration;

use crate::server::{AgentExecutor, EventSink, RequestContext, TurnEnded};
use crate::types::{Artifact, Part, PartContent, TaskState};

/// How long the resubscribe scenario's task works.
const RESUBSCRIBE_WORK: Duration = Duration::from_secs(4);

/// The TCK's scenario agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct TckAgent;

/// What a scenario does, in order.
enum Step {
    Work,
    Wait(Duration),
    Artifact(Part, bool, bool),
    Status(TaskState, Option<String>),
    Reply(&'static str),
}

fn text(text: &str) -> Part {
    Part::text(text)
}

fn file(content: PartContent) -> Part {
    Part {
        content,
        media_type: Some("text/plain".into()),
        filename: Some("output.txt".into()),
        metadata: None,
    }
}

fn artifact(part: Part) -> Step {
    Step::Artifact(part, false, false)
}

const DONE: Step = Step::Status(TaskState::Completed, None);

/// The steps of the scenario `message_id` names. Longer prefixes come
/// before the shorter ones they start with.
fn scenario(message_id: &str) -> Vec<Step> {
    let raw = || file(PartContent::Raw("dGNr".into())); // b"tck"
    let starts = |prefix: &str| message_id.starts_with(prefix);
    if starts("tck-stream-artifact-chunked") {
        vec![
            Step::Work,
            Step::Artifact(text("chunk-1 "), true, false),
            Step::Artifact(text("chunk-2"), true, true),
            DONE,
        ]
    } else if starts("test-resubscribe-message-id") {
        vec![Step::Work, Step::Wait(RESUBSCRIBE_WORK), DONE]
    } else if starts("tck-stream-artifact-text") {
        vec![Step::Work, artifact(text("Streamed text content")), DONE]
    } else if starts("tck-stream-artifact-file") {
        vec![Step::Work, artifact(raw()), DONE]
    } else if starts("tck-stream-ordering-001") {
        vec![Step::Work, artifact(text("Ordered output")), DONE]
    } else if starts("tck-artifact-file-url") {
        let url = file(PartContent::Url("https://example.com/output.txt".into()));
        vec![artifact(url), DONE]
    } else if starts("tck-message-response") {
        vec![Step::Reply("Direct message response")]
    } else if starts("tck-input-required") {
        vec![Step::Status(TaskState::InputRequired, None)]
    } else if starts("tck-complete-task") {
        vec![Step::Status(
            TaskState::Completed,
            Some("Hello from TCK".into()),
        )]
    } else if starts("tck-artifact-text") {
        vec![artifact(text("Generated text content")), DONE]
    } else if starts("tck-artifact-file") {
        vec![artifact(raw()), DONE]
    } else if starts("tck-artifact-data") {
        let data = serde_json::json!({"key": "value", "count": 42});
        vec![
            artifact(Part {
                content: PartContent::Data(data),
                ..text("")
            }),
            DONE,
        ]
    } else if starts("tck-reject-task") {
        vec![Step::Status(TaskState::Rejected, Some("rejected".into()))]
    } else if starts("tck-stream-001") {
        vec![Step::Work, artifact(text("Stream hello from TCK")), DONE]
    } else if starts("tck-stream-002") {
        vec![DONE]
    } else if starts("tck-stream-003") {
        vec![Step::Work, artifact(text("Stream task lifecycle")), DONE]
    } else {
        let echo = format!("Unhandled messageId prefix: {message_id}");
        vec![Step::Status(TaskState::Completed, Some(echo))]
    }
}

impl AgentExecutor for TckAgent {
    async fn execute(&self, request: RequestContext, events: EventSink) {
        let _: Result<(), TurnEnded> = run(scenario(&request.message.message_id), &events).await;
    }
}

async fn run(steps: Vec<Step>, events: &EventSink) -> Result<(), TurnEnded> {
    let mut artifacts = 0;
    for step in steps {
        match step {
            Step::Work => events.status(TaskState::Working, None).await?,
            Step::Wait(time) => tokio::time::sleep(time).await,
            Step::Artifact(part, append, last_chunk) => {
                // Chunks that append extend one artifact; others are each their own.
                if !append {
                    artifacts += 1;
                }
                let artifact = Artifact {
                    artifact_id: format!("artifact-{}", artifacts.max(1)),
                    name: None,
                    description: None,
                    parts: vec![part],
                    metadata: None,
                    extensions: Vec::new(),
                };
                events.artifact(artifact, append, last_chunk).await?
            }
            Step::Status(state, text) => events.status(state, text.as_deref()).await?,
            Step::Reply(text) => events.reply(text).await?,
        }
    }
    Ok(())
}
