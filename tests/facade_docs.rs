//! The docs of `rpc-runtime` and `rpc-macros` are shown on the facade's
//! pages (`pub use rpc_runtime::*`): their text and examples speak of
//! `typed_rpc::`, as a user's code does, never of the internal crates.
//! (Their examples compile as doctests against the facade; this test keeps
//! the words that doctests do not compile, such as prose and `ignore`d
//! blocks, in step.)

use std::path::Path;

/// Every doc comment line of the `.rs` files under `dir` that names an
/// internal crate by path, as `file:line: text`.
fn internal_paths(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            internal_paths(&path, found);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            let is_doc = line.starts_with("///") || line.starts_with("//!");
            if is_doc && (line.contains("rpc_runtime") || line.contains("rpc_macros")) {
                found.push(format!("{}:{}: {line}", path.display(), number + 1));
            }
        }
    }
}

#[test]
fn the_facades_pages_name_no_internal_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in ["rpc-runtime/src", "rpc-macros/src", "src"] {
        internal_paths(&root.join(dir), &mut found);
    }
    assert!(
        found.is_empty(),
        "docs that name an internal crate:\n{}",
        found.join("\n")
    );
}
