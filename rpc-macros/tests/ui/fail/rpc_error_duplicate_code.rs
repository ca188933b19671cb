// Two variants with one code: reported on the second code, naming the first.
use typed_rpc::RpcError;

#[derive(Debug, RpcError)]
pub enum KvError {
    #[rpc_error(code = 1001, message = "Key not found")]
    NotFound { key: String },
    #[rpc_error(code = 1001, message = "Store full")]
    Full,
}

fn main() {
    let _ = typed_rpc::ErrorObject::from(KvError::Full);
}
