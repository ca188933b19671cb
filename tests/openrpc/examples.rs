//! The documents of `@open-rpc/examples`, each served by
//! `@open-rpc/mock-server` and called by a client `openrpc!` generated from it.
//!
//! The documents come from npm, so they exist only after `npm ci`: this test
//! cannot name them in an `openrpc!` of its own. It installs the pinned
//! packages (`tests/openrpc/npm/package-lock.json`) into
//! `tests/openrpc/npm/node_modules` when they are missing or stale, writes a
//! small crate in `<target>/openrpc-examples` with one `openrpc!` module per
//! document and a `main`
//! that calls every method, builds it with its own target directory (the
//! outer `cargo test` holds the lock of this one), starts one mock server
//! per document on loopback, runs the client and checks what it printed.
//!
//! Each call sends the params of the method's first example when it has
//! one, and the mock answers with that example's result, which must come
//! back unchanged through the generated types; a method without examples
//! is called with values made from its param schemas, and the mock answers
//! with data it makes from the result schema, which must decode. Node.js and
//! npm must be on `PATH`.

use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Map, Value, json};
use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::{paths, process};

/// The documents the issue names; every other one the package ships is
/// called too.
const REQUIRED: &[&str] = &["simple-math", "petstore", "link-example"];

/// Bounds on the slow steps: the first build of the client crate (it
/// compiles typed-rpc and its HTTP stack), a server's start, the client's
/// run.
const BUILD: Duration = Duration::from_secs(1200);
const START: Duration = Duration::from_secs(60);
const RUN: Duration = Duration::from_secs(120);

pub(super) fn repo() -> &'static Path {
    paths::workspace_root()
}

/// `<target>/openrpc-examples`, where the client crates are written and built.
pub(super) fn work_dir() -> PathBuf {
    paths::target_dir().join("openrpc-examples")
}

/// `tests/openrpc/npm` with its pinned packages installed: the example
/// documents, their mock server and MetaMask's document.
pub(super) fn installed() -> NodePackages {
    NodePackages::install(repo().join("tests/openrpc/npm")).unwrap()
}

/// A document of the package: its name (`simple-math`), path and content.
struct Document {
    name: String,
    path: PathBuf,
    doc: Value,
}

fn documents(npm_dir: &Path) -> Vec<Document> {
    let dir = npm_dir.join("node_modules/@open-rpc/examples/build/service-descriptions");
    let mut docs: Vec<Document> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let file = path.file_name()?.to_str()?;
            let name = file.strip_suffix("-openrpc.json")?.to_owned();
            let text = std::fs::read_to_string(&path).ok()?;
            let doc = serde_json::from_str(&text).expect("the package's documents are JSON");
            Some(Document { name, path, doc })
        })
        .collect();
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    docs
}

/// The words of a name as `openrpc!` splits them.
fn words(name: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            words.push(String::new());
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            words.push(String::new());
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        words.last_mut().unwrap().push(c);
    }
    words.retain(|w| !w.is_empty());
    words
}

pub(super) fn snake(name: &str) -> String {
    words(name).join("_").to_lowercase()
}

pub(super) fn camel(name: &str) -> String {
    words(name)
        .iter()
        .map(|w| w[..1].to_uppercase() + &w[1..].to_lowercase())
        .collect()
}

/// Follows `$ref`s inside `doc`.
fn follow<'a>(doc: &'a Value, mut value: &'a Value) -> &'a Value {
    while let Some(pointer) = value.get("$ref").and_then(Value::as_str) {
        value = doc
            .pointer(pointer.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("`$ref` {pointer} resolves"));
    }
    value
}

/// A value `schema` accepts, for a param no example gives.
fn sample(doc: &Value, schema: &Value) -> Value {
    let schema = follow(doc, schema);
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(key).and_then(|e| e.get(0)) {
            return sample(doc, first);
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in all {
            if let Value::Object(part) = sample(doc, part) {
                merged.extend(part);
            }
        }
        return Value::Object(merged);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer" | "number") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("null") => Value::Null,
        Some("object") | None if schema.get("properties").is_some() => {
            let required = schema["required"].as_array().cloned().unwrap_or_default();
            let object = required
                .iter()
                .filter_map(Value::as_str)
                .map(|name| (name.to_owned(), sample(doc, &schema["properties"][name])))
                .collect();
            Value::Object(object)
        }
        Some("object") => json!({}),
        _ => json!("x"),
    }
}

/// One call the client makes, and what must come back.
struct Call {
    document: String,
    method: String,
    rust: String,
    /// The result of the example whose params are sent, if any.
    expected: Option<Value>,
}

/// The Rust call of `method` and what it must return.
fn call_of(document: &Document, method: &Value, client: &str) -> Call {
    let doc = &document.doc;
    let method = follow(doc, method);
    let name = method["name"].as_str().expect("a method name");
    let params: Vec<&Value> = method["params"]
        .as_array()
        .map(|p| p.iter().map(|p| follow(doc, p)).collect())
        .unwrap_or_default();
    let example = method["examples"].get(0).map(|e| follow(doc, e));
    let values: Vec<Value> = params
        .iter()
        .enumerate()
        .map(|(i, param)| match example {
            Some(example) => follow(doc, &example["params"][i])["value"].clone(),
            None if param["required"] == true => sample(doc, &param["schema"]),
            None => Value::Null,
        })
        .collect();
    let by_name = method["paramStructure"] == "by-name";
    let identifiers = params.iter().all(|p| {
        let n = p["name"].as_str().unwrap_or_default();
        n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let args: Vec<String> = if by_name && !identifiers {
        let object: Map<String, Value> = params
            .iter()
            .zip(&values)
            .filter(|(_, v)| !v.is_null())
            .map(|(p, v)| (p["name"].as_str().unwrap().to_owned(), v.clone()))
            .collect();
        vec![format!("arg(r#\"{}\"#)", Value::Object(object))]
    } else {
        values.iter().map(|v| format!("arg(r#\"{v}\"#)")).collect()
    };
    let rust = format!(
        "report({:?}, {name:?}, {client}.{}({}).await);",
        document.name,
        snake(name),
        args.join(", ")
    );
    Call {
        document: document.name.clone(),
        method: name.to_owned(),
        rust,
        expected: example.map(|e| follow(doc, &e["result"])["value"].clone()),
    }
}

/// The client crate's `main.rs`: a module per document, a call per method;
/// the mock servers' URLs come as arguments, in the documents' order.
fn client_main(docs: &[Document]) -> (String, Vec<Call>) {
    let mut main = String::from(
        "use typed_rpc::transport::http::HttpClient;\n\n\
         fn arg<T: serde::de::DeserializeOwned>(json: &str) -> T {\n    \
             serde_json::from_str(json).expect(json)\n}\n\n\
         fn report<T: serde::Serialize, E: std::fmt::Debug>(doc: &str, method: &str, result: Result<T, E>) {\n    \
             match result {\n        \
                 Ok(value) => println!(\"{doc}\\t{method}\\tok\\t{}\", serde_json::to_string(&value).unwrap()),\n        \
                 Err(err) => println!(\"{doc}\\t{method}\\terr\\t{err:?}\"),\n    \
             }\n}\n\n",
    );
    for document in docs {
        let module = snake(&document.name);
        writeln!(
            main,
            "// Fallbacks to `serde_json::Value` warn; the types are not all used.\n\
             #[allow(deprecated, dead_code)]\nmod {module} {{\n    typed_rpc::openrpc!({:?});\n}}\n",
            document.path.display().to_string()
        )
        .unwrap();
    }
    main.push_str(
        "#[tokio::main(flavor = \"current_thread\")]\nasync fn main() {\n    \
         let urls: Vec<String> = std::env::args().skip(1).collect();\n",
    );
    let mut calls = Vec::new();
    for (i, document) in docs.iter().enumerate() {
        let title = document.doc["info"]["title"].as_str().unwrap_or_default();
        let client = format!("{}::{}Client", snake(&document.name), camel(title));
        writeln!(
            main,
            "    {{\n        let client = {client}::new(HttpClient::new(&urls[{i}]).unwrap());"
        )
        .unwrap();
        for method in document.doc["methods"].as_array().into_iter().flatten() {
            let call = call_of(document, method, "client");
            writeln!(main, "        {}", call.rust).unwrap();
            calls.push(call);
        }
        main.push_str("    }\n");
    }
    main.push_str("}\n");
    (main, calls)
}

/// Writes the client crate `name` and builds it; the path of its binary.
pub(super) fn build_client(work: &Path, name: &str, main: &str) -> PathBuf {
    let dir = work.join(name);
    std::fs::create_dir_all(dir.join("src")).expect("the client crate's directory");
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n\
         typed-rpc = {{ path = {:?}, features = [\"http\"] }}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n\
         tokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n\
         # A workspace of its own, not a member of this repository's.\n[workspace]\n",
        repo().display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("the client's manifest");
    std::fs::write(dir.join("src/main.rs"), main).expect("the client's main");
    // The repository's lock file: the same versions as the rest of the
    // workspace, already downloaded.
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(repo().join("Cargo.lock"), &lock).expect("the lock file");
    }
    let target = work.join("target");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["build", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target);
    let output = process::run(cargo, BUILD).unwrap();
    assert!(
        output.success(),
        "the generated client does not build:\n{}\n{}",
        output.stdout,
        output.stderr
    );
    target.join("debug").join(name)
}

/// A Node.js server this test started, stopped when dropped.
pub(super) struct NodeServer {
    _server: ChildGuard,
    pub(super) url: String,
}

/// `node SCRIPT ARGS... PORT` on a free loopback port, once it has printed
/// a line holding `ready`.
pub(super) fn node_server(
    packages: &NodePackages,
    script: &str,
    args: &[&Path],
    ready: &'static str,
) -> NodeServer {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut command = packages.node(script);
    command
        .args(args)
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = ChildGuard::spawn(&mut command).unwrap();
    server
        .stdout_lines()
        .unwrap()
        .wait_until(&format!("`{ready}`"), START, |line| {
            line.contains(ready).then_some(())
        })
        .unwrap_or_else(|err| panic!("`node {script} {args:?}` did not start: {err}"));
    NodeServer {
        _server: server,
        url: format!("http://127.0.0.1:{port}/"),
    }
}

/// `@open-rpc/mock-server` serving `document` on a free loopback port.
fn serve(packages: &NodePackages, document: &Document) -> NodeServer {
    node_server(packages, "serve.js", &[&document.path], "Server Started")
}

#[test]
fn generated_clients_call_the_mock_server_of_every_example_document() {
    let work = work_dir();
    let packages = installed();
    let docs = documents(packages.dir());
    let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
    for required in REQUIRED {
        assert!(names.contains(required), "{required} is in {names:?}");
    }
    let (main, calls) = client_main(&docs);
    let binary = build_client(&work, "openrpc-examples-client", &main);

    let mocks: Vec<NodeServer> = docs.iter().map(|d| serve(&packages, d)).collect();
    let mut client = Command::new(binary);
    client.args(mocks.iter().map(|m| &m.url));
    let output = process::run(client, RUN).unwrap();
    drop(mocks);
    let out = output.stdout;
    assert!(
        output.status.success(),
        "the client failed:\n{out}\n{}",
        output.stderr
    );

    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.splitn(4, '\t').collect()).collect();
    assert_eq!(lines.len(), calls.len(), "one line per call:\n{out}");
    for (call, line) in calls.iter().zip(&lines) {
        let context = format!("{} {}: {line:?}", call.document, call.method);
        assert_eq!(
            line[..2],
            [&call.document[..], &call.method[..]],
            "{context}"
        );
        assert_eq!(line[2], "ok", "{context}");
        if let Some(expected) = &call.expected {
            let got: Value = serde_json::from_str(line[3]).expect("JSON");
            assert_eq!(&got, expected, "{context}");
        }
    }
    // Every document of the package was generated and called.
    for document in &docs {
        let called = calls.iter().filter(|c| c.document == document.name).count();
        let methods = document.doc["methods"].as_array().map_or(0, Vec::len);
        assert_eq!(called, methods, "{}", document.name);
    }
}
