// Every attribute the OpenRPC document reads, on a trait that also uses a
// type without `JsonSchema` and a result behind an alias.
use typed_rpc::{RpcResult, rpc};

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Opaque(String);

pub type Answer = RpcResult<Opaque>;

#[rpc]
pub trait Documented {
    /// Reads a value.
    #[method(
        error(code = -32001, message = "Not found"),
        error(code = 7, message = "Locked"),
        example(name = "first", params = r#"["a"]"#, result = r#""x""#),
        example(params = r#"{"key": "b"}"#, result = "null")
    )]
    async fn read(
        &self,
        /// Which value.
        key: String,
    ) -> RpcResult<Option<String>>;

    #[deprecated = "use read"]
    #[method]
    async fn old(&self, opaque: Opaque) -> Answer;

    #[notification(example(params = "[1]"))]
    async fn poke(&self, times: u32);
}

fn main() {
    let methods = DocumentedService::<()>::INFO.methods();
    assert_eq!(methods[0].declared_errors()[1].code(), 7);
    assert_eq!(methods[0].example_list()[0].name(), "first");
    assert_eq!(methods[0].param_list()[0].documentation(), "Which value.");
    assert!(methods[1].is_deprecated());
    assert_eq!(methods[2].example_list()[0].result_json(), None);
    let document = typed_rpc::schema::Document::new("Documented", "1")
        .service(DocumentedService::<()>::INFO)
        .to_json();
    let opaque = &document["methods"][1]["params"][0]["schema"]["description"];
    assert!(opaque.as_str().unwrap().contains("Opaque"), "{opaque}");
}
