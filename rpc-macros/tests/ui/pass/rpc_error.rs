//! `#[derive(RpcError)]` on every shape of variant, with a reserved code
//! taken on purpose, and the generated client returning `CallError<E>`
//! (also through an alias of the result type).

use typed_rpc::client::InProcess;
use typed_rpc::{CallError, ErrorObject, Router, RpcError, rpc};

#[derive(Debug, PartialEq, RpcError)]
pub enum KvError {
    #[rpc_error(code = 1001, message = "Key not found")]
    NotFound { key: String, similar: Option<String> },
    #[rpc_error(code = 1002)]
    StoreFull(u32),
    #[rpc_error(code = 1003)]
    Conflict(String, u64),
    #[rpc_error(code = -32001, reserved, message = "Read only")]
    ReadOnly,
}

pub type KvResult = Result<String, KvError>;

#[rpc(namespace = "kv")]
pub trait Kv {
    #[method(name = "get")]
    async fn get(&self, key: String) -> Result<String, KvError>;

    #[method(name = "first")]
    async fn first(&self) -> KvResult;
}

struct Store;

impl Kv for Store {
    async fn get(&self, key: String) -> Result<String, KvError> {
        Err(KvError::NotFound { key, similar: None })
    }

    async fn first(&self) -> KvResult {
        Err(KvError::ReadOnly)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let object = ErrorObject::from(KvError::StoreFull(3));
    assert_eq!(object.message(), "Store full");
    assert_eq!(KvError::try_from(object).unwrap(), KvError::StoreFull(3));

    let kv = KvClient::new(InProcess::new(Router::new(Store.into_service())));
    let err: CallError<KvError> = kv.get("a".into()).await.unwrap_err();
    assert_eq!(
        err.app_error(),
        Some(&KvError::NotFound { key: "a".into(), similar: None })
    );
    assert!(matches!(kv.first().await, Err(CallError::App(KvError::ReadOnly))));
}
