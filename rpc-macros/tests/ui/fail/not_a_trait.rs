// #[rpc] on a struct: reported on the struct, which stays usable.
use typed_rpc::rpc;

#[rpc]
pub struct Math;

fn main() {
    let _ = Math;
}
