//! What the handler checks of a request's params before any work starts,
//! each refusal a `-32602` naming the param at fault.

use super::limits::{TaskLimits, message_size};
use crate::error::A2aError;
use crate::types::{Message, Role};

/// The page size of `ListTasks` when the caller gives none, and the most it may ask for.
const DEFAULT_PAGE_SIZE: u32 = 50;
const MAX_PAGE_SIZE: u32 = 100;

/// A client's `message`, checked: an id, at least one part, the user's
/// role, and no more content than `limits` take. Its content, in bytes.
pub(crate) fn check_message(message: &Message, limits: &TaskLimits) -> Result<usize, A2aError> {
    if message.message_id.trim().is_empty() {
        return Err(A2aError::invalid_params(
            "message.messageId",
            "a message needs an id (a UUID, say)",
        ));
    }
    if message.parts.is_empty() {
        return Err(A2aError::invalid_params(
            "message.parts",
            "a message needs at least one part",
        ));
    }
    if message.role != Role::User {
        return Err(A2aError::invalid_params(
            "message.role",
            "a client's message has the role ROLE_USER; ROLE_AGENT is the agent's",
        ));
    }
    let size = message_size(message);
    if size > limits.max_message_bytes {
        return Err(A2aError::invalid_params(
            "message.parts",
            &format!(
                "the message carries {size} bytes of content; this agent takes at most {}",
                limits.max_message_bytes
            ),
        ));
    }
    Ok(size)
}

/// `historyLength` as a count, refused below 0.
pub(crate) fn history_length(value: Option<i32>, param: &str) -> Result<Option<usize>, A2aError> {
    match value {
        None => Ok(None),
        Some(n) => usize::try_from(n)
            .map(Some)
            .map_err(|_| A2aError::invalid_params(param, "must be 0 or more")),
    }
}

/// `pageSize`: 50 when not given, refused outside 1..=100.
pub(crate) fn page_size(value: Option<i32>) -> Result<u32, A2aError> {
    let Some(size) = value else {
        return Ok(DEFAULT_PAGE_SIZE);
    };
    u32::try_from(size)
        .ok()
        .filter(|size| (1..=MAX_PAGE_SIZE).contains(size))
        .ok_or_else(|| {
            A2aError::invalid_params(
                "pageSize",
                &format!("must be from 1 to {MAX_PAGE_SIZE} (50 when not given)"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(error: A2aError) -> String {
        error.info().unwrap().metadata["param"].clone()
    }

    #[test]
    fn a_message_is_refused_naming_what_is_wrong() {
        let limits = TaskLimits::default().max_message_bytes(5);
        let ok = Message::text(Role::User, "m", "hello");
        assert_eq!(check_message(&ok, &limits).unwrap(), 5);
        let refused = |message: Message| param(check_message(&message, &limits).unwrap_err());
        assert_eq!(
            refused(Message {
                message_id: " ".into(),
                ..ok.clone()
            }),
            "message.messageId"
        );
        assert_eq!(
            refused(Message {
                parts: Vec::new(),
                ..ok.clone()
            }),
            "message.parts"
        );
        assert_eq!(
            refused(Message {
                role: Role::Agent,
                ..ok.clone()
            }),
            "message.role"
        );
        assert_eq!(
            refused(Message::text(Role::User, "m", "hello!")),
            "message.parts"
        );
    }

    #[test]
    fn page_size_and_history_length_are_checked() {
        assert_eq!(page_size(None).unwrap(), 50);
        assert_eq!(page_size(Some(1)).unwrap(), 1);
        assert_eq!(page_size(Some(100)).unwrap(), 100);
        for bad in [0, -1, 101] {
            assert_eq!(param(page_size(Some(bad)).unwrap_err()), "pageSize");
        }
        assert_eq!(history_length(Some(0), "h").unwrap(), Some(0));
        assert_eq!(history_length(None, "h").unwrap(), None);
        assert_eq!(
            param(history_length(Some(-1), "historyLength").unwrap_err()),
            "historyLength"
        );
    }
}
