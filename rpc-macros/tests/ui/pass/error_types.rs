//! Methods may fail with the user's own error type, converted to an error
//! object through `Into<ErrorObject>` and back through a hand-written
//! `TryFrom<ErrorObject, Error = ErrorObject>` (the client then returns
//! `ClientError`), and may spell their result through an alias, with or
//! without generics.

use typed_rpc::client::InProcess;
use typed_rpc::{ClientError, ErrorObject, Router, rpc};

pub enum MathError {
    DivideByZero,
    Overflow { a: i64, b: i64 },
}

impl From<MathError> for ErrorObject {
    fn from(err: MathError) -> Self {
        match err {
            MathError::DivideByZero => ErrorObject::new(1, "divide by zero"),
            MathError::Overflow { a, b } => ErrorObject::new(2, "overflow").with_data(&[a, b]),
        }
    }
}

impl TryFrom<ErrorObject> for MathError {
    type Error = ErrorObject;

    fn try_from(err: ErrorObject) -> Result<Self, ErrorObject> {
        match err.code() {
            1 => Ok(MathError::DivideByZero),
            _ => Err(err),
        }
    }
}

/// An alias without generics: the client finds its `Ok` type through the alias.
pub type Answer = Result<u32, ErrorObject>;

/// An alias with generics, named like `io::Result`.
pub type MathResult<T> = Result<T, MathError>;

#[rpc]
pub trait Math {
    #[method(name = "divide")]
    async fn divide(&self, a: i64, b: i64) -> Result<i64, MathError>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> MathResult<i64>;

    #[method(name = "answer")]
    async fn answer(&self) -> Answer;

    #[method(name = "std_result")]
    async fn std_result(&self) -> std::result::Result<(), ErrorObject>;
}

struct Server;

impl Math for Server {
    async fn divide(&self, a: i64, b: i64) -> Result<i64, MathError> {
        a.checked_div(b).ok_or(MathError::DivideByZero)
    }

    async fn add(&self, a: i64, b: i64) -> MathResult<i64> {
        a.checked_add(b).ok_or(MathError::Overflow { a, b })
    }

    async fn answer(&self) -> Answer {
        Ok(42)
    }

    async fn std_result(&self) -> std::result::Result<(), ErrorObject> {
        Ok(())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = MathClient::new(InProcess::new(Router::new(Server.into_service())));
    let answer: u32 = client.answer().await.unwrap();
    assert_eq!(answer, 42);
    assert_eq!(client.divide(7, 2).await.unwrap(), 3);
    match client.divide(1, 0).await {
        Err(ClientError::Rpc(err)) => assert_eq!(err.code(), 1),
        other => panic!("expected an error object, got {other:?}"),
    }
    match client.add(i64::MAX, 1).await {
        Err(ClientError::Rpc(err)) => assert_eq!(err.code(), 2),
        other => panic!("expected an error object, got {other:?}"),
    }
    client.std_result().await.unwrap();
}
