// A `$ref` to nothing, a schema's or a content descriptor's, is an error
// naming where it is and what it points at.
mod pets {
    typed_rpc::openrpc!("openrpc_dangling_ref.json");
}

fn main() {}
