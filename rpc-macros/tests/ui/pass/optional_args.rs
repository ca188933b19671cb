//! Trailing `Option` arguments may be left out, positionally or by name.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Greeter {
    #[method(name = "greet")]
    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        punctuation: Option<char>,
    ) -> RpcResult<String>;

    #[method(name = "tasks", param_style = "named")]
    async fn tasks(&self, #[params] filter: Option<Filter>) -> RpcResult<Vec<String>>;
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Filter {
    pub done: bool,
}

struct Server;

impl Greeter for Server {
    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        punctuation: Option<char>,
    ) -> RpcResult<String> {
        let greeting = greeting.as_deref().unwrap_or("hello");
        Ok(format!("{greeting}, {name}{}", punctuation.unwrap_or('!')))
    }

    async fn tasks(&self, filter: Option<Filter>) -> RpcResult<Vec<String>> {
        Ok(match filter {
            Some(Filter { done: true }) => vec!["written".to_owned()],
            _ => vec!["written".to_owned(), "tested".to_owned()],
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let router = Router::new(Server.into_service());
    let reply = router
        .handle(br#"{"jsonrpc":"2.0","method":"greet","params":["Ada"],"id":1}"#)
        .await
        .unwrap();
    assert_eq!(reply, r#"{"jsonrpc":"2.0","result":"hello, Ada!","id":1}"#);

    let client = GreeterClient::new(InProcess::new(router));
    let hi = client.greet("Ada".to_owned(), Some("hi".to_owned()), None);
    assert_eq!(hi.await.unwrap(), "hi, Ada!");
    assert_eq!(client.tasks(None).await.unwrap().len(), 2);
    assert_eq!(
        client
            .tasks(Some(Filter { done: true }))
            .await
            .unwrap()
            .len(),
        1
    );
}
