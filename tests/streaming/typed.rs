//! A streaming method whose error types derive `RpcError`: the call that
//! starts the stream and each error item come back as `CallError<E>`, the
//! server's errors typed in `CallError::App`, as a unary method's do, over
//! Server-Sent Events and over WebSocket and TCP subscriptions.

use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt};
use typed_rpc::client::{CallError, Subscription, Transport};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc::{ClientError, ErrorObject, Router, RpcError, RpcResult, rpc};

use crate::connect;

#[derive(Debug, PartialEq, RpcError)]
pub enum JobError {
    #[rpc_error(code = 4004, message = "No such job")]
    NotFound { job: String },
    #[rpc_error(code = 4010, message = "Job failed")]
    Failed { step: u32 },
}

#[rpc(namespace = "jobs")]
pub trait Jobs {
    /// Steps 0, 1, 2 of `job`, then its failure at step 3; a job other
    /// than `build` is not found.
    #[method(name = "watch", stream)]
    async fn watch(
        &self,
        job: String,
    ) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError>;

    /// The call's errors are plain error objects, the items' typed.
    #[method(name = "steps", stream)]
    async fn steps(
        &self,
        count: u32,
    ) -> RpcResult<impl Stream<Item = Result<u32, JobError>> + Send + 'static>;

    /// One step, then an error object that is not one of `JobError`'s.
    #[method(name = "odd", stream)]
    async fn odd(
        &self,
    ) -> Result<impl Stream<Item = Result<u32, ErrorObject>> + Send + 'static, JobError>;

    /// A step every 10 ms, without end.
    #[method(name = "tail", stream)]
    async fn tail(
        &self,
    ) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError>;
}

#[derive(Clone, Copy)]
pub struct Runner;

impl Jobs for Runner {
    async fn watch(
        &self,
        job: String,
    ) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError> {
        if job != "build" {
            return Err(JobError::NotFound { job });
        }
        Ok(stream::iter(0..4).map(|step| match step {
            3 => Err(JobError::Failed { step }),
            _ => Ok(step),
        }))
    }

    async fn steps(
        &self,
        count: u32,
    ) -> RpcResult<impl Stream<Item = Result<u32, JobError>> + Send + 'static> {
        Ok(stream::iter(0..count).map(Ok))
    }

    async fn odd(
        &self,
    ) -> Result<impl Stream<Item = Result<u32, ErrorObject>> + Send + 'static, JobError> {
        Ok(stream::iter([Ok(0), Err(ErrorObject::new(4999, "Odd"))]))
    }

    async fn tail(
        &self,
    ) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError> {
        Ok(stream::unfold(0u32, |step| async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Some((Ok(step), step + 1))
        }))
    }
}

pub fn router() -> Router {
    Router::new(Runner.into_service())
}

pub async fn serve_http() -> ServerHandle {
    Server::new(router())
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

pub async fn serve_tcp() -> ServerHandle {
    Server::new(router())
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap()
}

/// Reads what is left of `items`, within the test's patience.
async fn rest<T, E>(items: &mut Subscription<T, E>) -> Vec<Result<T, E>>
where
    T: serde::de::DeserializeOwned,
    E: From<ClientError>,
{
    let mut seen = Vec::new();
    while let Some(item) = tokio::time::timeout(connect::PATIENCE, items.next())
        .await
        .expect("the stream ends")
    {
        seen.push(item);
    }
    seen
}

/// The checks every transport passes.
async fn typed_both_ways<T: Transport>(client: JobsClient<T>) {
    match client.watch("deploy".into()).await {
        Err(CallError::App(JobError::NotFound { job })) => assert_eq!(job, "deploy"),
        other => panic!("expected the typed refusal, got {other:?}"),
    }
    let mut items = client.watch("build".into()).await.unwrap();
    let seen = rest(&mut items).await;
    assert_eq!(seen.len(), 4, "{seen:?}");
    for (step, item) in seen.iter().take(3).enumerate() {
        assert_eq!(item.as_ref().unwrap(), &(step as u32));
    }
    match &seen[3] {
        Err(CallError::App(JobError::Failed { step: 3 })) => {}
        other => panic!("expected the typed error item, got {other:?}"),
    }
    // The call's error and the items' are each their own type's.
    let steps: Subscription<u32, CallError<JobError>> = client.steps(2).await.unwrap();
    let mut steps = steps;
    assert_eq!(rest(&mut steps).await.len(), 2);
    // An error object `E` does not know stays one, in `Rpc`.
    let mut odd = client.odd().await.unwrap();
    let seen = rest(&mut odd).await;
    assert_eq!(seen[0].as_ref().unwrap(), &0);
    let error = seen[1].as_ref().unwrap_err();
    assert_eq!(error.rpc_error().map(ErrorObject::code), Some(4999));
}

#[tokio::test]
async fn over_server_sent_events() {
    let handle = serve_http().await;
    typed_both_ways(JobsClient::new(connect::http(&handle))).await;
}

#[tokio::test]
async fn over_a_websocket_subscription() {
    let handle = serve_http().await;
    typed_both_ways(JobsClient::new(connect::websocket(&handle).await)).await;
}

#[tokio::test]
async fn over_a_tcp_subscription() {
    let handle = serve_tcp().await;
    typed_both_ways(JobsClient::new(connect::tcp(&handle).await)).await;
}
