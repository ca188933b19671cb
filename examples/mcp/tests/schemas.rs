//! The tools' JSON Schemas pass the strictest validators hosts use: Ajv's
//! JSON Schema 2020-12 validator in strict mode (unknown keywords and
//! formats are errors: schemars' `uint32` or `double` would be refused),
//! and Python's `jsonschema` (the Python SDK's) against the 2020-12
//! meta-schema, every `$ref` local and resolvable, every input schema an
//! object.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{Scratch, node, python, stdio_exchange};

const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn every_tool_schema_compiles_in_strict_validators() {
    let root = Scratch::new("schemas");
    let replies = stdio_exchange(
        &["--fixtures", "--root", root.path().to_str().unwrap()],
        &[json!({"method": "tools/list"})],
    );
    let tools = &replies[0]["result"];
    let count = tools["tools"].as_array().expect("tools").len();
    assert!(count > 30, "{count} tools");
    let file = root.path().join("tools.json");
    std::fs::write(&file, tools.to_string()).unwrap();
    let file = file.to_str().unwrap();

    let ajv = node("validate_schemas.mjs", &[file], LIMIT);
    // The one refusal is the conformance suite's own hand-written schema
    // (`required` inside `anyOf` without `properties` there: Ajv's
    // strictRequired), served as the suite defines it.
    let refused: Vec<&serde_json::Value> = ajv["refused"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|refusal| refusal["tool"] != "json_schema_2020_12_tool")
        .collect();
    assert!(refused.is_empty(), "Ajv refused: {refused:?}");
    assert!(ajv["checked"].as_u64().unwrap() as usize > count);

    let jsonschema = python("validate_schemas.py", &[file], LIMIT);
    assert_eq!(jsonschema["refused"], json!([]), "jsonschema refused");
    assert!(jsonschema["checked"].as_u64().unwrap() as usize > count);
}
