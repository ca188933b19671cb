// Each schema that becomes `serde_json::Value` says so, with its JSON
// Pointer and the construct (a warning, made an error here to be seen).
#![deny(deprecated)]

mod pets {
    typed_rpc::openrpc!("openrpc_fallbacks.json");
}

fn main() {}
