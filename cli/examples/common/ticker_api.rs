//! Streaming methods for the CLI to read: the `ticker` example serves them,
//! and the CLI's tests serve them in process.

use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt};
use serde::{Deserialize, Serialize};
use typed_rpc::{ErrorObject, RpcResult, rpc};

/// One item of a count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tick {
    pub n: u64,
    pub square: u64,
}

#[rpc]
pub trait Ticker {
    /// The numbers `0..to`, one item each, `every_ms` milliseconds apart
    /// (at once without it).
    #[method(name = "count", stream)]
    async fn count(
        &self,
        to: u64,
        every_ms: Option<u64>,
    ) -> RpcResult<impl Stream<Item = RpcResult<Tick>> + Send + 'static>;

    /// `first` items, then an error item that ends the stream.
    #[method(name = "failing", stream)]
    async fn failing(
        &self,
        first: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<Tick>> + Send + 'static>;
}

/// The ticker.
#[derive(Clone, Copy, Default)]
pub struct Ticks;

impl Ticker for Ticks {
    async fn count(
        &self,
        to: u64,
        every_ms: Option<u64>,
    ) -> RpcResult<impl Stream<Item = RpcResult<Tick>> + Send + 'static> {
        let pause = Duration::from_millis(every_ms.unwrap_or(0));
        Ok(stream::iter(0..to).then(move |n| async move {
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            Ok(Tick {
                n,
                square: n.wrapping_mul(n),
            })
        }))
    }

    async fn failing(
        &self,
        first: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<Tick>> + Send + 'static> {
        Ok(stream::iter(0..=first).map(move |n| match n == first {
            true => Err(ErrorObject::new(-32050, "Ran dry")),
            false => Ok(Tick { n, square: n * n }),
        }))
    }
}
