//! A small store, and a client-side view of it with one method more (a
//! server of an older version): the unknown method in a batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use typed_rpc::{Router, RpcError, RpcResult, rpc};

#[derive(Debug, PartialEq, RpcError)]
pub enum StoreError {
    #[rpc_error(code = 1001, message = "Key not found")]
    NotFound { key: String },
}

#[rpc(namespace = "store")]
pub trait Store {
    #[method(name = "get")]
    async fn get(&self, key: String) -> Result<String, StoreError>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "total")]
    async fn total(&self) -> RpcResult<u64>;

    #[notification(name = "bump")]
    async fn bump(&self, by: u64);
}

/// What the client believes the server has: `Store`'s methods and `compact`.
#[rpc(namespace = "store")]
pub trait NewerStore {
    #[method(name = "get")]
    async fn get(&self, key: String) -> Result<String, StoreError>;

    #[method(name = "compact")]
    async fn compact(&self) -> Result<u64, StoreError>;

    #[method(name = "total")]
    async fn total(&self) -> RpcResult<u64>;

    #[notification(name = "bump")]
    async fn bump(&self, by: u64);
}

#[derive(Clone, Default)]
pub struct Server {
    bumped: Arc<AtomicU64>,
}

impl Store for Server {
    async fn get(&self, key: String) -> Result<String, StoreError> {
        match key.as_str() {
            "a" => Ok("apple".into()),
            _ => Err(StoreError::NotFound { key }),
        }
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn total(&self) -> RpcResult<u64> {
        Ok(self.bumped.load(Ordering::SeqCst))
    }

    async fn bump(&self, by: u64) {
        self.bumped.fetch_add(by, Ordering::SeqCst);
    }
}

/// A router for `server`, with room for at most `max_batch_len` calls a batch.
pub fn router(server: &Server, max_batch_len: usize) -> Router {
    Router::builder()
        .service(server.clone().into_service())
        .max_batch_len(max_batch_len)
        .build()
        .unwrap()
}
