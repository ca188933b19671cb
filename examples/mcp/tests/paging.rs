//! Lists come a page at a time when the server says so, with cursors that
//! say where the next begins; a cursor the server never gave is refused.

use serde_json::{Value, json};
use typed_rpc_mcp::fixtures::{BasicTools, Basics};
use typed_rpc_mcp::server::Server;
use typed_rpc_mcp::types::Implementation;

async fn call(router: &typed_rpc::Router, method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = router
        .handle(request.to_string().as_bytes())
        .await
        .expect("a reply");
    serde_json::from_str(&reply).unwrap()
}

#[tokio::test]
async fn tools_are_listed_two_at_a_time() {
    let server = Server::builder(Implementation::new("paged", "1"))
        .tools(BasicTools.into_service())
        .page_size(2)
        .build()
        .unwrap();
    let router = server.router();
    let first = call(&router, "tools/list", json!({})).await;
    let names = |page: &Value| -> Vec<String> {
        page["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&first), ["add", "slow"]);
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    let second = call(&router, "tools/list", json!({"cursor": cursor})).await;
    assert_eq!(names(&second), ["fail"]);
    assert!(
        second["result"].get("nextCursor").is_none(),
        "the last page"
    );
    let bad = call(&router, "tools/list", json!({"cursor": "not-one-of-ours"})).await;
    assert_eq!(bad["error"]["code"], -32602);
}
