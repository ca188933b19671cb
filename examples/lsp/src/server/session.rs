//! The session with one editor: what it can do, its settings for Tally, and the calls back to it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use lsp_types::{
    ClientCapabilities, ConfigurationItem, ConfigurationParams, LogMessageParams, MessageType,
    NumberOrString, ProgressToken, PublishDiagnosticsParams, Uri,
};
use serde_json::Value;
use tokio::sync::watch;
use typed_rpc::Context;
use typed_rpc::transport::Connection;

use super::lock;
use crate::protocol::EditorClient;
use crate::tally::{Analyzed, Settings};

/// What the server knows of its editor.
#[derive(Default)]
pub(super) struct Session {
    /// The editor, on the connection `initialize` came on (none in-process).
    editor: OnceLock<EditorClient<Connection>>,
    /// The editor answers `workspace/configuration`.
    fetches_settings: AtomicBool,
    /// The editor shows work-done progress the server starts.
    shows_progress: AtomicBool,
    settings: Mutex<Settings>,
    /// The progress tokens this server made, counted.
    tokens: AtomicU64,
    /// The progresses running, by token, to be cancelled by the user.
    progresses: Mutex<HashMap<String, watch::Sender<bool>>>,
}

impl Session {
    /// Takes in what `initialize` says of the editor.
    pub(super) fn start(&self, cx: &Context, client: &ClientCapabilities) {
        if let Some(connection) = cx.connection() {
            let _ = self.editor.set(EditorClient::new(connection.clone()));
        }
        let workspace = client.workspace.as_ref();
        let fetches = workspace.and_then(|workspace| workspace.configuration) == Some(true);
        self.fetches_settings.store(fetches, Ordering::Relaxed);
        let window = client.window.as_ref();
        let progress = window.and_then(|window| window.work_done_progress) == Some(true);
        self.shows_progress.store(progress, Ordering::Relaxed);
    }

    pub(super) fn editor(&self) -> Option<&EditorClient<Connection>> {
        self.editor.get()
    }

    pub(super) fn settings(&self) -> Settings {
        *lock(&self.settings)
    }

    pub(super) fn can_fetch_settings(&self) -> bool {
        self.fetches_settings.load(Ordering::Relaxed)
    }

    pub(super) fn shows_progress(&self) -> bool {
        self.shows_progress.load(Ordering::Relaxed)
    }

    /// Asks the editor for the `tally` section and takes it in; returns
    /// whether the settings changed. An editor that cannot be asked, or
    /// fails to answer, leaves them as they are.
    pub(super) async fn fetch_settings(&self) -> bool {
        let Some(editor) = self.editor().filter(|_| self.can_fetch_settings()) else {
            return false;
        };
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("tally".to_owned()),
        }];
        match editor.configuration(ConfigurationParams { items }).await {
            Ok(sections) => {
                let section = sections.into_iter().next().unwrap_or_default();
                self.apply_settings(&section).await
            }
            Err(err) => {
                self.log(
                    MessageType::WARNING,
                    format!("workspace/configuration failed: {err}"),
                )
                .await;
                false
            }
        }
    }

    /// Takes in a `tally` settings section, logging what it made of it;
    /// returns whether the settings changed.
    pub(super) async fn apply_settings(&self, section: &Value) -> bool {
        let (settings, problems) = Settings::from_json(section);
        for problem in problems {
            self.log(MessageType::WARNING, problem).await;
        }
        let before = std::mem::replace(&mut *lock(&self.settings), settings);
        let unused = match settings.unused_warnings {
            true => "on",
            false => "off",
        };
        let line = format!(
            "settings: precision {}, unused warnings {unused}",
            settings.precision
        );
        self.log(MessageType::INFO, line).await;
        before != settings
    }

    /// A line in the editor's log for this server, and on stderr.
    pub(super) async fn log(&self, kind: MessageType, message: String) {
        eprintln!("tally-lsp: {message}");
        if let Some(editor) = self.editor() {
            let _ = editor
                .log_message(LogMessageParams { typ: kind, message })
                .await;
        }
    }

    /// Publishes the diagnostics of one version of a document.
    pub(super) async fn publish(&self, uri: Uri, analyzed: &Analyzed) {
        let diagnostics = analyzed.diagnostics(&uri, &self.settings());
        let version = Some(analyzed.document.version());
        self.send_diagnostics(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        })
        .await;
    }

    /// Empties a closed document's diagnostics.
    pub(super) async fn clear(&self, uri: Uri) {
        self.send_diagnostics(PublishDiagnosticsParams {
            uri,
            diagnostics: Vec::new(),
            version: None,
        })
        .await;
    }

    async fn send_diagnostics(&self, params: PublishDiagnosticsParams) {
        if let Some(editor) = self.editor() {
            // The editor gone is the connection ending: nothing to do.
            let _ = editor.publish_diagnostics(params).await;
        }
    }

    /// A token for a progress this server starts.
    pub(super) fn new_token(&self) -> ProgressToken {
        let number = self.tokens.fetch_add(1, Ordering::Relaxed) + 1;
        NumberOrString::String(format!("tally-{number}"))
    }

    /// Registers a running progress: the receiver turns `true` if the user cancels it.
    pub(super) fn watch_progress(&self, token: &ProgressToken) -> watch::Receiver<bool> {
        let (cancel, cancelled) = watch::channel(false);
        lock(&self.progresses).insert(token_key(token), cancel);
        cancelled
    }

    /// Forgets a progress that has ended.
    pub(super) fn end_progress(&self, token: &ProgressToken) {
        lock(&self.progresses).remove(&token_key(token));
    }

    /// `window/workDoneProgress/cancel`: the user cancelled a progress.
    pub(super) fn cancel_progress(&self, token: &ProgressToken) {
        if let Some(cancel) = lock(&self.progresses).get(&token_key(token)) {
            cancel.send_replace(true);
        }
    }
}

fn token_key(token: &ProgressToken) -> String {
    match token {
        NumberOrString::Number(number) => format!("#{number}"),
        NumberOrString::String(text) => text.clone(),
    }
}
