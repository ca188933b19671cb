//! The in-process client carries a caller: headers for the layers that
//! read them, extensions as a layer would set them, a whole context, and a
//! connection of its own that a login holds for.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::stream::{self, Stream, StreamExt};

use typed_rpc::client::InProcess;
use typed_rpc::http::header::AUTHORIZATION;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{Context, ErrorObject, Router, RpcResult, TransportKind, rpc};

/// The tenant whose data a call may see.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tenant(u32);

#[rpc(namespace = "jobs", namespace_separator = ".")]
pub trait Jobs {
    /// The tenant's jobs.
    #[method(name = "list")]
    async fn list(&self, #[context] cx: &Context) -> RpcResult<Vec<String>>;

    /// Logs the connection in as `tenant`.
    #[method(name = "login")]
    async fn login(&self, #[context] cx: &Context, tenant: u32) -> RpcResult<()>;

    /// The transport and peer the call came from.
    #[method(name = "peer")]
    async fn peer(&self, #[context] cx: &Context) -> RpcResult<(String, Option<SocketAddr>)>;

    /// Counts a job for the tenant; never answered.
    #[notification(name = "touch")]
    async fn touch(&self, #[context] cx: &Context);

    /// The tenant's job `job` as it runs: its progress, `steps` states,
    /// then an error if `fail`; without end if `steps` is 0.
    #[method(name = "watch", stream)]
    async fn watch(
        &self,
        #[context] cx: &Context,
        job: String,
        steps: u64,
        fail: bool,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static>;
}

#[derive(Clone, Default)]
struct Store {
    touched: Arc<Mutex<Vec<u32>>>,
    /// The `watch` streams alive.
    watching: Arc<AtomicUsize>,
}

/// Counts a stream out when it is dropped.
struct Watching(Arc<AtomicUsize>);

impl Drop for Watching {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn tenant(cx: &Context) -> RpcResult<Tenant> {
    cx.extensions()
        .get::<Tenant>()
        .copied()
        .ok_or_else(|| ErrorObject::new(4001, "Unauthorized"))
}

impl Jobs for Store {
    async fn list(&self, cx: &Context) -> RpcResult<Vec<String>> {
        let Tenant(id) = tenant(cx)?;
        Ok(vec![format!("job-{id}-a"), format!("job-{id}-b")])
    }

    async fn login(&self, cx: &Context, tenant: u32) -> RpcResult<()> {
        let connection = cx.connection_extensions().expect("a connection");
        connection.insert(Tenant(tenant));
        Ok(())
    }

    async fn peer(&self, cx: &Context) -> RpcResult<(String, Option<SocketAddr>)> {
        Ok((cx.transport().to_string(), cx.remote_addr()))
    }

    async fn touch(&self, cx: &Context) {
        if let Ok(Tenant(id)) = tenant(cx) {
            self.touched.lock().unwrap().push(id);
        }
    }

    async fn watch(
        &self,
        cx: &Context,
        job: String,
        steps: u64,
        fail: bool,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static> {
        let Tenant(id) = tenant(cx)?;
        self.watching.fetch_add(1, Ordering::SeqCst);
        let watching = Watching(self.watching.clone());
        let ends = if steps > 0 { steps } else { u64::MAX };
        let states = stream::iter(0..ends).map(move |step| {
            let _watching = &watching;
            Ok(format!("tenant-{id}/{job}: step {step}"))
        });
        let failure = fail.then(|| Err(ErrorObject::new(-32053, "Job failed")));
        Ok(states.chain(stream::iter(failure)))
    }
}

/// The tenant from a bearer token (`tenant-7`), or from the connection's
/// login.
struct TenantAuth;

impl CallLayer for TenantAuth {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let context = request.context();
        let from_token = context
            .headers()
            .and_then(|headers| headers.get(AUTHORIZATION)?.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer tenant-")?.parse().ok())
            .map(Tenant);
        let from_login = context
            .connection_extensions()
            .and_then(|connection| connection.get::<Tenant>());
        if let Some(tenant) = from_token.or(from_login.as_deref().copied()) {
            request.context_mut().extensions_mut().insert(tenant);
        }
        next.run(request).await
    }
}

fn router() -> Router {
    Router::builder()
        .service(Store::default().into_service())
        .layer(TenantAuth)
        .build()
        .unwrap()
}

#[tokio::test]
async fn headers_reach_the_layers_and_each_client_is_its_own_caller() {
    let router = router();
    let seven =
        JobsClient::new(InProcess::new(router.clone()).header("authorization", "Bearer tenant-7"));
    let eight =
        JobsClient::new(InProcess::new(router.clone()).header("authorization", "Bearer tenant-8"));
    let nobody = JobsClient::new(InProcess::new(router));
    assert_eq!(seven.list().await.unwrap(), ["job-7-a", "job-7-b"]);
    assert_eq!(eight.list().await.unwrap(), ["job-8-a", "job-8-b"]);
    let err = nobody.list().await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4001);
}

#[tokio::test]
async fn an_extension_reaches_the_handler_as_if_a_layer_had_set_it() {
    let store = Store::default();
    // No layer at all: the handler alone is under test.
    let client = InProcess::new(Router::new(store.clone().into_service())).extension(Tenant(3));
    let jobs = JobsClient::new(client.clone());
    assert_eq!(jobs.list().await.unwrap(), ["job-3-a", "job-3-b"]);
    // Batches and notifications carry it too.
    let mut batch = jobs.batch();
    let listed = batch.list();
    batch.touch();
    let replies = batch.await.unwrap();
    assert_eq!(replies.get(listed).unwrap(), ["job-3-a", "job-3-b"]);
    jobs.touch().await.unwrap();
    assert_eq!(*store.touched.lock().unwrap(), [3, 3]);
}

#[tokio::test]
async fn a_context_says_which_transport_and_peer_the_calls_come_from() {
    let peer: SocketAddr = "192.0.2.7:4000".parse().unwrap();
    let context = Context::new(TransportKind::Tcp).with_remote_addr(peer);
    let jobs = JobsClient::new(InProcess::new(router()).context(context));
    assert_eq!(jobs.peer().await.unwrap(), ("tcp".to_owned(), Some(peer)));
    let plain = JobsClient::new(InProcess::new(router()));
    assert_eq!(plain.peer().await.unwrap(), ("in-process".to_owned(), None));
}

#[tokio::test]
async fn a_login_holds_for_the_later_calls_of_the_client_and_its_clones_alone() {
    let router = router();
    let client = InProcess::new(router.clone());
    let jobs = JobsClient::new(client.clone());
    assert!(jobs.list().await.is_err());
    jobs.login(5).await.unwrap();
    assert_eq!(jobs.list().await.unwrap(), ["job-5-a", "job-5-b"]);
    let clone = JobsClient::new(client.clone());
    assert_eq!(clone.list().await.unwrap(), ["job-5-a", "job-5-b"]);
    assert_eq!(
        client.connection_extensions().get::<Tenant>().as_deref(),
        Some(&Tenant(5)),
        "the test reads what the login stored"
    );
    let other = JobsClient::new(InProcess::new(router.clone()));
    assert!(
        other.list().await.is_err(),
        "another client is another connection"
    );

    // A test may also start logged in, and a context of its own keeps the
    // client's connection.
    let logged_in = InProcess::new(router).context(Context::new(TransportKind::WebSocket));
    logged_in.connection_extensions().insert(Tenant(9));
    let logged_in = JobsClient::new(logged_in);
    assert_eq!(logged_in.list().await.unwrap(), ["job-9-a", "job-9-b"]);
}

#[tokio::test]
async fn a_streaming_method_streams_in_process_with_the_caller_s_context() {
    let store = Store::default();
    let watching = store.watching.clone();
    let router = Router::builder()
        .service(store.into_service())
        .layer(TenantAuth)
        .build()
        .unwrap();
    let seven =
        JobsClient::new(InProcess::new(router.clone()).header("authorization", "Bearer tenant-7"));
    let mut states = seven.watch("backup".into(), 2, true).await.unwrap();
    assert_eq!(
        states.next().await.unwrap().unwrap(),
        "tenant-7/backup: step 0"
    );
    assert_eq!(
        states.next().await.unwrap().unwrap(),
        "tenant-7/backup: step 1"
    );
    let err = states.next().await.unwrap().unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32053);
    assert!(states.next().await.is_none());

    // Read as the test reads: a stream without end, dropped, drops the producer.
    let mut endless = seven.watch("sync".into(), 0, false).await.unwrap();
    for step in 0..1000 {
        assert_eq!(
            endless.next().await.unwrap().unwrap(),
            format!("tenant-7/sync: step {step}")
        );
    }
    assert_eq!(watching.load(Ordering::SeqCst), 1);
    drop(endless);
    assert_eq!(watching.load(Ordering::SeqCst), 0);

    // Refused before its stream, by the handler: the call's error.
    let nobody = JobsClient::new(InProcess::new(router));
    let err = nobody.watch("backup".into(), 1, false).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4001);
}
