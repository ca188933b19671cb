//! The router's protocol rules: ids echoed exactly, invalid requests, reserved
//! names, merged services, batch limits and notifications.

use crate::support;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::{Calc, Calculator, call, code_of, error_of, result_of, send};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use typed_rpc::{BuildError, Router, RpcResult, RpcService, rpc};

/// The `id` member of a reply exactly as the router wrote it.
fn raw_id(reply: &str) -> String {
    #[derive(Deserialize)]
    struct Reply<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
    }
    let reply: Reply<'_> =
        serde_json::from_str(reply).unwrap_or_else(|err| panic!("{err}: {reply}"));
    reply.id.get().to_owned()
}

#[tokio::test]
async fn ids_are_echoed_exactly() {
    let (router, _) = support::calculator();
    let ids = [
        "0",
        "-7",
        "18446744073709551616",
        "-18446744073709551617",
        "123456789012345678901234567890",
        "1.5",
        "-0.0",
        "1e3",
        "1E+3",
        "2.50e-2",
        "1e400",
        "-1e-400",
        r#""""#,
        r#""1""#,
        r#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#,
        "null",
    ];
    for id in ids {
        // A result, an error from the method table and an error from params
        // decoding all carry the id back.
        for (method, params) in [
            ("subtract", "[42, 23]"),
            ("nope", "[]"),
            ("subtract", "[42]"),
        ] {
            let request =
                format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":{id}}}"#);
            let reply = router
                .handle(request.as_bytes())
                .await
                .unwrap_or_else(|| panic!("no reply to {request}"));
            assert_eq!(raw_id(&reply), id, "{request} -> {reply}");
        }
    }
    // Whitespace around the id is not part of it.
    let reply = router
        .handle(br#"{"jsonrpc":"2.0","method":"get_data","id" :   1e3   }"#)
        .await
        .unwrap();
    assert_eq!(raw_id(&reply), "1e3");
}

#[tokio::test]
async fn ids_are_echoed_exactly_inside_a_batch() {
    let (router, _) = support::calculator();
    let request = r#"[
        {"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":18446744073709551616},
        {"jsonrpc":"2.0","method":"subtract","params":[5,1],"id":"\u0041"},
        {"jsonrpc":"2.0","method":"subtract","params":[9,1],"id":1.50}
    ]"#;
    let reply = router.handle(request.as_bytes()).await.unwrap();
    let replies: Vec<&RawValue> = serde_json::from_str(&reply).unwrap();
    let mut got: Vec<(String, Value)> = replies
        .iter()
        .map(|r| {
            let value: Value = serde_json::from_str(r.get()).unwrap();
            (raw_id(r.get()), result_of(&value).clone())
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            (r#""\u0041""#.to_owned(), json!(4)),
            ("1.50".to_owned(), json!(8)),
            ("18446744073709551616".to_owned(), json!(2)),
        ]
    );
}

#[tokio::test]
async fn an_invalid_request_echoes_its_id_when_it_can_be_read() {
    let (router, _) = support::calculator();
    let with_id = [
        (
            r#"{"jsonrpc":"1.0","method":"subtract","params":[1,2],"id":7}"#,
            json!(7),
        ),
        (
            r#"{"method":"subtract","params":[1,2],"id":"no-version"}"#,
            json!("no-version"),
        ),
        (r#"{"jsonrpc":2.0,"method":"subtract","id":8}"#, json!(8)),
        (
            r#"{"jsonrpc":"2.0","method":1,"params":"bar","id":"x"}"#,
            json!("x"),
        ),
        (r#"{"jsonrpc":"2.0","params":[1,2],"id":9}"#, json!(9)),
        (
            r#"{"jsonrpc":"2.0","method":"subtract","params":3,"id":10}"#,
            json!(10),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"subtract","params":null,"id":11}"#,
            json!(11),
        ),
    ];
    for (request, id) in with_id {
        answers_one_error(&router, request, -32600, id).await;
    }
    // Without a readable id the reply still comes, with `id: null`: an
    // invalid request is not a notification.
    let without_id = [
        r#"{"jsonrpc":"2.0","method":1}"#,
        r#"{"jsonrpc":"1.0","method":"subtract","params":[1,2]}"#,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":[1]}"#,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":{"a":1}}"#,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":true}"#,
        "3",
        r#""subtract""#,
        "null",
    ];
    for request in without_id {
        answers_one_error(&router, request, -32600, Value::Null).await;
    }
}

/// Asserts `message` is answered by one error object with `code` and `id`.
async fn answers_one_error(router: &Router, message: &str, code: i64, id: Value) {
    let reply = call(router, message).await;
    assert!(reply.is_object(), "{message:?} -> {reply}");
    assert_eq!(code_of(&reply), code, "{message:?} -> {reply}");
    assert_eq!(reply["id"], id, "{message:?} -> {reply}");
}

#[tokio::test]
async fn an_invalid_entry_of_a_batch_echoes_its_id_when_it_can_be_read() {
    let (router, _) = support::calculator();
    let reply = call(
        &router,
        r#"[
            {"jsonrpc":"2.0","method":"subtract","params":"x","id":"a"},
            {"jsonrpc":"2.0","method":true},
            {"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":"b"}
        ]"#,
    )
    .await;
    let got = sorted(&reply, |r| match r.get("error") {
        Some(error) => format!("{} error {}", r["id"], error["code"]),
        None => format!("{} result {}", r["id"], r["result"]),
    });
    assert_eq!(
        got,
        [
            r#""a" error -32600"#,
            r#""b" result 1"#,
            "null error -32600"
        ]
    );
}

#[tokio::test]
async fn a_message_that_is_not_json_gets_one_parse_error_with_a_null_id() {
    let (router, _) = support::calculator();
    for message in [
        "",
        "  \n ",
        "{",
        "[",
        "[1,]",
        r#"{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1} {}"#,
        r#"[{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}] []"#,
    ] {
        answers_one_error(&router, message, -32700, Value::Null).await;
    }
}

#[tokio::test]
async fn a_method_name_with_escapes_is_the_name_it_spells() {
    let (router, _) = support::calculator();
    let reply = call(
        &router,
        r#"{"jsonrpc":"2\u002e0","method":"sub\u0074ract","params":[3,1],"id":1}"#,
    )
    .await;
    assert_eq!(result_of(&reply), 2, "{reply}");
}

#[tokio::test]
async fn reserved_rpc_names_that_nothing_defines_are_not_found() {
    let (router, _) = support::calculator();
    for method in ["rpc.discover", "rpc.foo", "rpc."] {
        let reply = call(
            &router,
            &format!(r#"{{"jsonrpc":"2.0","method":"{method}","id":1}}"#),
        )
        .await;
        assert_eq!(code_of(&reply), -32601, "{method}: {reply}");
        assert_eq!(reply["id"], 1);
        // And as a notification: no reply, not even the error.
        let notification = format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#);
        assert_eq!(send(&router, &notification).await, None);
    }
}

#[rpc]
pub trait Greeter {
    #[method(name = "greet", aliases = ["hello"])]
    async fn greet(&self, name: String) -> RpcResult<String>;
}

struct Polite;

impl Greeter for Polite {
    async fn greet(&self, name: String) -> RpcResult<String> {
        Ok(format!("Hello, {name}!"))
    }
}

#[tokio::test]
async fn merged_services_each_answer_their_own_methods() {
    let calc = Calc::default();
    let router = Router::builder()
        .service(calc.clone().into_service())
        .service(Polite.into_service())
        .build()
        .unwrap();
    let services: Vec<&str> = router.services().map(|s| s.name()).collect();
    assert_eq!(services, ["Calculator", "Greeter"]);

    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
    )
    .await;
    assert_eq!(result_of(&reply), 19);
    for method in ["greet", "hello"] {
        let request = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":["Ada"],"id":2}}"#);
        assert_eq!(result_of(&call(&router, &request).await), "Hello, Ada!");
    }
    let reply = call(&router, r#"{"jsonrpc":"2.0","method":"foobar","id":3}"#).await;
    assert_eq!(code_of(&reply), -32601);

    // A batch reaches both services, and the notification reaches the calculator.
    let reply = call(
        &router,
        r#"[
            {"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"s"},
            {"jsonrpc":"2.0","method":"hello","params":{"name":"Bob"},"id":"g"},
            {"jsonrpc":"2.0","method":"update","params":[10]}
        ]"#,
    )
    .await;
    let got = sorted(&reply, |r| format!("{}={}", r["id"], result_of(r)));
    assert_eq!(got, [r#""g"="Hello, Bob!""#, r#""s"=7"#]);
    assert_eq!(calc.total(), 10);
}

/// Each entry of the batch `reply` as `show` writes it, sorted: the
/// entries of a batch reply may come in any order.
fn sorted(reply: &Value, show: impl Fn(&Value) -> String) -> Vec<String> {
    let entries = reply
        .as_array()
        .unwrap_or_else(|| panic!("a batch reply: {reply}"));
    let mut shown: Vec<String> = entries.iter().map(show).collect();
    shown.sort();
    shown
}

/// Defines `subtract` again.
#[rpc]
pub trait Minus {
    #[method(name = "subtract")]
    async fn minus(&self, a: i64, b: i64) -> RpcResult<i64>;
}

/// Takes `subtract` as an alias only.
#[rpc]
pub trait AliasedMinus {
    #[method(name = "minus", aliases = ["sub", "subtract"])]
    async fn minus(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Sub;

impl Minus for Sub {
    async fn minus(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a - b)
    }
}

impl AliasedMinus for Sub {
    async fn minus(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a - b)
    }
}

/// The error of building a router of `first` then `second`.
fn build_error(first: impl RpcService, second: impl RpcService) -> BuildError {
    let built = Router::builder().service(first).service(second).build();
    built.expect_err("two services that define one name")
}

#[test]
fn a_name_defined_by_two_services_is_a_build_error() {
    let err = build_error(Calc::default().into_service(), Minus::into_service(Sub));
    assert_eq!(
        err,
        BuildError::DuplicateMethod {
            method: "subtract",
            first: "Calculator",
            second: "Minus",
        }
    );
    assert_eq!(
        err.to_string(),
        "method `subtract` is defined by both `Calculator` and `Minus`"
    );
}

#[test]
fn an_alias_clashing_with_a_name_of_another_service_is_a_build_error() {
    let err = build_error(
        Calc::default().into_service(),
        AliasedMinus::into_service(Sub),
    );
    let (first, second) = ("Calculator", "AliasedMinus");
    let method = "subtract";
    assert_eq!(
        err,
        BuildError::DuplicateMethod {
            method,
            first,
            second
        }
    );
    // In the other order the alias comes first.
    let err = build_error(
        AliasedMinus::into_service(Sub),
        Calc::default().into_service(),
    );
    let (first, second) = (second, first);
    assert_eq!(
        err,
        BuildError::DuplicateMethod {
            method,
            first,
            second
        }
    );
}

#[tokio::test]
async fn a_batch_over_the_limit_is_refused_with_one_error_object() {
    let router = Router::builder()
        .service(Calc::default().into_service())
        .max_batch_len(2)
        .build()
        .unwrap();
    let entry = r#"{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}"#;

    let reply = call(&router, &format!("[{entry},{entry},{entry}]")).await;
    assert!(reply.is_object(), "one error object, not an array: {reply}");
    assert_eq!(code_of(&reply), -32600, "{reply}");
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(error_of(&reply)["data"]["max_batch_len"], 2, "{reply}");

    // Notifications count towards the limit too: none of them runs.
    let calc = Calc::default();
    let router = Router::builder()
        .service(calc.clone().into_service())
        .max_batch_len(2)
        .build()
        .unwrap();
    let note = r#"{"jsonrpc":"2.0","method":"notify_hello","params":[1]}"#;
    let reply = call(&router, &format!("[{note},{note},{note}]")).await;
    assert_eq!(code_of(&reply), -32600, "{reply}");
    assert_eq!(calc.hellos(), 0, "no entry of a refused batch runs");

    // At the limit, every entry is answered.
    let reply = call(&router, &format!("[{entry},{entry}]")).await;
    let replies = reply.as_array().expect("a batch reply");
    assert_eq!(replies.len(), 2);
    assert!(replies.iter().all(|r| result_of(r) == 1), "{reply}");
}

#[tokio::test]
async fn a_notification_runs_its_handler_and_gets_no_reply() {
    let (router, calc) = support::calculator();
    let reply = send(
        &router,
        r#"{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}"#,
    )
    .await;
    assert_eq!(reply, None);
    assert_eq!(calc.total(), 15);

    // A method called without an id runs too, and is not answered.
    let reply = send(
        &router,
        r#"{"jsonrpc":"2.0","method":"notify_hello","params":{"value":3}}"#,
    )
    .await;
    assert_eq!(reply, None);
    assert_eq!(calc.hellos(), 1);
}

#[tokio::test]
async fn a_notification_with_bad_params_gets_no_reply_and_does_not_run() {
    let (router, calc) = support::calculator();
    for request in [
        r#"{"jsonrpc":"2.0","method":"notify_hello","params":["x"]}"#,
        r#"{"jsonrpc":"2.0","method":"notify_hello","params":[1,2]}"#,
        r#"{"jsonrpc":"2.0","method":"notify_hello"}"#,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[1]}"#,
    ] {
        assert_eq!(send(&router, request).await, None, "{request}");
    }
    assert_eq!(calc.hellos(), 0);
}

#[tokio::test]
async fn notifications_inside_a_batch_run_and_are_left_out_of_the_reply() {
    let (router, calc) = support::calculator();
    let reply = call(
        &router,
        r#"[
            {"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},
            {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},
            {"jsonrpc":"2.0","method":"notify_hello","params":[7]},
            {"jsonrpc":"2.0","method":"update","params":[100]}
        ]"#,
    )
    .await;
    assert_eq!(reply, json!([{"jsonrpc": "2.0", "result": 19, "id": 1}]));
    assert_eq!(calc.total(), 107);
    assert_eq!(calc.hellos(), 1);
}

#[tokio::test]
async fn a_batch_of_only_notifications_gets_no_reply_and_runs_them_all() {
    let (router, calc) = support::calculator();
    let reply = router
        .handle(
            br#"[
                {"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},
                {"jsonrpc":"2.0","method":"notify_hello","params":[7]},
                {"jsonrpc":"2.0","method":"notify_hello","params":[8]},
                {"jsonrpc":"2.0","method":"no_such_method","params":[8]}
            ]"#,
        )
        .await;
    assert_eq!(reply, None);
    assert_eq!(calc.total(), 7);
    assert_eq!(calc.hellos(), 2);
}

/// A handler that counts its calls, for a notification sent many times at once.
#[rpc]
pub trait Counter {
    #[notification(name = "tick")]
    async fn tick(&self);
}

struct Ticks(Arc<AtomicUsize>);

impl Counter for Ticks {
    async fn tick(&self) {
        tokio::task::yield_now().await;
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn every_notification_of_a_large_batch_runs_exactly_once() {
    let ticks = Arc::new(AtomicUsize::new(0));
    let router = Router::new(Ticks(ticks.clone()).into_service());
    let batch = vec![r#"{"jsonrpc":"2.0","method":"tick"}"#; 500].join(",");
    assert_eq!(router.handle(format!("[{batch}]").as_bytes()).await, None);
    assert_eq!(ticks.load(Ordering::SeqCst), 500);
}

#[tokio::test]
async fn numbers_beyond_f64_are_invalid_requests_not_parse_errors() {
    // Found by the router fuzz targets. serde_json will not read 1e400 (or a
    // 400-digit integer) as a value, so an entry or a `method` that is such a
    // number made the whole message a -32700, a batch's valid requests
    // unanswered with it. It is valid JSON: only that entry is invalid.
    let (router, calc) = support::calculator();
    let get_data = r#"{"jsonrpc":"2.0","method":"get_data","id":1}"#;
    let invalid = |reason: &str, id: Value| {
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request",
            "data": {"reason": reason}}, "id": id})
    };
    let not_an_object = invalid("a request must be a JSON object", Value::Null);
    for single in ["1e400", "-1e400", &format!("1{}", "0".repeat(400))] {
        assert_eq!(call(&router, single).await, not_an_object, "{single}");
    }
    let reply = call(&router, &format!("[{get_data},1e400,-1e400]")).await;
    assert_eq!(
        reply,
        json!([
            {"jsonrpc": "2.0", "result": ["hello", 5], "id": 1},
            not_an_object,
            not_an_object
        ])
    );
    let reply = call(&router, r#"{"jsonrpc":"2.0","method":1e400,"id":2}"#).await;
    assert_eq!(reply, invalid("`method` must be a string", json!(2)));
    // The rest of a batch still runs, notifications included.
    let batch = r#"[{"jsonrpc":"2.0","method":"update","params":[4]},{"jsonrpc":"2.0","method":-1e999,"id":"m"}]"#;
    let reply = call(&router, batch).await;
    assert_eq!(
        reply,
        json!([invalid("`method` must be a string", json!("m"))])
    );
    assert_eq!(calc.total(), 4);
    // Over the batch limit, such a batch is still refused whole.
    let router = Router::builder()
        .service(Calc::default().into_service())
        .max_batch_len(2)
        .build()
        .unwrap();
    let reply = call(&router, &format!("[1e400,{get_data},{get_data}]")).await;
    assert_eq!(error_of(&reply)["message"], "Batch too large");
    // And text that is not JSON is still a parse error.
    let reply = call(&router, "[1e400,").await;
    assert_eq!(code_of(&reply), -32700);
}

#[tokio::test]
async fn a_method_name_with_a_lone_surrogate_is_an_invalid_request() {
    // Found by the router_model fuzz target: no Rust string holds "\ud800",
    // and reading one failed the whole message with -32700 and a null id.
    let (router, _) = support::calculator();
    let reply = call(&router, r#"{"jsonrpc":"2.0","method":"\ud800","id":"x"}"#).await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request",
            "data": {"reason": "`method` is not valid Unicode"}}, "id": "x"})
    );
    // Not a valid notification either: it is answered.
    let reply = call(&router, r#"{"jsonrpc":"2.0","method":"\udc00"}"#).await;
    assert_eq!(code_of(&reply), -32600);
    // Escapes that decode still name the method.
    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"get\u005fdata","id":3}"#,
    )
    .await;
    assert_eq!(result_of(&reply), &json!(["hello", 5]));
}

#[tokio::test]
async fn a_service_written_by_hand_can_hand_its_calls_to_a_generated_one() {
    use crate::support::CalculatorService;
    use typed_rpc::{Call, HandlerFuture, RpcService, ServiceInfo};

    /// Serves through `call`, so the router's default `call_in` boxes the
    /// futures of the generated service's own `call`.
    struct Delegate(CalculatorService<Calc>);

    impl RpcService for Delegate {
        fn info(&self) -> &'static ServiceInfo {
            self.0.info()
        }

        fn call<'a>(&'a self, method: &str, call: Call<'a>) -> Option<HandlerFuture<'a>> {
            self.0.call(method, call)
        }
    }

    let calc = Calc::default();
    let router = Router::new(Delegate(calc.clone().into_service()));
    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
    )
    .await;
    assert_eq!(result_of(&reply), &json!(19));
    let reply = call(&router, r#"{"jsonrpc":"2.0","method":"nope","id":2}"#).await;
    assert_eq!(code_of(&reply), -32601);
    let batch = r#"[{"jsonrpc":"2.0","method":"update","params":[1,2]},
        {"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":7},"id":3}]"#;
    let reply = call(&router, batch).await;
    assert_eq!(reply, json!([{"jsonrpc": "2.0", "result": -2, "id": 3}]));
    assert_eq!(calc.total(), 3);
}
