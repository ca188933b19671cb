//! MetaMask's API document (`@metamask/api-specs`, pinned in
//! `tests/openrpc/npm`) through `openrpc!`: every method is generated, and
//! every example whose params and result are valid under their schemas
//! (ajv says which) is called through the generated client against a
//! replay server that answers only params equal to the example's, with
//! the example's result, which must come back equal through the generated
//! types. Numbers compare as numbers.
//!
//! Like `examples`, the client is a crate this test writes and builds,
//! since the document exists only once npm has installed it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::process;

use super::examples::{build_client, camel, installed, node_server, snake, work_dir};

const RUN: Duration = Duration::from_secs(120);

/// How many of the pinned document's 57 examples are not valid under
/// their own schemas (a result that is the string "null" where the schema
/// says `null`, a block with `totalDifficulty` where no other member is
/// allowed, quantities with leading zeros, ...): 20.
const INVALID_EXAMPLES: usize = 20;

/// The examples, from `node metamask.js examples`.
fn examples(packages: &NodePackages) -> (String, Vec<Value>) {
    let mut node = packages.node("metamask.js");
    node.arg("examples");
    let output = process::run(node, RUN).unwrap();
    assert!(output.success(), "{}\n{}", output.stdout, output.stderr);
    let listed: Value = serde_json::from_str(&output.stdout).expect("JSON");
    let document = listed["document"].as_str().expect("the path").to_owned();
    (document, listed["cases"].as_array().expect("cases").clone())
}

/// Whether `a` and `b` are the same JSON value, numbers compared as numbers.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The client: every example call, one line each; then the methods the
/// generated trait has.
fn client_main(document: &str, doc: &Value, cases: &[&Value]) -> String {
    let title = doc["info"]["title"].as_str().unwrap_or_default();
    let api = camel(title);
    let mut main = format!(
        "use typed_rpc::transport::http::HttpClient;\n\n\
         fn arg<T: serde::de::DeserializeOwned>(json: &str) -> T {{\n    \
             serde_json::from_str(json).unwrap_or_else(|err| panic!(\"{{json}}: {{err}}\"))\n}}\n\n\
         fn report<T: serde::Serialize, E: std::fmt::Debug>(case: usize, result: Result<T, E>) {{\n    \
             match result {{\n        \
                 Ok(value) => println!(\"{{case}}\\tok\\t{{}}\", serde_json::to_string(&value).unwrap()),\n        \
                 Err(err) => println!(\"{{case}}\\terr\\t{{err:?}}\"),\n    \
             }}\n}}\n\n\
         // Fallbacks to `serde_json::Value` warn; the types are not all used.\n\
         #[allow(deprecated, dead_code)]\nmod metamask {{\n    typed_rpc::openrpc!({document:?});\n}}\n\n\
         #[tokio::main(flavor = \"current_thread\")]\nasync fn main() {{\n    \
             let url = std::env::args().nth(1).expect(\"the server's URL\");\n    \
             let client = metamask::{api}Client::new(HttpClient::new(&url).unwrap());\n"
    );
    for (i, case) in cases.iter().enumerate() {
        let method = case["method"].as_str().expect("a method");
        let args: Vec<String> = case["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|value| format!("arg(r#\"{value}\"#)"))
            .collect();
        writeln!(
            main,
            "    report({i}, client.{}({}).await);",
            snake(method),
            args.join(", ")
        )
        .unwrap();
    }
    writeln!(
        main,
        "    for method in metamask::{api}Service::<()>::INFO.methods() {{\n        \
             println!(\"method\\t{{}}\", method.name());\n    }}\n}}"
    )
    .unwrap();
    main
}

#[test]
fn every_method_is_generated_and_every_valid_example_comes_back_equal() {
    let packages = installed();
    let (document, cases) = examples(&packages);
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&document).expect("the document"))
            .expect("JSON");
    let (valid, invalid): (Vec<&Value>, Vec<&Value>) = cases
        .iter()
        .partition(|c| c["paramsValid"] == true && c["resultValid"] == true);
    let invalid_names: Vec<&str> = invalid
        .iter()
        .filter_map(|c| c["method"].as_str())
        .collect();
    assert_eq!(
        invalid.len(),
        INVALID_EXAMPLES,
        "examples not valid under their own schemas: {invalid_names:?}"
    );
    assert_eq!(valid.len() + invalid.len(), 57);
    // Two examples of one method with the same params (`web3_clientVersion`
    // has two, with two results) are one call: the first one's.
    let mut valid = valid;
    let mut seen = Vec::new();
    valid.retain(|c| {
        let key = (c["method"].clone(), c["values"].clone());
        let first = !seen.contains(&key);
        seen.push(key);
        first
    });
    assert_eq!(valid.len(), 36);

    let main = client_main(&document, &doc, &valid);
    let binary = build_client(&work_dir(), "metamask-client", &main);
    let server = node_server(&packages, "metamask.js", &[Path::new("serve")], "listening");
    let mut client = Command::new(binary);
    client.arg(&server.url);
    let output = process::run(client, RUN).unwrap();
    drop(server);
    let out = output.stdout;
    assert!(
        output.status.success(),
        "the client failed:\n{out}\n{}",
        output.stderr
    );

    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.splitn(3, '\t').collect()).collect();
    let (methods, calls): (Vec<_>, Vec<_>) = lines.iter().partition(|l| l[0] == "method");
    let generated: Vec<&str> = methods.iter().map(|l| l[1]).collect();
    let documented: Vec<&str> = doc["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert_eq!(generated, documented, "every method is generated, in order");
    assert_eq!(documented.len(), 55);

    assert_eq!(calls.len(), valid.len(), "one line per example:\n{out}");
    for (line, case) in calls.iter().zip(&valid) {
        let context = format!("{} ({}): {line:?}", case["method"], case["example"]);
        assert_eq!(line[1], "ok", "{context}");
        let got: Value = serde_json::from_str(line[2]).expect("JSON");
        let expected = case.get("result").unwrap_or(&Value::Null);
        assert!(same(&got, expected), "{context}: expected {expected}");
    }
}
