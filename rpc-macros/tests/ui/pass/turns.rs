// Turns on the methods' descriptions: exclusive and shared, a key, and
// supersede; a method with a key alone keeps the default access.
use typed_rpc::{Access, RpcResult, rpc};

#[rpc]
pub trait Editor {
    #[notification(name = "change", exclusive, key = "/textDocument/uri", supersede)]
    async fn change(&self, #[params] params: serde_json::Value);

    #[method(name = "hover", shared, key = "/textDocument/uri")]
    async fn hover(&self, #[params] params: serde_json::Value) -> RpcResult<String>;

    #[method(name = "keyed", key = "/a~1b")]
    async fn keyed(&self) -> RpcResult<()>;

    #[method(name = "plain")]
    async fn plain(&self) -> RpcResult<()>;
}

fn main() {
    let methods = EditorService::<()>::INFO.methods();
    let change = methods[0].turn_info();
    assert_eq!(change.access(), Some(Access::Exclusive));
    assert_eq!(change.key_pointer(), Some("/textDocument/uri"));
    assert!(change.supersedes());
    let hover = methods[1].turn_info();
    assert_eq!(hover.access(), Some(Access::Shared));
    assert!(!hover.supersedes());
    assert_eq!(methods[2].turn_info().access(), None);
    assert_eq!(methods[2].turn_info().key_pointer(), Some("/a~1b"));
    assert!(methods[3].turn_info().is_default());
}
