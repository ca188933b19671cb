//! tally-lsp driven by VS Code's own client libraries: `vscode-jsonrpc`'s
//! `createMessageConnection` over the spawned server's stdio, with the
//! request types of `vscode-languageserver-protocol` (both pinned in
//! `tests/vscode/package-lock.json` and installed by the test).
//! `tests/vscode/session.js` walks a whole session and reports what it
//! saw; the assertions are here: the lifecycle and its errors, every
//! feature, multi-byte text in edits and positions in each encoding, the
//! settings asked of the editor and honoured, diagnostics and progress in
//! order, cancellation, `$/` methods, exit codes.

use std::path::Path;
use std::time::Duration;

use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::process;

use serde_json::{Value, json};

/// How long one whole session may take, the server's start included.
const SESSION_LIMIT: Duration = Duration::from_secs(120);

/// What `session.js` reports for a session in `encoding` (`mode`: `full`
/// or `no-shutdown`).
fn session(encoding: &str, mode: &str) -> Value {
    let packages =
        NodePackages::install(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vscode"))
            .unwrap_or_else(|err| panic!("{err}"));
    let mut session = packages.node("session.js");
    session
        .arg(env!("CARGO_BIN_EXE_tally-lsp"))
        .args([encoding, mode]);
    let output =
        process::run(session, SESSION_LIMIT).unwrap_or_else(|err| panic!("session.js: {err}"));
    assert!(
        output.success(),
        "session.js {encoding} {mode} failed: {}",
        output.stderr
    );
    serde_json::from_str(output.stdout.trim())
        .unwrap_or_else(|err| panic!("{err}: {}", output.stdout))
}

fn error_code(outcome: &Value) -> i64 {
    outcome["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {outcome}"))
}

/// The events of one kind, in the order they arrived.
fn events<'a>(report: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    report["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |event| event.get(kind).is_some())
}

/// Everything a session shows, the same in every encoding.
fn check_session(encoding: &str) {
    let report = session(encoding, "full");

    // The lifecycle.
    assert_eq!(
        error_code(&report["beforeInitialize"]),
        -32002,
        "a request before initialize"
    );
    assert_eq!(
        error_code(&report["earlyDocument"]),
        -32602,
        "a didOpen before initialize was dropped"
    );
    let capabilities = &report["initialize"]["capabilities"];
    assert_eq!(capabilities["positionEncoding"], encoding);
    assert_eq!(capabilities["textDocumentSync"], 2, "incremental");
    for provider in [
        "hoverProvider",
        "definitionProvider",
        "documentSymbolProvider",
        "renameProvider",
        "documentFormattingProvider",
    ] {
        assert_eq!(capabilities[provider], true, "{provider}");
    }
    assert_eq!(
        capabilities["executeCommandProvider"]["commands"],
        json!(["tally.evaluate"])
    );
    assert_eq!(error_code(&report["initializeAgain"]), -32600);

    // Incremental edits at multi-byte positions: the server holds what the
    // client holds, and places its diagnostics where the client finds them.
    assert_eq!(report["opened"]["items"], json!([]));
    assert_eq!(report["serverText"]["text"], report["clientText"]);
    assert_eq!(report["serverText"]["version"], 2);
    let changed = report["changed"]["items"].as_array().unwrap();
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(changed[0]["message"], "`🍏` is never used");
    assert_eq!(changed[0]["range"], report["expectedRanges"]["greenApple"]);
    assert_eq!(changed[1]["message"], "`🍐` is not defined");
    assert_eq!(changed[1]["range"], report["expectedRanges"]["pear"]);

    // Reads, past emoji, CJK, Hangul and a combining mark.
    assert_eq!(report["hover"]["range"], report["hover"]["expected"]);
    assert!(
        report["hover"]["value"]
            .as_str()
            .unwrap()
            .ends_with("= 3.75"),
        "{}",
        report["hover"]
    );
    assert!(report["appleHover"].as_str().unwrap().ends_with("= 3"));
    assert_eq!(
        report["completion"],
        json!([
            "🍎",
            "価格",
            "cafe\u{301}",
            "합계",
            "🍏",
            "sqrt",
            "abs",
            "round",
            "min",
            "max",
            "let"
        ])
    );
    assert_eq!(
        report["definition"]["got"],
        report["definition"]["expected"]
    );
    let symbols = report["symbols"].as_array().unwrap();
    let names: Vec<&str> = symbols
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["🍎", "価格", "cafe\u{301}", "합계", "🍏"]);
    let details: Vec<&str> = symbols
        .iter()
        .map(|s| s["detail"].as_str().unwrap())
        .collect();
    assert_eq!(details, ["= 3", "= 12", "= 3.75", "= 6.75", "= 1"]);
    let selections: Vec<&Value> = symbols.iter().map(|s| &s["selection"]).collect();
    assert_eq!(json!(selections), report["expectedSelections"]);
    let client_text = report["clientText"].as_str().unwrap();
    let (comment, rest) = client_text.split_once('\n').unwrap();
    assert_eq!(
        report["renamed"],
        format!("{comment}\n{}", rest.replace('🍎', "りんご")),
        "every use renamed, not the comment"
    );
    assert_eq!(error_code(&report["badRename"]), -32602);
    assert_eq!(report["formatted"], "let x = 1 + 2\r\nx * -x");

    // The settings: asked for after `initialized` and after a change, and honoured.
    let asked: Vec<&Value> = events(&report, "request")
        .filter(|event| event["request"] == "workspace/configuration")
        .collect();
    assert_eq!(asked.len(), 2);
    assert!(
        asked
            .iter()
            .all(|event| event["sections"] == json!(["tally"]))
    );
    let republished = report["republished"]["items"].as_array().unwrap();
    assert_eq!(
        republished.len(),
        1,
        "no unused warning once they are off: {republished:?}"
    );
    assert!(
        report["roundedHover"].as_str().unwrap().ends_with("= 4"),
        "precision 0"
    );

    // Diagnostics in order: each version of the document after the one before.
    let versions: Vec<&Value> = events(&report, "diagnostics")
        .filter(|event| event["diagnostics"] == "file:///work/prices.tally")
        .map(|event| &event["version"])
        .collect();
    assert_eq!(versions, [&json!(1), &json!(2), &json!(2)]);

    // The slow command's progress, in order, on the token the server made.
    let progress: Vec<(String, String)> = events(&report, "progress")
        .map(|event| {
            let token = event["token"].as_str().unwrap().to_owned();
            let step = match event["percentage"].as_u64() {
                Some(percent) => format!("{} {percent}", event["progress"].as_str().unwrap()),
                None => format!(
                    "{} {}",
                    event["progress"].as_str().unwrap(),
                    event["message"].as_str().unwrap()
                ),
            };
            (token, step)
        })
        .collect();
    let expected = [
        ("tally-1", "begin 0"),
        ("tally-1", "report 50"),
        ("tally-1", "report 100"),
        ("tally-1", "end evaluated 2 documents"),
        ("tally-2", "begin 0"),
        ("tally-2", "end cancelled"),
    ];
    let progress: Vec<(&str, &str)> = progress
        .iter()
        .map(|(t, s)| (t.as_str(), s.as_str()))
        .collect();
    assert_eq!(progress, expected);
    let created: Vec<&Value> = events(&report, "request")
        .filter(|event| event["request"] == "window/workDoneProgress/create")
        .map(|event| &event["token"])
        .collect();
    assert_eq!(created, [&json!("tally-1"), &json!("tally-2")]);
    let documents = &report["evaluated"]["documents"];
    assert_eq!(
        documents[0]["results"],
        json!(["-9"]),
        "x * -x with x = 3, in the messy file"
    );
    assert_eq!(
        documents[1]["results"],
        json!([null]),
        "the prices file's last line uses an undefined name"
    );
    assert_eq!(
        report["cancelled"]["error"],
        json!({"code": -32800, "message": "Request cancelled"})
    );

    // `$/` methods, unknown commands, closing, and the end.
    assert_eq!(error_code(&report["unknownDollarRequest"]), -32601);
    assert_eq!(error_code(&report["unknownCommand"]), -32602);
    assert_eq!(report["closed"]["items"], json!([]));
    assert_eq!(report["shutdown"], Value::Null);
    assert_eq!(error_code(&report["afterShutdown"]), -32600);
    assert_eq!(report["exitCode"], 0, "exit after shutdown");
}

#[test]
fn a_whole_session_in_utf16() {
    check_session("utf-16");
}

#[test]
fn a_whole_session_in_utf8() {
    check_session("utf-8");
}

#[test]
fn a_whole_session_in_utf32() {
    check_session("utf-32");
}

#[test]
fn exit_without_shutdown_ends_with_code_1() {
    assert_eq!(session("utf-16", "no-shutdown")["exitCode"], 1);
}
