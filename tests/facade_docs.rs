//! The facade's pages read right: they name no internal crate, and the
//! README leads to every chapter of the guide.
//!
//! The docs of `rpc-runtime` and `rpc-macros` are shown on the facade's
//! pages (`pub use rpc_runtime::*`): their text and examples speak of
//! `typed_rpc::`, as a user's code does, never of the internal crates.
//! (Their examples compile as doctests against the facade; this test keeps
//! the words that doctests do not compile, such as prose and `ignore`d
//! blocks, in step.)

use std::path::Path;

/// Every doc comment line of the `.rs` files under `dir`, and every line of
/// its `.md` files, that names an internal crate by path, as
/// `file:line: text`.
fn internal_paths(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            internal_paths(&path, found);
            continue;
        }
        if path
            .extension()
            .is_none_or(|ext| ext != "rs" && ext != "md")
        {
            continue;
        }
        // The guide's chapters are Markdown files included as docs.
        let is_markdown = path.extension().is_some_and(|ext| ext == "md");
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            let is_doc = is_markdown || line.starts_with("///") || line.starts_with("//!");
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

/// The guide's chapters, as their file names under `src/guide`.
fn guide_chapters(root: &Path) -> Vec<String> {
    let mut chapters: Vec<String> = std::fs::read_dir(root.join("src/guide"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".md"))
        .collect();
    chapters.sort();
    chapters
}

#[test]
fn the_readme_is_a_front_page_that_leads_to_every_chapter_of_the_guide() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 250,
        "README.md has {lines} lines: move the detail into src/guide"
    );
    let rustdoc_links = std::fs::read_to_string(root.join("src/readme_links.md")).unwrap();
    let index = std::fs::read_to_string(root.join("src/guide/mod.rs")).unwrap();
    let chapters = guide_chapters(root);
    assert!(chapters.len() >= 8, "{chapters:?}");
    for chapter in chapters {
        let module = chapter.trim_end_matches(".md");
        // On GitHub, the README links the file; in rustdoc, the module.
        let places = [
            (
                &readme,
                format!("]: src/guide/{chapter}"),
                "README.md does not link",
            ),
            (
                &rustdoc_links,
                format!("]: crate::guide::{module}\n"),
                "src/readme_links.md does not lead to",
            ),
            (
                &index,
                format!("include_str!(\"{chapter}\")"),
                "src/guide/mod.rs does not include",
            ),
            (
                &index,
                format!("[`{module}`]"),
                "the guide's index does not list",
            ),
        ];
        for (text, mention, what) in places {
            assert!(text.contains(&mention), "{what} {chapter}");
        }
    }
}

#[test]
fn the_readme_and_the_crate_docs_define_the_same_link_labels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let labels = |text: &str| -> Vec<String> {
        let mut labels: Vec<String> = text
            .lines()
            .filter_map(|line| line.strip_prefix('[')?.split_once("]: "))
            .map(|(label, _)| label.to_owned())
            .collect();
        labels.sort();
        labels
    };
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let rustdoc_links = std::fs::read_to_string(root.join("src/readme_links.md")).unwrap();
    // A label only the README defines would lead docs.rs readers to a file
    // path that is not there.
    assert_eq!(labels(&readme), labels(&rustdoc_links));
}
