// A #[method] without a return type: reported after the parameter list.
use typed_rpc::rpc;

#[rpc]
pub trait Events {
    #[method(name = "update")]
    async fn update(&self, value: i64);
}

fn main() {}
