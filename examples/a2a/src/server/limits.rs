//! How much a message and a task may hold, and how their content is weighed.

use serde::Serialize;

use crate::types::{Message, Part, PartContent};

/// The most content a message may carry by default: 2 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 2 * 1024 * 1024;

/// The most content a task may hold by default (its history and its
/// artifacts together): 16 MiB.
pub const DEFAULT_MAX_TASK_BYTES: usize = 16 * 1024 * 1024;

/// Bounds on what a caller and an agent may make a server keep, so that a
/// huge input is refused at once with a clear error rather than slowly
/// accepted, and no task grows without end.
///
/// Content is weighed as the bytes of the parts: a text's UTF-8 bytes, a
/// `raw` part's base64 text, a URL, a `data` value and any `metadata` as
/// JSON.
///
/// - A `SendMessage` (or `SendStreamingMessage`) whose message carries more
///   than [`max_message_bytes`](Self::max_message_bytes) is refused with
///   `-32602`, naming `message.parts`; so is a message that would take the
///   task it continues past [`max_task_bytes`](Self::max_task_bytes).
/// - An agent whose status message or artifact would take its task past
///   `max_task_bytes` has the task failed, with a status message saying
///   so; its turn ends.
///
/// The HTTP layer's own limit on a request body (10 MiB by default) comes
/// first: a body over it is refused `413` before it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskLimits {
    pub(crate) max_message_bytes: usize,
    pub(crate) max_task_bytes: usize,
}

impl Default for TaskLimits {
    /// [`DEFAULT_MAX_MESSAGE_BYTES`] and [`DEFAULT_MAX_TASK_BYTES`].
    fn default() -> Self {
        TaskLimits {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_task_bytes: DEFAULT_MAX_TASK_BYTES,
        }
    }
}

impl TaskLimits {
    /// The most content one message may carry.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// The most content one task may hold, history and artifacts together.
    pub fn max_task_bytes(mut self, bytes: usize) -> Self {
        self.max_task_bytes = bytes;
        self
    }
}

/// The content of `message`: its parts and its metadata.
pub(crate) fn message_size(message: &Message) -> usize {
    parts_size(&message.parts) + message.metadata.as_ref().map_or(0, json_size)
}

/// The content of `parts`.
pub(crate) fn parts_size(parts: &[Part]) -> usize {
    parts.iter().map(part_size).sum()
}

fn part_size(part: &Part) -> usize {
    let content = match &part.content {
        PartContent::Text(text) | PartContent::Raw(text) | PartContent::Url(text) => text.len(),
        PartContent::Data(value) => json_size(value),
    };
    content + part.metadata.as_ref().map_or(0, json_size)
}

/// The length of `value` as JSON, counted without writing it anywhere.
fn json_size(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter fails only for values JSON cannot hold, never ours.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Role;

    #[test]
    fn content_is_the_bytes_of_the_parts_and_metadata() {
        let mut message = Message::text(Role::User, "m", "héllo");
        assert_eq!(message_size(&message), 6);
        message.parts.push(Part {
            content: PartContent::Data(serde_json::json!({"a": 1})),
            ..Part::text("")
        });
        message.metadata = Some(serde_json::Map::from_iter([("k".into(), "v".into())]));
        assert_eq!(message_size(&message), 6 + 7 + 9);
    }
}
