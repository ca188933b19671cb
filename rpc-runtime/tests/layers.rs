//! The runtime's house rules, checked on its sources: no module imports a
//! layer above it, no file is over 600 lines, each file opens with a
//! `//!` line that says its job, and the router gates features only at
//! its modules' borders.
//!
//! The layers (see DESIGN.md): wire → params → router/service → connection
//! engine → transports → servers and clients. The core reaches the peer
//! through its own port (`context::Peer`), never by naming a transport.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 600;

/// Each core module, with the modules it must not import.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "wire",
        &[
            "transport",
            "client",
            "__private",
            "schema",
            "router",
            "context",
        ],
    ),
    (
        "params",
        &["transport", "client", "__private", "schema", "router"],
    ),
    (
        "metadata",
        &["transport", "client", "__private", "schema", "router"],
    ),
    ("context", &["transport", "client", "__private"]),
    ("streaming", &["transport", "client", "__private"]),
    ("service", &["transport", "client", "__private"]),
    ("router", &["transport", "client", "__private"]),
    ("cancel", &["transport", "client", "__private"]),
    ("middleware", &["transport", "client", "__private"]),
    ("client", &["__private"]),
];

/// Types the crate root re-exports from the modules above the core, which
/// `crate::Name` would reach without naming the module.
const UPPER_REEXPORTS: &[(&str, &str)] = &[("ClientError", "client"), ("CallError", "client")];

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The files of the top-level module `name`: `name.rs` and all under `name/`.
fn module_files(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let single = root.join(format!("{name}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let dir = root.join(name);
    if dir.is_dir() {
        files.extend(rust_files(&dir));
    }
    assert!(
        !files.is_empty(),
        "no module `{name}` under {}",
        root.display()
    );
    files
}

/// The code of `line`, without a trailing `//` comment; doc and plain
/// comment lines are empty.
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The modules of `forbidden` that `code` (the code of one line, maybe the
/// inside of a `use crate::{...}` group) imports.
fn imports<'a>(code: &str, in_crate_group: bool, forbidden: &[&'a str]) -> Vec<&'a str> {
    let mut found = Vec::new();
    for &module in forbidden {
        let path = format!("crate::{module}");
        let named = code.match_indices(&path).any(|(at, _)| {
            let next = code[at + path.len()..].chars().next();
            !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
        });
        let grouped = in_crate_group
            && code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == module);
        if named || grouped {
            found.push(module);
        }
    }
    for &(name, module) in UPPER_REEXPORTS {
        let path = format!("crate::{name}");
        let grouped = in_crate_group
            && code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name);
        if (code.contains(&path) || grouped) && forbidden.contains(&module) {
            found.push(module);
        }
    }
    found
}

/// Each line of `text` that imports a module of `forbidden`, as
/// `(line number, module, line)`.
fn upward_imports(text: &str, forbidden: &[&str]) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    // Inside a `use crate::{ ... }` that spans lines.
    let mut in_group = false;
    for (index, line) in text.lines().enumerate() {
        let code = code_of(line);
        let opens_group = code.contains("crate::{");
        let group = in_group || opens_group;
        for module in imports(code, group, forbidden) {
            found.push((index + 1, module.to_owned(), line.trim().to_owned()));
        }
        if opens_group && !code.contains('}') {
            in_group = true;
        } else if in_group && code.contains('}') {
            in_group = false;
        }
    }
    found
}

#[test]
fn no_core_module_imports_a_layer_above_it() {
    let root = source_root();
    let mut failures = Vec::new();
    for &(module, forbidden) in FORBIDDEN {
        for file in module_files(&root, module) {
            let text = fs::read_to_string(&file).unwrap();
            for (line, above, code) in upward_imports(&text, forbidden) {
                failures.push(format!(
                    "{}:{line}: `{module}` imports `{above}`, a layer above it: {code}",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "upward imports (reach the peer through `context::Peer`, or move the code up):\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_import() {
    let forbidden = &["transport", "client"];
    let text = "use std::sync::Arc;\nuse crate::transport::Connection;\n";
    assert_eq!(upward_imports(text, forbidden)[0].0, 2);
    let grouped = "use crate::{\n    Context,\n    client::Params,\n};\n";
    assert_eq!(upward_imports(grouped, forbidden)[0].0, 3);
    let reexport = "fn f() -> crate::ClientError { todo!() }\n";
    assert_eq!(upward_imports(reexport, forbidden)[0].1, "client");
    let fine = "/// See [`Connection`](crate::transport::Connection).\nuse crate::transports_of_mine;\nuse crate::wire::Id;\n";
    assert!(upward_imports(fine, forbidden).is_empty());
}

#[test]
fn every_source_file_is_short_and_says_its_job() {
    let root = source_root();
    let mut failures = Vec::new();
    for file in rust_files(&root) {
        let text = fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let lines = text.lines().count();
        if lines > MAX_LINES {
            failures.push(format!(
                "{name}: {lines} lines, over {MAX_LINES}: split it along its jobs"
            ));
        }
        let first = text.lines().next().unwrap_or_default();
        if !first.starts_with("//! ") || first.len() < 12 {
            failures.push(format!(
                "{name}: the first line is not a `//!` saying the file's job: {first:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The core modules whose types carry no feature gates inside: a feature
/// adds or swaps whole modules, in `cfg_*!` blocks at their borders.
const GATED_AT_BORDERS: &[&str] = &["router"];

#[test]
fn feature_gates_sit_at_module_borders() {
    let root = source_root();
    let mut failures = Vec::new();
    for &module in GATED_AT_BORDERS {
        for file in module_files(&root, module) {
            let text = fs::read_to_string(&file).unwrap();
            for (at, line) in text.lines().enumerate() {
                let code = code_of(line);
                if code.contains("cfg(feature") || code.contains("cfg(not(feature") {
                    failures.push(format!(
                        "{}:{}: {}",
                        file.strip_prefix(&root).unwrap().display(),
                        at + 1,
                        code.trim()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "feature gates inside a core module (gate the module in a `cfg_*!` block):\n{}",
        failures.join("\n")
    );
}
