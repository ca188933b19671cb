//! The directory's tools: list it, read a file, search the files.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_rpc::{Context, ErrorObject, RpcResult, code, rpc};

use super::Files;
use crate::server::McpContext;

/// The largest file `read_file` returns.
const MAX_READ: u64 = 1 << 20;
/// The most matches a search returns.
const MAX_MATCHES: usize = 200;

/// Tools over the files of one directory.
#[rpc]
pub trait FileTools {
    /// Lists a directory: its files and subdirectories, with the files' sizes.
    ///
    /// * `path` - the directory, relative to the root (the root when absent)
    #[method(name = "list_files", idempotent)]
    async fn list_files(&self, path: Option<String>) -> RpcResult<Listing>;

    /// Reads a text file (up to 1 MiB).
    ///
    /// * `path` - the file, relative to the root
    #[method(name = "read_file", idempotent)]
    async fn read_file(&self, path: String) -> RpcResult<String>;

    /// Searches the text files under a directory for lines containing a
    /// string, reporting progress file by file; a cancelled search stops.
    ///
    /// * `pattern` - the text to find (case-sensitive)
    /// * `path` - where to search, relative to the root (the root when absent)
    #[method(name = "search", idempotent)]
    async fn search(
        &self,
        #[context] cx: &Context,
        pattern: String,
        path: Option<String>,
    ) -> RpcResult<SearchResult>;
}

/// A directory's contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Listing {
    /// The directory, relative to the root.
    pub path: String,
    /// Its entries, in name order.
    pub entries: Vec<Entry>,
}

/// A file or directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// `file` or `directory`.
    pub kind: String,
    /// A file's size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    /// The matching lines, file by file (at most 200).
    pub matches: Vec<Match>,
    /// How many files were searched.
    pub files_searched: usize,
    /// Whether there were more matches than those returned.
    pub truncated: bool,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Match {
    /// The file, relative to the root.
    pub path: String,
    /// The line's number, from 1.
    pub line: usize,
    /// The line.
    pub text: String,
}

impl FileTools for Files {
    async fn list_files(&self, path: Option<String>) -> RpcResult<Listing> {
        let dir = self.resolve(path.as_deref().unwrap_or(""))?;
        let mut read = tokio::fs::read_dir(&dir)
            .await
            .map_err(|err| failed("list", &err))?;
        let mut entries = Vec::new();
        while let Some(entry) = read
            .next_entry()
            .await
            .map_err(|err| failed("list", &err))?
        {
            let Ok(meta) = entry.metadata().await else {
                continue;
            };
            entries.push(Entry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind: if meta.is_dir() { "directory" } else { "file" }.to_owned(),
                size: meta.is_file().then_some(meta.len()),
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Listing {
            path: self.relative(&dir),
            entries,
        })
    }

    async fn read_file(&self, path: String) -> RpcResult<String> {
        let file = self.resolve(&path)?;
        let meta = tokio::fs::metadata(&file)
            .await
            .map_err(|err| failed("read", &err))?;
        if !meta.is_file() {
            return Err(ErrorObject::new(
                code::INVALID_PARAMS,
                format!("`{path}` is not a file"),
            ));
        }
        if meta.len() > MAX_READ {
            return Err(ErrorObject::new(
                -32000,
                format!("`{path}` is larger than 1 MiB"),
            ));
        }
        let bytes = tokio::fs::read(&file)
            .await
            .map_err(|err| failed("read", &err))?;
        String::from_utf8(bytes)
            .map_err(|_| ErrorObject::new(-32000, format!("`{path}` is not text")))
    }

    async fn search(
        &self,
        cx: &Context,
        pattern: String,
        path: Option<String>,
    ) -> RpcResult<SearchResult> {
        if pattern.is_empty() {
            return Err(
                ErrorObject::new(code::INVALID_PARAMS, "The pattern is empty")
                    .with_data(&serde_json::json!({"param": "pattern", "reason": "empty"})),
            );
        }
        let dir = self.resolve(path.as_deref().unwrap_or(""))?;
        let files = self.walk(&dir);
        let total = files.len() as f64;
        let mcp = cx.mcp();
        let mut result = SearchResult {
            matches: Vec::new(),
            files_searched: 0,
            truncated: false,
        };
        for file in &files {
            // Each await is where a cancelled search stops.
            if let Ok(text) = tokio::fs::read_to_string(file).await {
                for (number, line) in text.lines().enumerate() {
                    if !line.contains(&pattern) {
                        continue;
                    }
                    if result.matches.len() == MAX_MATCHES {
                        result.truncated = true;
                        break;
                    }
                    result.matches.push(Match {
                        path: self.relative(file),
                        line: number + 1,
                        text: line.to_owned(),
                    });
                }
            }
            result.files_searched += 1;
            let message = format!("searched {}", self.relative(file));
            mcp.progress(result.files_searched as f64, Some(total), Some(&message))
                .await;
            if result.truncated {
                break;
            }
        }
        Ok(result)
    }
}

#[cold]
fn failed(what: &str, err: &std::io::Error) -> ErrorObject {
    ErrorObject::new(-32000, format!("Could not {what}: {err}"))
}
