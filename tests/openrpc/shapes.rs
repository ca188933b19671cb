//! A trait using every shape serde gives data (tags internal, external and
//! adjacent, untagged, flatten, big integers, tuples, maps, recursion, a
//! stream, typed errors), its own document (`specs/shapes.json`, kept equal
//! to what the trait produces), a client `openrpc!` generates from that
//! document, and our server of the trait: every value comes back equal,
//! over HTTP (the stream as Server-Sent Events) and WebSocket.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use typed_rpc::transport::Server;
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::{CallError, Router, RpcError, RpcResult, rpc};

mod generated {
    typed_rpc::openrpc!("tests/openrpc/specs/shapes.json");
}

const FIXTURE: &str = "tests/openrpc/specs/shapes.json";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Internal {
    Circle { radius: f64 },
    Square { side: f64, label: Option<String> },
    Empty,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum External {
    Unit,
    Newtype(u32),
    Tuple(i8, String),
    Struct { a: bool },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Num(i64),
    Text(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Untagged {
    Pair { first: String, second: String },
    One { first: String },
    Number(u64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Meta {
    pub created: u64,
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Flattened {
    pub id: String,
    #[serde(flatten)]
    pub meta: Meta,
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Numbers {
    pub big: u64,
    pub small: i64,
    pub wide: i128,
    pub byte: u8,
    pub ratio: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Node {
    pub name: String,
    pub children: Vec<Node>,
    pub parent: Option<Box<Node>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Everything {
    pub internal: Vec<Internal>,
    pub external: Vec<External>,
    pub adjacent: Vec<Adjacent>,
    pub untagged: Vec<Untagged>,
    pub flattened: Flattened,
    pub numbers: Numbers,
    pub pair: (String, i32),
    pub map: BTreeMap<String, Vec<u16>>,
    pub tree: Node,
    pub maybe: Option<String>,
}

#[derive(Debug, PartialEq, RpcError)]
pub enum ShapeError {
    #[rpc_error(code = 4001, message = "Too deep")]
    TooDeep { depth: u32 },
    #[rpc_error(code = 4002)]
    Empty,
}

#[rpc]
pub trait Shapes {
    /// Gives the value back.
    #[method(name = "echo")]
    async fn echo(&self, value: Everything) -> RpcResult<Everything>;

    /// Fails as asked: `0` is `Empty`, any other depth `TooDeep`.
    #[method(name = "fail")]
    async fn fail(&self, depth: u32) -> Result<bool, ShapeError>;

    /// `count` values, each `value` with its `numbers.small` set to its index.
    #[method(
        name = "repeat",
        stream(notification = "repeat_item", unsubscribe = "repeat_stop")
    )]
    async fn repeat(
        &self,
        value: Everything,
        count: u32,
    ) -> RpcResult<impl Stream<Item = RpcResult<Everything>> + Send + 'static>;
}

struct Echo;

impl Shapes for Echo {
    async fn echo(&self, value: Everything) -> RpcResult<Everything> {
        Ok(value)
    }

    async fn fail(&self, depth: u32) -> Result<bool, ShapeError> {
        Err(match depth {
            0 => ShapeError::Empty,
            depth => ShapeError::TooDeep { depth },
        })
    }

    async fn repeat(
        &self,
        value: Everything,
        count: u32,
    ) -> RpcResult<impl Stream<Item = RpcResult<Everything>> + Send + 'static> {
        Ok(stream::iter(0..count).map(move |i| {
            let mut item = value.clone();
            item.numbers.small = i64::from(i);
            Ok(item)
        }))
    }
}

fn document() -> Value {
    typed_rpc::schema::Document::new("Shapes", "1.0.0")
        .service(ShapesService::<()>::INFO)
        .to_json()
}

#[test]
fn the_committed_document_is_what_the_trait_produces_now() {
    super::fixture::assert_current(FIXTURE, &document());
}

fn everything() -> Everything {
    let leaf = |name: &str| Node {
        name: name.into(),
        children: Vec::new(),
        parent: None,
    };
    Everything {
        internal: vec![
            Internal::Circle { radius: 1.5 },
            Internal::Square {
                side: 2.0,
                label: Some("s".into()),
            },
            Internal::Square {
                side: 3.0,
                label: None,
            },
            Internal::Empty,
        ],
        external: vec![
            External::Unit,
            External::Newtype(7),
            External::Tuple(-3, "t".into()),
            External::Struct { a: true },
        ],
        adjacent: vec![Adjacent::Num(-9), Adjacent::Text("x".into())],
        untagged: vec![
            Untagged::Pair {
                first: "a".into(),
                second: "b".into(),
            },
            Untagged::One { first: "a".into() },
            Untagged::Number(u64::MAX),
        ],
        flattened: Flattened {
            id: "f".into(),
            meta: Meta {
                created: 1_700_000_000,
                tags: vec!["x".into()],
            },
            rest: BTreeMap::from([("extra".into(), serde_json::json!({"kept": [1, null]}))]),
        },
        numbers: Numbers {
            big: u64::MAX,
            small: i64::MIN,
            wide: i128::from(i64::MAX) * 4,
            byte: 255,
            ratio: 0.1,
        },
        pair: ("p".into(), -2),
        map: BTreeMap::from([("k".into(), vec![1, 65535])]),
        tree: Node {
            name: "root".into(),
            children: vec![
                leaf("a"),
                Node {
                    name: "b".into(),
                    children: vec![leaf("c")],
                    parent: Some(Box::new(leaf("root"))),
                },
            ],
            parent: None,
        },
        maybe: None,
    }
}

/// `value` as the type `T` (one side's type to the other's).
fn convert<T: DeserializeOwned>(value: &impl Serialize) -> T {
    // Through text: a `serde_json::Value` holds no integer wider than 64 bits.
    let json = serde_json::to_string(value).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|err| panic!("{json}: {err}"))
}

async fn round_trips<T: typed_rpc::client::Transport>(client: &generated::ShapesClient<T>) {
    let original = everything();
    let sent: generated::Everything = convert(&original);
    let back = client.echo(sent.clone()).await.unwrap();
    assert_eq!(back, sent);
    assert_eq!(convert::<Everything>(&back), original);

    // The document's errors are a typed error of the generated client.
    match client.fail(3).await {
        Err(CallError::App(generated::FailError::TooDeep(data))) => assert_eq!(data.depth, 3),
        other => panic!("not `TooDeep`: {other:?}"),
    }
    assert!(matches!(
        client.fail(0).await,
        Err(CallError::App(generated::FailError::Empty(None)))
    ));

    let items: Vec<_> = client.repeat(sent, 3).await.unwrap().collect().await;
    assert_eq!(items.len(), 3);
    for (i, item) in items.into_iter().enumerate() {
        let mut expected = original.clone();
        expected.numbers.small = i as i64;
        assert_eq!(convert::<Everything>(&item.unwrap()), expected);
    }
}

#[tokio::test]
async fn every_shape_comes_back_equal_through_the_generated_client() {
    let router = Router::new(Echo.into_service());
    let server = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let addr = server.local_addr().unwrap();

    let http = generated::ShapesClient::new(HttpClient::new(&format!("http://{addr}/")).unwrap());
    round_trips(&http).await;
    let ws = WsConnector::new()
        .connect(&format!("ws://{addr}/"))
        .await
        .unwrap();
    round_trips(&generated::ShapesClient::new(ws)).await;

    server.shutdown().await;
}
