//! `tally.evaluate`: every open document, one at a time, slowly, with work-done progress.

use std::time::Duration;

use lsp_types::{
    ExecuteCommandParams, MessageType, ProgressParams, ProgressParamsValue, ProgressToken,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressCreateParams, WorkDoneProgressEnd,
    WorkDoneProgressReport,
};
use serde_json::{Value, json};
use typed_rpc::{CancelPolicy, Context, ErrorObject, RpcResult, code};

use super::TallyServer;

/// The command's name.
pub(super) const EVALUATE: &str = "tally.evaluate";

/// How long each document takes unless the call says (`{"delayMs": n}`).
const DEFAULT_DELAY: Duration = Duration::from_millis(200);

/// The longest a call may ask each document to take.
const MAX_DELAY: Duration = Duration::from_secs(10);

impl TallyServer {
    /// Runs `tally.evaluate`: reports progress on the token the editor
    /// gave, or on one the server creates when the editor shows progress;
    /// ends early, answered `-32800`, if the editor cancels the request or
    /// the user cancels the progress.
    pub(super) async fn evaluate(
        &self,
        cx: &Context,
        params: ExecuteCommandParams,
    ) -> RpcResult<Option<Value>> {
        if params.command != EVALUATE {
            let message = format!(
                "unknown command `{}`; this server has `{EVALUATE}`",
                params.command
            );
            return Err(ErrorObject::new(code::INVALID_PARAMS, message));
        }
        let delay = delay(params.arguments.first())?;
        let token = match params.work_done_progress_params.work_done_token {
            Some(token) => Some(token),
            None => self.create_token().await,
        };
        let session = &self.state.session;
        let progress = Progress {
            server: self,
            token,
        };
        let mut user_cancelled = match &progress.token {
            Some(token) => session.watch_progress(token),
            None => tokio::sync::watch::channel(false).1,
        };
        let documents = self.state.documents.all();
        let total = documents.len();
        progress.begin(total).await;
        let work = async {
            let mut evaluated = Vec::with_capacity(total);
            for (done, (uri, document)) in documents.into_iter().enumerate() {
                tokio::time::sleep(delay).await;
                let analysis = crate::tally::Analysis::of(document.text());
                let settings = self.settings();
                let results: Vec<Value> = analysis
                    .results
                    .iter()
                    .map(|(_, value)| {
                        value.map_or(Value::Null, |value| settings.show(value).into())
                    })
                    .collect();
                evaluated.push(json!({ "uri": uri.as_str(), "version": document.version(), "results": results }));
                progress.report(uri.as_str(), done + 1, total).await;
            }
            evaluated
        };
        let outcome = tokio::select! {
            evaluated = work => Ok(evaluated),
            // The grace period lets the progress end before the answer.
            () = cx.cancelled() => Err(()),
            _ = user_cancelled.wait_for(|cancelled| *cancelled) => Err(()),
        };
        let answer = match outcome {
            Ok(evaluated) => {
                progress.end(format!("evaluated {total} documents")).await;
                Ok(Some(json!({ "documents": evaluated })))
            }
            Err(()) => {
                progress.end("cancelled".to_owned()).await;
                Err(ErrorObject::new(
                    CancelPolicy::LSP_REQUEST_CANCELLED,
                    "Request cancelled",
                ))
            }
        };
        if let Some(token) = &progress.token {
            session.end_progress(token);
        }
        answer
    }

    /// A token made with `window/workDoneProgress/create`, when the editor shows progress.
    async fn create_token(&self) -> Option<ProgressToken> {
        let session = &self.state.session;
        let editor = session.editor().filter(|_| session.shows_progress())?;
        let token = session.new_token();
        let created = editor
            .create_progress(WorkDoneProgressCreateParams {
                token: token.clone(),
            })
            .await;
        match created {
            Ok(()) => Some(token),
            Err(err) => {
                let line = format!("window/workDoneProgress/create failed: {err}");
                session.log(MessageType::WARNING, line).await;
                None
            }
        }
    }
}

/// The time each document takes, from the command's first argument.
fn delay(argument: Option<&Value>) -> RpcResult<Duration> {
    let Some(asked) = argument.and_then(|argument| argument.get("delayMs")) else {
        return Ok(DEFAULT_DELAY);
    };
    match asked.as_u64().map(Duration::from_millis) {
        Some(delay) if delay <= MAX_DELAY => Ok(delay),
        _ => Err(ErrorObject::new(
            code::INVALID_PARAMS,
            format!(
                "`delayMs` must be a whole number of milliseconds up to {}",
                MAX_DELAY.as_millis()
            ),
        )),
    }
}

/// One progress, reported on its token (nothing without one).
struct Progress<'a> {
    server: &'a TallyServer,
    token: Option<ProgressToken>,
}

impl Progress<'_> {
    async fn begin(&self, total: usize) {
        self.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: "Evaluating Tally files".to_owned(),
            cancellable: Some(true),
            message: Some(format!("{total} documents")),
            percentage: Some(0),
        }))
        .await;
    }

    async fn report(&self, message: &str, done: usize, total: usize) {
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(true),
            message: Some(message.to_owned()),
            percentage: Some((done * 100 / total.max(1)) as u32),
        }))
        .await;
    }

    async fn end(&self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(message),
        }))
        .await;
    }

    async fn send(&self, value: WorkDoneProgress) {
        let (Some(token), Some(editor)) = (&self.token, self.server.state.session.editor()) else {
            return;
        };
        let params = ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        };
        let _ = editor.progress(params).await;
    }
}
