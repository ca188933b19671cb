//! The streaming API the tests serve, and drop guards that say when a
//! producer is gone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use typed_rpc::{Context, ErrorObject, RpcResult, rpc};

/// A block header, as `newHeads` carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Head {
    pub number: String,
    pub hash: String,
}

#[rpc]
pub trait Ticker {
    /// The numbers `from..to`, one item each.
    #[method(name = "count", stream)]
    async fn count(
        &self,
        from: u64,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// `first` items, then an error item.
    #[method(name = "failing", stream)]
    async fn failing(
        &self,
        first: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// Refused before any item.
    #[method(name = "refused", stream)]
    async fn refused(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// Numbers without end, one every `every_ms`, counted by the server's drop guard.
    #[method(name = "forever", stream)]
    async fn forever(
        &self,
        every_ms: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// `count` items as fast as they are taken, each counted as it is made.
    #[method(name = "flood", stream)]
    async fn flood(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static>;

    /// `count` objects as raw, pretty-printed JSON: line breaks inside each item.
    #[method(name = "pretty", stream)]
    async fn pretty(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<Box<RawValue>>> + Send + 'static>;

    /// One item, then a panic in the producer.
    #[method(name = "panicky", stream)]
    async fn panicky(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// Ethereum-style new heads, one every 20 ms.
    #[method(
        name = "eth_subscribe",
        stream(notification = "eth_subscription", unsubscribe = "eth_unsubscribe")
    )]
    async fn subscribe(
        &self,
        kind: String,
    ) -> RpcResult<impl Stream<Item = RpcResult<Head>> + Send + 'static>;

    /// Sends `count` progress notifications through its context, then answers `done`.
    #[method(name = "work")]
    async fn work(&self, #[context] cx: &Context, count: u64) -> RpcResult<String>;

    /// A job's states `0..steps`, then an error if `fail`; a caller that
    /// cannot stream gets the last state as the result.
    #[method(name = "job", stream(fallback = "last_item"))]
    async fn job(
        &self,
        steps: u64,
        fail: bool,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// A plain method, beside the streaming ones.
    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;
}

/// The server: counts the producers of `forever` alive.
#[derive(Clone, Default)]
pub struct Server {
    pub alive: Arc<AtomicUsize>,
    /// Items `flood` has made.
    pub made: Arc<AtomicUsize>,
}

/// Counts a producer while it lives.
struct Alive(Arc<AtomicUsize>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Ticker for Server {
    async fn count(
        &self,
        from: u64,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter(from..to).map(Ok))
    }

    async fn failing(
        &self,
        first: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        let error = ErrorObject::new(-32050, "Ran dry");
        Ok(stream::iter(0..first)
            .map(Ok)
            .chain(stream::once(async move { Err(error) })))
    }

    async fn refused(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Err::<stream::Empty<RpcResult<u64>>, _>(ErrorObject::new(-32051, "Not now"))
    }

    async fn forever(
        &self,
        every_ms: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        self.alive.fetch_add(1, Ordering::SeqCst);
        let alive = Alive(self.alive.clone());
        Ok(stream::unfold(
            (0u64, alive),
            move |(n, alive)| async move {
                tokio::time::sleep(Duration::from_millis(every_ms)).await;
                Some((Ok(n), (n + 1, alive)))
            },
        ))
    }

    async fn flood(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static> {
        let made = self.made.clone();
        Ok(stream::iter(0..count).map(move |n| {
            made.fetch_add(1, Ordering::Relaxed);
            Ok(format!("{n:0>64}"))
        }))
    }

    async fn pretty(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<Box<RawValue>>> + Send + 'static> {
        Ok(stream::iter(0..count).map(|n| {
            let pretty = serde_json::to_string_pretty(&pretty_item(n)).unwrap();
            Ok(RawValue::from_string(pretty.replace('\n', "\r\n")).unwrap())
        }))
    }

    async fn panicky(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter(0..2u64).map(|n| match n {
            0 => Ok(n),
            _ => panic!("the producer broke"),
        }))
    }

    async fn subscribe(
        &self,
        kind: String,
    ) -> RpcResult<impl Stream<Item = RpcResult<Head>> + Send + 'static> {
        if kind != "newHeads" {
            return Err(ErrorObject::new(-32602, "Unknown subscription"));
        }
        self.alive.fetch_add(1, Ordering::SeqCst);
        let alive = Alive(self.alive.clone());
        Ok(stream::unfold((1u64, alive), |(n, alive)| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let head = Head {
                number: format!("0x{n:x}"),
                hash: format!("0x{n:064x}"),
            };
            Some((Ok(head), (n + 1, alive)))
        }))
    }

    async fn work(&self, cx: &Context, count: u64) -> RpcResult<String> {
        for step in 0..count {
            cx.notify("progress", &serde_json::json!({ "step": step }))
                .await
                .map_err(|err| ErrorObject::new(-32052, err.to_string()))?;
        }
        Ok("done".into())
    }

    async fn job(
        &self,
        steps: u64,
        fail: bool,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        let error = fail.then(|| ErrorObject::new(-32053, "Job failed"));
        Ok(stream::iter(0..steps)
            .map(Ok)
            .chain(stream::iter(error.map(Err))))
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".into())
    }
}

/// The `n`th item of `pretty`, as a value.
pub fn pretty_item(n: u64) -> serde_json::Value {
    serde_json::json!({"n": n, "lines": ["a", "b"], "nested": {"text": "x\ny"}})
}

/// Waits until `alive` reads `expected`, for at most a few seconds.
pub async fn settles(alive: &AtomicUsize, expected: usize) -> bool {
    for _ in 0..200 {
        if alive.load(Ordering::SeqCst) == expected {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}
