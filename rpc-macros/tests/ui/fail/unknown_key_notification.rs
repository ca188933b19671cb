// An unknown flag in #[notification(...)]: the message lists the known keys.
use typed_rpc::rpc;

#[rpc]
pub trait Events {
    #[notification(name = "update", blocking)]
    async fn update(&self, value: i64);
}

fn main() {}
