// A method's `error(...)` entries must be errors its `#[derive(RpcError)]`
// type sends: the same code with the same message.
use typed_rpc::{RpcError, rpc};

#[derive(Debug, RpcError)]
pub enum ShopError {
    #[rpc_error(code = 1001, message = "Out of stock")]
    OutOfStock,
}

#[rpc]
pub trait Shop {
    #[method(error(code = 1001, message = "OutOfStock"), error(code = 1002, message = "Closed"))]
    async fn buy(&self, item: String) -> Result<u64, ShopError>;
}

fn main() {}
