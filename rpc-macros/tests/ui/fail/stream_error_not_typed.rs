// A streaming method whose error type the client cannot read back: one
// error, on the return type, as for a unary method, and none from the
// projections the client's return type names through it.
use futures_util::stream::{self, Stream};
use typed_rpc::ErrorObject;
use typed_rpc::rpc;

#[derive(Debug)]
pub struct JobError;

impl From<JobError> for ErrorObject {
    fn from(_: JobError) -> Self {
        ErrorObject::new(1, "Job error")
    }
}

#[rpc]
pub trait Jobs {
    #[method(name = "watch", stream)]
    async fn watch(&self) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError>;
}

struct Server;

impl Jobs for Server {
    async fn watch(&self) -> Result<impl Stream<Item = Result<u32, JobError>> + Send + 'static, JobError> {
        Ok(stream::iter([Ok(1)]))
    }
}

fn main() {}
