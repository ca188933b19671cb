//! The server's changes, told to the sessions and listeners that want them:
//! its lists of tools, prompts and resources, and each resource's contents.

use tokio::sync::broadcast;

/// How many changes a slow session may fall behind before it misses some.
const BACKLOG: usize = 256;

/// A change a client may want to hear of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The tools changed: `notifications/tools/list_changed`.
    ToolsListChanged,
    /// The prompts changed: `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// The resources changed: `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// A resource's contents changed: `notifications/resources/updated`.
    ResourceUpdated(String),
}

impl Change {
    /// The notification that tells of it.
    pub fn method(&self) -> &'static str {
        match self {
            Change::ToolsListChanged => "notifications/tools/list_changed",
            Change::PromptsListChanged => "notifications/prompts/list_changed",
            Change::ResourcesListChanged => "notifications/resources/list_changed",
            Change::ResourceUpdated(_) => "notifications/resources/updated",
        }
    }
}

/// Tells a server's clients of its changes: every classic session with a
/// way to hear (the stdio connection, the Streamable HTTP session's `GET`
/// stream) and every 2026-07-28 `subscriptions/listen` whose filter asks.
/// Cheap to clone; a resource provider keeps one to say when a resource
/// changes.
///
/// ```
/// use typed_rpc_mcp::server::{Change, Notifier};
///
/// let notifier = Notifier::new();
/// let mut changes = notifier.subscribe();
/// notifier.resource_updated("file:///notes.txt");
/// assert_eq!(changes.try_recv().unwrap(), Change::ResourceUpdated("file:///notes.txt".into()));
/// ```
#[derive(Clone, Debug)]
pub struct Notifier {
    changes: broadcast::Sender<Change>,
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier::new()
    }
}

impl Notifier {
    /// A notifier nobody listens to yet.
    pub fn new() -> Self {
        Notifier {
            changes: broadcast::channel(BACKLOG).0,
        }
    }

    /// Tells of `change`.
    pub fn notify(&self, change: Change) {
        // Nobody listening is not an error.
        let _ = self.changes.send(change);
    }

    /// Tells that the resource at `uri` changed.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.notify(Change::ResourceUpdated(uri.into()));
    }

    /// The changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }
}
