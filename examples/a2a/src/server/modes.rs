//! Media types: what the agent takes and gives (its card's modes) against
//! what a message holds and what a client accepts.

use crate::error::A2aError;
use crate::types::{AgentCard, Message, Part, PartContent};

/// The media types of an agent's card: its defaults and its skills'.
#[derive(Clone, Debug, Default)]
pub(crate) struct Modes {
    input: Vec<String>,
    output: Vec<String>,
}

impl Modes {
    pub(crate) fn of(card: &AgentCard) -> Self {
        let gather = |defaults: &[String], of_skill: fn(&crate::types::AgentSkill) -> &[String]| {
            let mut modes: Vec<String> = defaults.to_vec();
            for mode in card.skills.iter().flat_map(of_skill) {
                if !modes.contains(mode) {
                    modes.push(mode.clone());
                }
            }
            modes
        };
        Modes {
            input: gather(&card.default_input_modes, |skill| &skill.input_modes),
            output: gather(&card.default_output_modes, |skill| &skill.output_modes),
        }
    }

    /// `-32005` for a message none of whose parts is of a media type the
    /// agent takes (a card that lists none takes any).
    pub(crate) fn check_input(&self, message: &Message) -> Result<(), A2aError> {
        if self.input.is_empty()
            || message
                .parts
                .iter()
                .any(|part| takes(&self.input, part_type(part)))
        {
            return Ok(());
        }
        let sent: Vec<&str> = message.parts.iter().map(part_type).collect();
        Err(A2aError::content_type_not_supported(&format!(
            "the message's parts are {}; this agent takes {}",
            sent.join(", "),
            self.input.join(", ")
        )))
    }

    /// `-32005` when the client accepts (`acceptedOutputModes`, when it
    /// lists any) none of the media types the agent answers with.
    pub(crate) fn check_output(&self, accepted: &[String]) -> Result<(), A2aError> {
        if accepted.is_empty()
            || self.output.is_empty()
            || accepted.iter().any(|mode| takes(&self.output, mode))
        {
            return Ok(());
        }
        Err(A2aError::content_type_not_supported(&format!(
            "the client accepts {}; this agent answers with {}",
            accepted.join(", "),
            self.output.join(", ")
        )))
    }
}

/// The media type of a part: its `mediaType`, else what its content is.
fn part_type(part: &Part) -> &str {
    match (&part.media_type, &part.content) {
        (Some(media_type), _) => media_type,
        (None, PartContent::Text(_)) => "text/plain",
        (None, PartContent::Data(_)) => "application/json",
        (None, PartContent::Raw(_) | PartContent::Url(_)) => "application/octet-stream",
    }
}

/// Whether one of `modes` and `media_type` meet: the same type and
/// subtype, each either side may leave open with `*`; parameters and case
/// do not count.
fn takes(modes: &[String], media_type: &str) -> bool {
    let Some((kind, sub)) = essence(media_type) else {
        return false;
    };
    modes.iter().filter_map(|mode| essence(mode)).any(|(k, s)| {
        (k == "*" || kind == "*" || k.eq_ignore_ascii_case(kind))
            && (s == "*" || sub == "*" || s.eq_ignore_ascii_case(sub))
    })
}

/// The type and subtype of a media type, without parameters.
fn essence(media_type: &str) -> Option<(&str, &str)> {
    let bare = media_type.split(';').next()?.trim();
    let (kind, sub) = bare.split_once('/')?;
    Some((kind.trim(), sub.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(input: &[&str], output: &[&str]) -> Modes {
        let owned = |list: &[&str]| list.iter().map(|m| m.to_string()).collect();
        Modes {
            input: owned(input),
            output: owned(output),
        }
    }

    fn image() -> Part {
        Part {
            content: PartContent::Raw("iVBO".into()),
            media_type: Some("image/png".into()),
            ..Part::text("")
        }
    }

    #[test]
    fn a_message_needs_one_part_the_agent_takes() {
        let text_only = modes(&["text/plain"], &[]);
        let mut message = Message::text(crate::types::Role::User, "m", "hi");
        assert!(text_only.check_input(&message).is_ok());
        message.parts = vec![image()];
        let refused = text_only.check_input(&message).unwrap_err();
        assert!(matches!(refused, A2aError::ContentTypeNotSupported(_)));
        message.parts.push(Part::text("and words"));
        assert!(text_only.check_input(&message).is_ok());
        message.parts = vec![image()];
        assert!(modes(&["image/*"], &[]).check_input(&message).is_ok());
        assert!(modes(&[], &[]).check_input(&message).is_ok());
    }

    #[test]
    fn accepted_output_modes_must_meet_the_agent_s() {
        let agent = modes(&[], &["text/plain"]);
        let accepted = |list: &[&str]| list.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        assert!(agent.check_output(&[]).is_ok());
        assert!(
            agent
                .check_output(&accepted(&["TEXT/plain; charset=utf-8"]))
                .is_ok()
        );
        assert!(agent.check_output(&accepted(&["text/*"])).is_ok());
        assert!(agent.check_output(&accepted(&["*/*"])).is_ok());
        assert!(
            agent
                .check_output(&accepted(&["image/png", "nonsense"]))
                .is_err()
        );
    }
}
