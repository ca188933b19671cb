// A document the OpenRPC meta-schema refuses is refused, every reason at
// once, each at its JSON Pointer; a second method of one name names both.
mod pets {
    typed_rpc::openrpc!("openrpc_meta_schema.json");
}

fn main() {}
