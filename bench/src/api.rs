//! The benchmark API, defined once for typed-rpc and once for jsonrpsee 0.26.
//!
//! Methods (same names and semantics in all three servers, the floor included):
//!
//! | name         | params                | result                        |
//! |--------------|-----------------------|-------------------------------|
//! | `add`        | `a: i64, b: i64`      | `a + b` (wrapping)            |
//! | `add_struct` | the whole params as `AddParams {a, b}` | `a + b`      |
//! | `sleep`      | `ms: u64`             | `ms`, after sleeping `ms` ms  |
//! | `notify`     | `a: i64, b: i64`      | notification: adds to a total |

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The params of `add_struct`, bound whole (`#[params]` in typed-rpc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddParams {
    /// First addend.
    pub a: i64,
    /// Second addend.
    pub b: i64,
}

/// A running total the `notify` notification adds to, so the handler has an
/// observable effect in every implementation.
pub static NOTIFIED: AtomicI64 = AtomicI64::new(0);

/// The one piece of "business logic": shared so all servers do the same work.
#[inline]
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// What `notify` does.
#[inline]
pub fn record(a: i64, b: i64) {
    NOTIFIED.fetch_add(a.wrapping_add(b), Ordering::Relaxed);
}

/// The `sleep` handler's wait.
pub async fn sleep_ms(ms: u64) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// typed-rpc.
pub mod ours {
    use typed_rpc::{Router, RpcResult, rpc};

    use super::AddParams;

    /// The benchmark API.
    #[rpc]
    pub trait Bench {
        /// `a + b`.
        #[method(name = "add")]
        async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

        /// `a + b`, the params bound whole to a struct.
        #[method(name = "add_struct")]
        async fn add_struct(&self, #[params] p: AddParams) -> RpcResult<i64>;

        /// Sleeps `ms` milliseconds, returns `ms`.
        #[method(name = "sleep")]
        async fn sleep(&self, ms: u64) -> RpcResult<u64>;

        /// Adds `a + b` to a running total; never answered.
        #[notification(name = "notify")]
        async fn notify(&self, a: i64, b: i64);
    }

    /// The server.
    pub struct Server;

    impl Bench for Server {
        async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
            Ok(super::add(a, b))
        }

        async fn add_struct(&self, p: AddParams) -> RpcResult<i64> {
            Ok(super::add(p.a, p.b))
        }

        async fn sleep(&self, ms: u64) -> RpcResult<u64> {
            Ok(super::sleep_ms(ms).await)
        }

        async fn notify(&self, a: i64, b: i64) {
            super::record(a, b);
        }
    }

    /// The router serving [`Server`].
    pub fn router() -> Router {
        Router::new(Server.into_service())
    }

    /// [`router`] with one call layer that only passes each call on: what
    /// the stack itself costs.
    pub fn layered_router() -> Router {
        Router::builder()
            .service(Server.into_service())
            .layer(PassOn)
            .build()
            .expect("one service")
    }

    struct PassOn;

    impl typed_rpc::middleware::CallLayer for PassOn {
        async fn call<'a>(
            &'a self,
            request: typed_rpc::middleware::CallRequest<'a>,
            next: typed_rpc::middleware::Next<'a>,
        ) -> typed_rpc::middleware::Reply {
            next.run(request).await
        }
    }
}

/// jsonrpsee 0.26, written the way its documentation shows.
pub mod jsonrpsee_api {
    use jsonrpsee::RpcModule;
    use jsonrpsee::core::{RpcResult, async_trait};
    use jsonrpsee::proc_macros::rpc;
    use jsonrpsee::types::ErrorObjectOwned;

    use super::AddParams;

    /// The benchmark API. `add_struct` is registered by hand in [`module`]:
    /// jsonrpsee's macro has no way to bind the whole params to one argument.
    #[rpc(server)]
    pub trait Bench {
        /// `a + b`.
        #[method(name = "add")]
        async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

        /// Sleeps `ms` milliseconds, returns `ms`.
        #[method(name = "sleep")]
        async fn sleep(&self, ms: u64) -> RpcResult<u64>;

        /// Adds `a + b` to a running total. jsonrpsee has no server-side
        /// notifications: a request without id is acknowledged and dropped,
        /// this method is never run for one.
        #[method(name = "notify")]
        async fn notify(&self, a: i64, b: i64) -> RpcResult<()>;
    }

    /// The server.
    pub struct Server;

    #[async_trait]
    impl BenchServer for Server {
        async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
            Ok(super::add(a, b))
        }

        async fn sleep(&self, ms: u64) -> RpcResult<u64> {
            Ok(super::sleep_ms(ms).await)
        }

        async fn notify(&self, a: i64, b: i64) -> RpcResult<()> {
            super::record(a, b);
            Ok(())
        }
    }

    /// The module serving [`Server`], with `add_struct` registered by hand.
    pub fn module() -> RpcModule<()> {
        let mut module = RpcModule::new(());
        module.merge(Server.into_rpc()).expect("no duplicate names");
        module
            .register_async_method("add_struct", |params, _, _| async move {
                let p: AddParams = params.parse()?;
                Ok::<i64, ErrorObjectOwned>(super::add(p.a, p.b))
            })
            .expect("no duplicate names");
        module
    }
}
