// A return type alias that is not a `Result` is caught by the compiler, on the return type.
use typed_rpc::rpc;

// An alias could name a `Result`; this one does not.
pub type Answer = u32;

#[rpc]
pub trait Oracle {
    #[method(name = "answer")]
    async fn answer(&self) -> Answer;
}

struct Server;

impl Oracle for Server {
    async fn answer(&self) -> Answer {
        42
    }
}

fn main() {}
