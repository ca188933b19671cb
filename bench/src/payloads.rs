//! Request texts for each benchmark case, and checks of the replies.

use serde::Deserialize;

/// `add` with positional params.
pub const ADD_POSITIONAL: &str = r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#;
/// `add` with named params.
pub const ADD_NAMED: &str = r#"{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2},"id":1}"#;
/// `add_struct`: the whole params bound to one struct.
pub const ADD_STRUCT: &str =
    r#"{"jsonrpc":"2.0","method":"add_struct","params":{"a":1,"b":2},"id":1}"#;
/// `add` with a param of the wrong type: `-32602`.
pub const ADD_WRONG_TYPE: &str = r#"{"jsonrpc":"2.0","method":"add","params":[1,"x"],"id":1}"#;
/// The `notify` notification: never answered.
pub const NOTIFY: &str = r#"{"jsonrpc":"2.0","method":"notify","params":[1,2]}"#;

/// A batch of `n` positional `add` calls, entry `i` being `add(i, i)` with id `i`.
pub fn batch_add(n: u64) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{i},{i}],"id":{i}}}"#))
        .collect();
    format!("[{}]", entries.join(","))
}

/// A batch of `n` calls `sleep(ms)`, entry `i` with id `i`.
pub fn batch_sleep(n: u64, ms: u64) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","method":"sleep","params":[{ms}],"id":{i}}}"#))
        .collect();
    format!("[{}]", entries.join(","))
}

/// One response, as the checks read it (whatever the member order).
#[derive(Debug, Deserialize)]
pub struct Reply {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The echoed id (the benchmarks use integers).
    pub id: Option<u64>,
    /// The result, for the methods measured here an integer or null.
    #[serde(default)]
    pub result: Option<serde_json::Value>,
    /// The error, if any.
    pub error: Option<ErrorReply>,
}

/// An error object's code.
#[derive(Debug, Deserialize)]
pub struct ErrorReply {
    /// The code.
    pub code: i64,
}

fn parse(reply: &str) -> Result<Reply, String> {
    let parsed: Reply = serde_json::from_str(reply).map_err(|e| format!("{e}: {reply}"))?;
    if parsed.jsonrpc != "2.0" {
        return Err(format!("bad jsonrpc member: {reply}"));
    }
    Ok(parsed)
}

/// Checks that `reply` is the success `expected` for request `id`.
pub fn check_result(reply: &str, id: u64, expected: i64) -> Result<(), String> {
    let r = parse(reply)?;
    if r.id != Some(id) || r.error.is_some() || r.result.and_then(|v| v.as_i64()) != Some(expected)
    {
        return Err(format!(
            "expected result {expected} for id {id}, got {reply}"
        ));
    }
    Ok(())
}

/// Checks that `reply` is an error with `code` for request `id`.
pub fn check_error(reply: &str, id: u64, code: i64) -> Result<(), String> {
    let r = parse(reply)?;
    if r.id != Some(id) || r.error.map(|e| e.code) != Some(code) {
        return Err(format!("expected error {code} for id {id}, got {reply}"));
    }
    Ok(())
}

/// Checks a batch reply: one success per id `0..n`, entry `i` being `expected(i)`, in any order.
pub fn check_batch(reply: &str, n: u64, expected: impl Fn(u64) -> i64) -> Result<(), String> {
    let entries: Vec<Reply> = serde_json::from_str(reply).map_err(|e| format!("{e}: {reply}"))?;
    if entries.len() as u64 != n {
        return Err(format!("expected {n} entries, got {}", entries.len()));
    }
    let mut seen = vec![false; n as usize];
    for entry in entries {
        let id = entry.id.ok_or("an entry without id")?;
        let slot = seen.get_mut(id as usize).ok_or("an unknown id")?;
        if std::mem::replace(slot, true) {
            return Err(format!("id {id} answered twice"));
        }
        if entry.result.and_then(|v| v.as_i64()) != Some(expected(id)) {
            return Err(format!("wrong result for id {id}"));
        }
    }
    Ok(())
}
