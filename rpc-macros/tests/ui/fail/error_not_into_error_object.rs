// A user error type with neither `Into<ErrorObject>` (the server sends it) nor a
// way back from an error object (the client returns it): one error for each,
// on the return type.
use typed_rpc::rpc;

#[derive(Debug)]
pub enum MathError {
    Overflow,
}

#[rpc]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> Result<i64, MathError>;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> Result<i64, MathError> {
        a.checked_add(b).ok_or(MathError::Overflow)
    }
}

fn main() {}
