//! A server useful on its own: the files of one directory, as tools (list,
//! read, search), resources (with subscriptions to their changes) and
//! prompts (review a file, summarize a directory).
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`Files`]: the directory, paths inside it, walking it, watching files |
//! | `tools.rs` | the [`FileTools`] trait and its tools |
//! | `resources.rs` | the files as resources, and path completion |
//! | `prompts.rs` | the [`FilePrompts`] trait |

mod prompts;
mod resources;
mod tools;

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use typed_rpc::{ErrorObject, code};

pub use prompts::{FilePrompts, FilePromptsClient};
pub use tools::{Entry, FileTools, FileToolsClient, Listing, Match, SearchResult};

use crate::server::{Builder, Notifier};

/// The most files a listing or a search walks.
const MAX_FILES: usize = 10_000;

/// How often watched files are looked at for changes.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);

/// The files of one directory. Cheap to clone.
#[derive(Clone)]
pub struct Files {
    inner: Arc<Inner>,
}

struct Inner {
    root: PathBuf,
    notifier: Notifier,
    /// The files clients subscribed to, and when each last changed.
    watched: Mutex<HashMap<PathBuf, Option<SystemTime>>>,
}

impl Files {
    /// The files under `root`, which must be a directory; changes of
    /// watched files are told through `notifier`.
    pub fn new(root: impl AsRef<Path>, notifier: Notifier) -> io::Result<Self> {
        let root = std::fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "the root is not a directory",
            ));
        }
        Ok(Files {
            inner: Arc::new(Inner {
                root,
                notifier,
                watched: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Adds the directory's tools, resources, prompts and path completion
    /// to a server's `builder`.
    pub fn serve(&self, builder: Builder) -> Builder {
        builder
            .tools(FileTools::into_service(self.clone()))
            .prompts(FilePrompts::into_service(self.clone()))
            .resources(self.clone())
            .completer(self.clone())
            .notifier(self.inner.notifier.clone())
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The file or directory `path` names, relative to the root (a leading
    /// `/` is the root too); `-32602` when it does not exist or lies
    /// outside the root, through `..` or a symbolic link.
    pub(crate) fn resolve(&self, path: &str) -> Result<PathBuf, ErrorObject> {
        let relative = Path::new(path.trim_start_matches('/'));
        if relative
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
        {
            return Err(bad_path(path, "`..` may not leave the directory"));
        }
        let joined = self.inner.root.join(relative);
        let resolved = std::fs::canonicalize(&joined)
            .map_err(|_| bad_path(path, "no such file or directory"))?;
        if !resolved.starts_with(&self.inner.root) {
            return Err(bad_path(path, "it lies outside the directory"));
        }
        Ok(resolved)
    }

    /// `path` relative to the root, with `/` between its parts.
    pub(crate) fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.inner.root).unwrap_or(path);
        let parts: Vec<_> = relative.iter().map(|part| part.to_string_lossy()).collect();
        parts.join("/")
    }

    /// The files under `dir`, in name order, at most [`MAX_FILES`].
    pub(crate) fn walk(&self, dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
            entries.sort_by_key(|entry| std::cmp::Reverse(entry.file_name()));
            for entry in entries {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    pending.push(entry.path());
                } else if kind.is_file() {
                    files.push(entry.path());
                    if files.len() == MAX_FILES {
                        return files;
                    }
                }
            }
        }
        files.sort();
        files
    }

    /// Starts telling of the changes of `file`, from a task that looks at
    /// the watched files every [`WATCH_INTERVAL`] while any is watched.
    pub(crate) fn watch(&self, file: PathBuf) {
        let modified = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        let mut watched = self.inner.watched.lock().unwrap_or_else(|p| p.into_inner());
        let first = watched.is_empty();
        watched.entry(file).or_insert(modified);
        if first && let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(watch_loop(Arc::downgrade(&self.inner)));
        }
    }

    /// The `file://` URI of `path`.
    pub(crate) fn uri(path: &Path) -> String {
        format!("file://{}", path.display())
    }

    /// The file a `file://` URI names, if it lies in the directory.
    pub(crate) fn file_of(&self, uri: &str) -> Option<PathBuf> {
        let path = uri.strip_prefix("file://")?;
        let path = std::fs::canonicalize(path).ok()?;
        (path.starts_with(&self.inner.root) && path.is_file()).then_some(path)
    }
}

/// Looks at the watched files until the directory is dropped.
async fn watch_loop(inner: std::sync::Weak<Inner>) {
    let mut ticks = tokio::time::interval(WATCH_INTERVAL);
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let mut changed = Vec::new();
        {
            let mut watched = inner.watched.lock().unwrap_or_else(|p| p.into_inner());
            for (file, seen) in watched.iter_mut() {
                let now = std::fs::metadata(file).and_then(|m| m.modified()).ok();
                if now != *seen {
                    *seen = now;
                    changed.push(file.clone());
                }
            }
        }
        for file in changed {
            inner.notifier.resource_updated(Files::uri(&file));
        }
    }
}

#[cold]
fn bad_path(path: &str, reason: &str) -> ErrorObject {
    ErrorObject::new(
        code::INVALID_PARAMS,
        format!("Invalid path `{path}`: {reason}"),
    )
    .with_data(&serde_json::json!({ "param": "path", "reason": reason }))
}

/// A guess at a file's media type from its name.
pub(crate) fn mime_type(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("txt" | "log") => "text/plain",
        Some("md") => "text/markdown",
        Some("rs") => "text/x-rust",
        Some("py") => "text/x-python",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        Some("yaml" | "yml") => "application/yaml",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        Some("csv") => "text/csv",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}
