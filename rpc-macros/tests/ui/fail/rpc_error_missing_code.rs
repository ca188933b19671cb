// A variant without a code, one with an attribute but no code, and a code
// the specification reserves taken without `reserved`: each reported where it
// is, in one pass, and the conversions are still generated (no cascade in
// `main`).
use typed_rpc::RpcError;

#[derive(Debug, RpcError)]
pub enum KvError {
    #[rpc_error(code = 1001)]
    NotFound,
    Full,
    #[rpc_error(message = "Locked")]
    Locked,
    #[rpc_error(code = -32601)]
    Shadow,
    #[rpc_error(code = 7, reserved)]
    NotReserved,
}

fn main() {
    let object = typed_rpc::ErrorObject::from(KvError::Full);
    let _ = KvError::try_from(object);
}
