//! What an event does to a task, and what a read copies of it: the rules
//! every [`TaskStore`](super::TaskStore) shares, each costing the size of
//! the event (or of what is read), never of the whole task.

use super::store::{TaskEvent, TaskView};
use crate::types::{Artifact, Part, PartContent, Task};

impl TaskEvent {
    /// Applies the event to `task`, the task it belongs to. `Created`
    /// starts a task rather than changing one: it replaces `task` whole.
    pub fn apply_to(&self, task: &mut Task) {
        match self {
            TaskEvent::Created(created) => *task = created.clone(),
            TaskEvent::Message(message) => {
                task.history
                    .get_or_insert_with(Vec::new)
                    .push(message.clone());
            }
            TaskEvent::Status(update) => {
                task.status = update.status.clone();
                if let Some(message) = &update.status.message {
                    task.history
                        .get_or_insert_with(Vec::new)
                        .push(message.clone());
                }
            }
            TaskEvent::Artifact(update) => {
                let artifacts = task.artifacts.get_or_insert_with(Vec::new);
                let existing = artifacts
                    .iter_mut()
                    .find(|a| a.artifact_id == update.artifact.artifact_id);
                match existing {
                    Some(existing) if update.append => extend(existing, &update.artifact),
                    Some(existing) => *existing = update.artifact.clone(),
                    None => artifacts.push(update.artifact.clone()),
                }
            }
        }
    }
}

/// Appends `chunk` to `artifact`: a text part that continues a text part
/// of the same kind is added to its text, so streamed text is stored as
/// one part; other parts are added as they are. Metadata members are
/// merged; a name or description fills one the artifact lacks.
fn extend(artifact: &mut Artifact, chunk: &Artifact) {
    for part in &chunk.parts {
        match (artifact.parts.last_mut(), &part.content) {
            (Some(last), PartContent::Text(more)) if continues(last, part) => {
                if let PartContent::Text(text) = &mut last.content {
                    text.push_str(more);
                }
            }
            _ => artifact.parts.push(part.clone()),
        }
    }
    if artifact.name.is_none() {
        artifact.name.clone_from(&chunk.name);
    }
    if artifact.description.is_none() {
        artifact.description.clone_from(&chunk.description);
    }
    if let Some(metadata) = &chunk.metadata {
        let merged = artifact.metadata.get_or_insert_with(Default::default);
        merged.extend(metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for extension in &chunk.extensions {
        if !artifact.extensions.contains(extension) {
            artifact.extensions.push(extension.clone());
        }
    }
}

/// `part` is text that reads on from `last`: both text, of one media type
/// and file, the new one without metadata of its own.
fn continues(last: &Part, part: &Part) -> bool {
    matches!(last.content, PartContent::Text(_))
        && last.media_type == part.media_type
        && last.filename == part.filename
        && part.metadata.is_none()
}

impl TaskView {
    /// A copy of `task` with only what the view asks for: the history's
    /// tail and the artifacts are copied only when kept.
    pub fn copy_of(&self, task: &Task) -> Task {
        let history = match (self.history_length, &task.history) {
            (Some(0), _) | (_, None) => None,
            (None, Some(history)) => Some(history.clone()),
            (Some(n), Some(history)) => Some(history[history.len().saturating_sub(n)..].to_vec()),
        };
        let artifacts = if self.without_artifacts {
            None
        } else {
            task.artifacts.clone()
        };
        Task {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            artifacts,
            history,
            metadata: task.metadata.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{
        Message, Role, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
    };

    fn task() -> Task {
        Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: Some(vec![Message::text(Role::User, "m0", "upper abc")]),
            metadata: None,
        }
    }

    fn chunk(text: &str, append: bool) -> TaskEvent {
        TaskEvent::Artifact(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact {
                artifact_id: "upper".into(),
                name: Some("result".into()),
                description: None,
                parts: vec![Part::text(text)],
                metadata: None,
                extensions: Vec::new(),
            },
            append,
            last_chunk: false,
            metadata: None,
        })
    }

    #[test]
    fn appended_text_chunks_become_one_part_and_a_new_first_chunk_replaces_them() {
        let mut task = task();
        for (text, append) in [("AB", false), ("CD", true), ("E", true)] {
            chunk(text, append).apply_to(&mut task);
        }
        let artifacts = task.artifacts.as_ref().unwrap();
        assert_eq!(artifacts.len(), 1);
        assert_eq!(artifacts[0].parts, [Part::text("ABCDE")]);
        chunk("Z", false).apply_to(&mut task);
        assert_eq!(task.artifacts.unwrap()[0].parts, [Part::text("Z")]);
    }

    #[test]
    fn a_part_of_another_kind_is_kept_apart() {
        let mut task = task();
        chunk("text", false).apply_to(&mut task);
        let mut data = chunk("", true);
        if let TaskEvent::Artifact(update) = &mut data {
            update.artifact.parts = vec![Part {
                content: PartContent::Data(serde_json::json!({"n": 1})),
                ..Part::text("")
            }];
        }
        data.apply_to(&mut task);
        chunk("more", true).apply_to(&mut task);
        let parts = &task.artifacts.unwrap()[0].parts;
        assert_eq!(parts.len(), 3, "{parts:?}");
    }

    #[test]
    fn a_status_message_joins_the_history_and_a_view_copies_only_what_it_keeps() {
        let mut task = task();
        let said = Message::text(Role::Agent, "m1", "working");
        TaskEvent::Status(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: Some(said.clone()),
                timestamp: None,
            },
            metadata: None,
        })
        .apply_to(&mut task);
        chunk("X", false).apply_to(&mut task);
        assert_eq!(task.status.state, TaskState::Completed);
        let view = TaskView {
            history_length: Some(1),
            without_artifacts: true,
        };
        let seen = view.copy_of(&task);
        assert_eq!(seen.history, Some(vec![said]));
        assert!(seen.artifacts.is_none());
        let none = TaskView {
            history_length: Some(0),
            ..TaskView::default()
        };
        assert!(none.copy_of(&task).history.is_none());
        assert_eq!(TaskView::default().copy_of(&task), task);
    }
}
