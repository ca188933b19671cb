//! The service the tests wrap, and layers that record what they see.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt};
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{Context, ErrorObject, RpcResult, rpc};

/// Who a layer found the caller to be, for the handler.
#[derive(Clone, Debug, PartialEq)]
pub struct Caller(pub String);

#[rpc]
pub trait Shop {
    /// `a + b`.
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// Always `-32042` "Out of stock".
    #[method(name = "buy")]
    async fn buy(&self, item: String) -> RpcResult<()>;

    /// The caller a layer put in the context's extensions, if any.
    #[method(name = "whoami")]
    async fn whoami(&self, #[context] cx: &Context) -> RpcResult<Option<String>>;

    /// Answers after `millis` milliseconds.
    #[method(name = "slow")]
    async fn slow(&self, millis: u64) -> RpcResult<u64>;

    /// The running total of the `bump`s.
    #[method(name = "total")]
    async fn total(&self) -> RpcResult<i64>;

    /// Adds `by` to the total; never answered.
    #[notification(name = "bump")]
    async fn bump(&self, by: i64);

    /// The numbers `0..count`.
    #[method(name = "ticks", stream)]
    async fn ticks(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    /// The numbers `0..count`, one every `millis` milliseconds.
    #[method(name = "drip", stream)]
    async fn drip(
        &self,
        count: u64,
        millis: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;
}

#[derive(Clone, Default)]
pub struct Store {
    pub total: Arc<AtomicI64>,
}

impl Shop for Store {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn buy(&self, _item: String) -> RpcResult<()> {
        Err(ErrorObject::new(-32042, "Out of stock"))
    }

    async fn whoami(&self, cx: &Context) -> RpcResult<Option<String>> {
        Ok(cx
            .extensions()
            .get::<Caller>()
            .map(|caller| caller.0.clone()))
    }

    async fn slow(&self, millis: u64) -> RpcResult<u64> {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        Ok(millis)
    }

    async fn total(&self) -> RpcResult<i64> {
        Ok(self.total.load(Ordering::SeqCst))
    }

    async fn bump(&self, by: i64) {
        self.total.fetch_add(by, Ordering::SeqCst);
    }

    async fn ticks(
        &self,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter(0..count).map(Ok))
    }

    async fn drip(
        &self,
        count: u64,
        millis: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter(0..count).then(move |n| async move {
            tokio::time::sleep(Duration::from_millis(millis)).await;
            Ok(n)
        }))
    }
}

/// What a [`Recorder`] layer saw, in order, shared by all the recorders
/// of one test.
#[derive(Clone, Default)]
pub struct Journal(Arc<Mutex<Vec<String>>>);

impl Journal {
    pub fn write(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }

    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Writes `<name> before <method> <id>` and `<name> after <method> <code>`
/// (`ok` for a result, `-` for no reply) around each call.
pub struct Recorder {
    pub name: &'static str,
    pub journal: Journal,
}

impl CallLayer for Recorder {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let method = request.method().to_owned();
        let id = request.id().map_or("-".to_owned(), |id| id.to_string());
        self.journal
            .write(format!("{} before {method} {id}", self.name));
        let reply = next.run(request).await;
        let outcome = match (reply.text(), reply.error()) {
            (None, _) => "-".to_owned(),
            (Some(_), Some(error)) => error.code().to_string(),
            (Some(_), None) => "ok".to_owned(),
        };
        self.journal
            .write(format!("{} after {method} {outcome}", self.name));
        reply
    }
}

/// Refuses every method whose name starts with `prefix`, `-32001`
/// "Unauthorized", without the handler; passes on the rest.
pub struct Deny {
    pub prefix: &'static str,
}

impl CallLayer for Deny {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        if request.method().starts_with(self.prefix) {
            return request.reject(&ErrorObject::new(-32001, "Unauthorized"));
        }
        next.run(request).await
    }
}

/// Names the caller `name` in the context's extensions.
pub struct Identify {
    pub name: &'static str,
}

impl CallLayer for Identify {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        request
            .context_mut()
            .extensions_mut()
            .insert(Caller(self.name.to_owned()));
        next.run(request).await
    }
}
