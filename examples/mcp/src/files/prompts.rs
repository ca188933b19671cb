//! The directory's prompts: review a file, summarize a directory.

use typed_rpc::{ErrorObject, RpcResult, rpc};

use super::Files;
use crate::types::{ContentBlock, PromptMessage, ResourceContents, Role};

/// Prompts over the files of one directory.
#[rpc]
pub trait FilePrompts {
    /// Asks the model to review a file, its contents attached.
    ///
    /// * `path` - the file, relative to the root
    #[method(name = "review_file")]
    async fn review_file(&self, path: String) -> RpcResult<Vec<PromptMessage>>;

    /// Asks the model to summarize a directory from its list of files.
    ///
    /// * `path` - the directory, relative to the root (the root when absent)
    #[method(name = "summarize_directory")]
    async fn summarize_directory(&self, path: Option<String>) -> RpcResult<String>;
}

impl FilePrompts for Files {
    async fn review_file(&self, path: String) -> RpcResult<Vec<PromptMessage>> {
        let file = self.resolve(&path)?;
        let text = tokio::fs::read_to_string(&file).await.map_err(|_| {
            ErrorObject::new(-32000, format!("`{path}` is not a readable text file"))
        })?;
        let contents =
            ResourceContents::text(Files::uri(&file), Some(super::mime_type(&file)), text);
        Ok(vec![
            PromptMessage {
                role: Role::User,
                content: ContentBlock::resource(contents),
            },
            PromptMessage::text(
                Role::User,
                format!(
                    "Please review `{path}` above: point out bugs, unclear parts and what to improve."
                ),
            ),
        ])
    }

    async fn summarize_directory(&self, path: Option<String>) -> RpcResult<String> {
        let dir = self.resolve(path.as_deref().unwrap_or(""))?;
        let files: Vec<String> = self
            .walk(&dir)
            .iter()
            .map(|file| self.relative(file))
            .collect();
        Ok(format!(
            "Summarize what the directory `{}` holds, from its {} files:\n{}",
            self.relative(&dir),
            files.len(),
            files.join("\n")
        ))
    }
}
