// An error field type without serde: one error, on the field's type, which
// says what to derive.
use typed_rpc::RpcError;

/// Neither `Serialize` nor `Deserialize`.
#[derive(Debug)]
pub struct Key(String);

#[derive(Debug, RpcError)]
pub enum KvError {
    #[rpc_error(code = 1001)]
    NotFound { key: Key, attempts: u32 },
}

fn main() {}
