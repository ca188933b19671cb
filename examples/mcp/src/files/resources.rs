//! The directory's files as resources (`file://` URIs, text or base64
//! blobs), with subscriptions to their changes, and completion of the
//! prompts' `path` arguments.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use typed_rpc::{Context, RpcResult};

use super::{Files, mime_type};
use crate::server::{Completer, Resources};
use crate::types::{
    BlobResourceContents, CompleteParams, Completion, Reference, Resource, ResourceContents,
};

/// The most values a completion returns.
const MAX_COMPLETIONS: usize = 100;

impl Resources for Files {
    async fn list(&self, _cx: &Context) -> RpcResult<Vec<Resource>> {
        let files = Files::walk(self, self.root());
        Ok(files
            .iter()
            .map(|file| {
                let mut resource = Resource::new(Files::uri(file), self.relative(file));
                resource.mime_type = Some(mime_type(file).to_owned());
                resource.size = std::fs::metadata(file).ok().map(|m| m.len());
                resource
            })
            .collect())
    }

    async fn read(&self, _cx: &Context, uri: &str) -> RpcResult<Option<Vec<ResourceContents>>> {
        let Some(file) = self.file_of(uri) else {
            return Ok(None);
        };
        let Ok(bytes) = tokio::fs::read(&file).await else {
            return Ok(None);
        };
        let mime = mime_type(&file);
        let contents = match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(uri, Some(mime), text),
            Err(err) => ResourceContents::Blob(BlobResourceContents {
                uri: uri.to_owned(),
                mime_type: Some(mime.to_owned()),
                blob: STANDARD.encode(err.into_bytes()),
                meta: None,
            }),
        };
        Ok(Some(vec![contents]))
    }

    fn subscribable(&self) -> bool {
        true
    }

    fn subscribed(&self, uri: &str) {
        if let Some(file) = self.file_of(uri) {
            self.watch(file);
        }
    }
}

impl Completer for Files {
    /// Completes `path` arguments with the files whose path starts with
    /// what was typed.
    async fn complete(&self, _cx: &Context, params: &CompleteParams) -> RpcResult<Completion> {
        let is_path =
            params.argument.name == "path" && matches!(params.reference, Reference::Prompt { .. });
        if !is_path {
            return Ok(Completion::default());
        }
        let typed = params.argument.value.trim_start_matches('/');
        let matching: Vec<String> = Files::walk(self, self.root())
            .iter()
            .map(|file| self.relative(file))
            .filter(|path| path.starts_with(typed))
            .collect();
        let total = matching.len();
        Ok(Completion {
            values: matching.into_iter().take(MAX_COMPLETIONS).collect(),
            total: Some(total as u64),
            has_more: Some(total > MAX_COMPLETIONS),
        })
    }
}
