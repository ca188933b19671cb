//! The API under test: a key-value store whose errors derive `RpcError`.

use typed_rpc::{Router, RpcError, rpc};

/// Every shape of variant: named fields, one unnamed field, several, none
/// (with a reserved code taken on purpose).
#[derive(Debug, PartialEq, RpcError)]
pub enum KvError {
    #[rpc_error(code = 1001, message = "Key not found")]
    NotFound {
        key: String,
        similar: Option<String>,
    },
    #[rpc_error(code = 1002)]
    StoreFull(u32),
    #[rpc_error(code = 1003, message = "Version conflict")]
    Conflict(String, u64),
    #[rpc_error(code = -32001, reserved, message = "Read only")]
    ReadOnly,
}

#[rpc(namespace = "kv")]
pub trait Kv {
    /// Fails with the error named by `key`: `full`, `conflict`, `readonly`,
    /// or else not found.
    #[method(name = "get")]
    async fn get(&self, key: String) -> Result<String, KvError>;

    /// Succeeds, and keeps the untyped client error.
    #[method(name = "len")]
    async fn len(&self) -> typed_rpc::RpcResult<u64>;
}

/// A method the server does not have, with the same error type.
#[rpc(namespace = "kv")]
pub trait KvAdmin {
    #[method(name = "compact")]
    async fn compact(&self) -> Result<(), KvError>;
}

pub struct Store;

impl Kv for Store {
    async fn get(&self, key: String) -> Result<String, KvError> {
        Err(match key.as_str() {
            "full" => KvError::StoreFull(100),
            "conflict" => KvError::Conflict(key, 7),
            "readonly" => KvError::ReadOnly,
            _ => KvError::NotFound {
                similar: Some(format!("{key}s")),
                key,
            },
        })
    }

    async fn len(&self) -> typed_rpc::RpcResult<u64> {
        Ok(0)
    }
}

pub fn router() -> Router {
    Router::new(Store.into_service())
}
