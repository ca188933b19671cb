//! Hostile sizes and shapes: JSON nested 100,000 deep (on a thread with the
//! 2 MiB stack a tokio worker has), batches far over the limit, huge method
//! names and very many params.

use crate::support;
use serde_json::{Value, json};
use typed_rpc::client::{ClientExt, OutgoingRequest, Transport};
use typed_rpc::{ClientError, Router};

use crate::support::deep::{DEEP, deep_array, deep_object};
use crate::support::harness::router::{handle, oracle, services};

/// The stack a tokio worker thread gets by default.
const WORKER_STACK: usize = 2 * 1024 * 1024;

/// Runs `f` on a thread with a worker's stack: a stack overflow aborts the
/// whole test binary, so passing shows there was none.
fn on_worker_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// The reply to `input`, which must be one error object with id `null`.
fn refusal(router: &Router, input: &str) -> Value {
    let reply = handle(router, input.as_bytes()).expect("a reply");
    oracle::check(input.as_bytes(), Some(&reply)).unwrap_or_else(|err| panic!("{err}"));
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["id"], Value::Null, "{reply}");
    reply
}

#[test]
fn json_nested_100_000_deep_gets_its_answer_without_overflowing_the_stack() {
    // serde_json skips a value it does not decode (a raw `params` or `id`,
    // an unknown member) with a loop, not recursion, and a value that is
    // decoded stops at its recursion limit of 128. So a 100,000-deep value
    // is valid JSON, read without recursing, and gets the answer its place
    // calls for.
    on_worker_stack(|| {
        let router = services::router();
        let (array, object) = (deep_array(), deep_object());
        let cases = [
            // A batch whose entry is not an object; an object that is no request.
            (array.clone(), "-32600"),
            (object.clone(), "-32600"),
            (
                format!(r#"[{{"jsonrpc":"2.0","method":"ping","id":1}},{object}]"#),
                "-32600",
            ),
            // Params that do not fit, and params decoded as a `Value`.
            (
                format!(r#"{{"jsonrpc":"2.0","method":"sum","params":{array},"id":1}}"#),
                "-32602",
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"x","arguments":{object}}},"id":1}}"#
                ),
                "recursion limit exceeded",
            ),
            // An id or a method that is no id or method.
            (
                format!(r#"{{"jsonrpc":"2.0","method":"ping","id":{array}}}"#),
                "-32600",
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","method":{object},"id":1}}"#),
                "-32600",
            ),
            // An unknown member is skipped: the call is answered.
            (
                format!(r#"{{"jsonrpc":"2.0","method":"ping","id":1,"x":{array}}}"#),
                r#""result":"pong""#,
            ),
        ];
        for (i, (input, answer)) in cases.into_iter().enumerate() {
            let reply = handle(&router, input.as_bytes()).expect("a reply");
            if i < 3 {
                // The whole message is the deep value: the oracle agrees.
                oracle::check(input.as_bytes(), Some(&reply)).unwrap_or_else(|err| panic!("{err}"));
            }
            assert!(reply.contains(answer), "{answer} expected, got {reply}");
            assert!(
                reply.ends_with(r#""id":null}"#)
                    || reply.ends_with(r#""id":1}"#)
                    || reply.ends_with(r#""id":null}]"#),
                "{reply}"
            );
        }
        // Deep but broken: one parse error.
        let broken = "[".repeat(DEEP);
        let reply = refusal(&router, &broken);
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
    });
}

#[test]
fn a_deep_reply_is_a_decode_error_for_the_client() {
    /// A server that answers everything with JSON nested 100,000 deep.
    struct Deep;

    impl Transport for Deep {
        async fn send_request(&self, _: OutgoingRequest<'_>) -> Result<String, ClientError> {
            Ok(format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#,
                deep_array()
            ))
        }

        async fn send_notification(&self, _: OutgoingRequest<'_>) -> Result<(), ClientError> {
            Ok(())
        }
    }

    on_worker_stack(|| {
        let reply = support::harness::block_on(Deep.call::<Value>("anything", None), 16);
        assert!(matches!(reply, Err(ClientError::Decode(_))), "{reply:?}");
        let batch = typed_rpc::client::BatchResponse::from_reply(1, 1, &deep_array());
        assert!(matches!(batch, Err(ClientError::Decode(_))), "{batch:?}");
    });
}

#[tokio::test]
async fn a_batch_of_100_000_gets_one_error_and_runs_nothing() {
    let (router, calc) = support::calculator();
    let entry = r#"{"jsonrpc":"2.0","method":"update","params":[1]}"#;
    let batch = format!("[{}]", vec![entry; 100_000].join(","));
    let reply = router.handle(batch.as_bytes()).await.expect("a reply");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Batch too large",
            "data": {"reason": "a batch may hold at most 1024 requests", "max_batch_len": 1024}}, "id": null})
    );
    assert_eq!(calc.total(), 0, "no entry of a refused batch runs");

    // The length is refused before the rest is read: broken JSON far past
    // the limit does not change the answer.
    let broken = format!("[{}, {{oops", vec![entry; 100_000].join(","));
    let reply = router.handle(broken.as_bytes()).await.unwrap();
    assert!(reply.contains("Batch too large"), "{reply}");
}

#[tokio::test]
async fn a_batch_at_the_limit_is_answered_entry_by_entry() {
    let (router, _) = support::calculator();
    let entries: Vec<String> = (0..1024)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","method":"subtract","params":[{i},1],"id":{i}}}"#))
        .collect();
    let batch = format!("[{}]", entries.join(","));
    let reply = router.handle(batch.as_bytes()).await.unwrap();
    let reply: Vec<Value> = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply.len(), 1024);
    for answer in reply {
        assert_eq!(answer["result"], answer["id"].as_i64().unwrap() - 1);
    }
}

#[test]
fn a_method_name_of_a_mebibyte_is_just_unknown() {
    let router = services::router();
    for name in ["x".repeat(1 << 20), "\\u0078".repeat(1 << 18)] {
        let input = format!(r#"{{"jsonrpc":"2.0","method":"{name}","id":"long"}}"#);
        let reply = handle(&router, input.as_bytes()).unwrap();
        assert_eq!(
            reply,
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"long"}"#
        );
    }
}

#[test]
fn very_many_params_are_decoded_or_refused_cleanly() {
    let router = services::router();
    let call = |method: &str, params: String| {
        let input = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":1}}"#);
        let reply = handle(&router, input.as_bytes()).unwrap();
        serde_json::from_str::<Value>(&reply).unwrap()
    };
    let ones = || vec!["1"; 100_000].join(",");
    let reply = call("sum", format!("[{}]", ones()));
    assert_eq!(reply["result"], 100_000);

    let reply = call("subtract", format!("[{}]", ones()));
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(
        reply["error"]["data"]["reason"],
        "too many params: `subtract` takes 2, got 100000"
    );

    let members = |prefix: &str| {
        (0..10_000)
            .map(|i| format!(r#""{prefix}{i}":{i}"#))
            .collect::<Vec<_>>()
            .join(",")
    };
    let reply = call("subtract", format!("{{{}}}", members("p")));
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["param"], "p0");

    // A method that ignores unknown names reads past all of them.
    let reply = call("lenient", format!(r#"{{{},"n":5}}"#, members("other")));
    assert_eq!(reply["result"], 5);

    // One param of half a mebibyte.
    let long = "é".repeat(1 << 17);
    let reply = call("greet", format!(r#"{{"name":"{long}"}}"#));
    assert_eq!(reply["result"], format!("Hello, {long}!"));
}
