//! What the documents say, as a client generator or a reader would check it.

use serde_json::{Value, json};
use typed_rpc::Router;

use super::calculator_api::{Calc, Calculator, CalculatorService};
use super::calculator_document;
use super::catalog::{self, Catalog as _};

fn method<'a>(document: &'a Value, name: &str) -> &'a Value {
    document["methods"]
        .as_array()
        .and_then(|methods| methods.iter().find(|m| m["name"] == name))
        .unwrap_or_else(|| panic!("no method {name} in {document:#}"))
}

fn names(document: &Value) -> Vec<&str> {
    document["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| m["name"].as_str().expect("a name"))
        .collect()
}

#[test]
fn the_calculator_document_lists_every_method_in_order_under_the_given_info() {
    let document = calculator_document();
    assert_eq!(document["openrpc"], "1.3.2");
    assert_eq!(
        document["info"],
        json!({"title": "Calculator", "version": "1.0.0"})
    );
    assert_eq!(
        names(&document),
        [
            "subtract",
            "add",
            "sum",
            "get_data",
            "update",
            "notify_hello",
            "notify_sum",
            "total"
        ]
    );
}

#[test]
fn a_method_has_its_params_result_docs_errors_and_examples() {
    let document = calculator_document();
    let number = json!({"type": "number"});
    assert_eq!(
        method(&document, "add"),
        &json!({
            "name": "add",
            "summary": "Adds `a` and `b`; fails with `-32000` on overflow.",
            "params": [
                {"name": "a", "schema": number, "required": true},
                {"name": "b", "schema": number, "required": true},
            ],
            "paramStructure": "either",
            "result": {"name": "result", "schema": number},
            "errors": [{"code": -32000, "message": "Overflow"}],
            "examples": [{
                "name": "add example 1",
                "params": [{"name": "a", "value": 1}, {"name": "b", "value": 2}],
                "result": {"name": "result", "value": 3},
            }],
        })
    );
}

#[test]
fn a_notification_has_no_result_and_a_tuple_result_is_a_draft_07_array() {
    let document = calculator_document();
    assert!(method(&document, "update").get("result").is_none());
    assert!(method(&document, "notify_hello").get("result").is_none());
    // Draft 07 has no `prefixItems`: a tuple is `items` as an array.
    let data = &method(&document, "get_data")["result"]["schema"];
    assert_eq!(data["type"], "array");
    assert_eq!(data["items"][0]["type"], "string");
    assert_eq!(data["items"][1]["type"], "integer");
    assert!(data.get("prefixItems").is_none(), "{data}");
}

#[test]
fn whole_params_that_are_no_struct_are_one_param_marked_as_the_whole_value() {
    let sum = method(&calculator_document(), "sum").clone();
    assert_eq!(sum["paramStructure"], "by-position");
    assert_eq!(sum["x-params-whole"], true);
    assert_eq!(sum["params"][0]["name"], "values");
    assert_eq!(sum["params"][0]["schema"]["type"], "array");
    assert_eq!(
        sum["examples"][0]["params"],
        json!([{"name": "values", "value": [1, 2, 4]}])
    );
}

/// Each param of `method`'s document: its name, and whether it is required.
fn required_flags(method: &Value) -> Vec<(&str, bool)> {
    let params = method["params"].as_array().expect("params");
    params
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["required"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_params_struct_is_its_fields_by_name() {
    let document = catalog::document();
    let search = method(&document, "catalog.search");
    assert_eq!(search["paramStructure"], "by-name");
    let params = search["params"].as_array().expect("params");
    assert_eq!(
        required_flags(search),
        [("filters", true), ("limit", false), ("text", true)]
    );
    let text = params.iter().find(|p| p["name"] == "text").unwrap();
    assert_eq!(text["description"], "What the product's name holds.");
    assert_eq!(
        search["examples"][0]["params"],
        json!([
            {"name": "filters", "value": [{"kind": "tag", "tag": "kitchen"}]},
            {"name": "text", "value": "mug"},
        ])
    );
}

#[test]
fn only_trailing_options_may_be_left_out_and_argument_docs_describe_params() {
    let document = catalog::document();
    let get = method(&document, "catalog.get");
    assert_eq!(
        required_flags(get),
        [("id", true), ("currency", false), ("detailed", false)]
    );
    assert_eq!(get["params"][0]["description"], "The product's id.");
    // Left out by position, `root` would shift `depth` into its place.
    let categories = method(&document, "catalog.categories");
    assert_eq!(categories["params"][0]["name"], "root");
    assert_eq!(categories["params"][0]["required"], true);
}

#[test]
fn docs_deprecation_aliases_and_declared_errors_are_kept() {
    let document = catalog::document();
    let get = method(&document, "catalog.get");
    assert_eq!(get["summary"], "Finds a product by id.");
    assert_eq!(
        get["description"],
        "Finds a product by id.\n\nUnknown ids answer the declared error."
    );
    assert_eq!(get["x-aliases"], json!(["product"]));
    assert_eq!(
        get["errors"],
        json!([{"code": 404, "message": "No such product"}])
    );
    assert_eq!(method(&document, "catalog.categories")["deprecated"], true);
    assert!(get.get("deprecated").is_none());
    assert_eq!(document["info"]["description"], "A shop's catalog.");
}

#[test]
fn shared_types_are_defined_once_under_components_and_referenced() {
    let document = catalog::document();
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("components");
    let mut defined: Vec<&str> = schemas.keys().map(String::as_str).collect();
    defined.sort_unstable();
    assert_eq!(
        defined,
        [
            "Category",
            "Filter",
            "Price",
            "Product",
            "SearchParams",
            "Shipping"
        ]
    );
    let reference = json!({"$ref": "#/components/schemas/Product"});
    assert_eq!(
        method(&document, "catalog.put")["params"][0]["schema"],
        reference
    );
    assert_eq!(
        method(&document, "catalog.search")["result"]["schema"]["items"],
        reference
    );
    // The recursion goes through a reference, not an endless schema.
    let children = &schemas["Category"]["properties"]["children"];
    assert_eq!(
        children["items"],
        json!({"$ref": "#/components/schemas/Category"})
    );
    // Internally tagged: each variant an object with its `kind`.
    let filter = serde_json::to_string(&schemas["Filter"]).unwrap();
    assert!(filter.contains(r#""const":"price_below""#), "{filter}");
    // Maps are objects of their values.
    let counts = &method(&document, "catalog.counts")["result"]["schema"];
    assert_eq!(counts["type"], "object");
    assert_eq!(counts["additionalProperties"]["type"], "integer");
}

#[test]
fn a_router_of_several_services_has_one_document_of_all_their_methods() {
    let router = Router::builder()
        .service(Calc::default().into_service())
        .service(catalog::Shop.into_service())
        .build()
        .unwrap();
    let document = router.openrpc("Shop", "3.0.0").to_json();
    assert_eq!(
        document["info"],
        json!({"title": "Shop", "version": "3.0.0"})
    );
    let all = names(&document);
    assert_eq!(all.len(), CalculatorService::<()>::INFO.methods().len() + 5);
    assert_eq!(all[0], "subtract");
    assert!(all.contains(&"catalog.search"));
    assert!(document["components"]["schemas"]["Product"].is_object());
}

mod chain {
    use futures_util::stream::Stream;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use typed_rpc::{RpcResult, rpc};

    #[derive(Serialize, Deserialize, JsonSchema)]
    pub struct Head {
        pub number: u64,
    }

    #[rpc]
    pub trait Chain {
        #[method(
            name = "eth_subscribe",
            stream(notification = "eth_subscription", unsubscribe = "eth_unsubscribe")
        )]
        async fn subscribe(
            &self,
            kind: String,
        ) -> RpcResult<impl Stream<Item = RpcResult<Head>> + Send + 'static>;
    }
}

#[test]
fn a_streaming_method_says_how_its_items_travel_in_x_stream() {
    let document = typed_rpc::schema::Document::new("Chain", "1.0.0")
        .service(chain::ChainService::<()>::INFO)
        .to_json();
    let subscribe = method(&document, "eth_subscribe");
    let head = json!({"$ref": "#/components/schemas/Head"});
    assert_eq!(
        subscribe["result"],
        json!({"name": "result", "schema": head})
    );
    assert_eq!(
        subscribe["x-stream"],
        json!({
            "wire": ["sse", "subscription"],
            "notification": "eth_subscription",
            "unsubscribe": "eth_unsubscribe",
            "item": head,
        })
    );
    let unsubscribe = method(&document, "eth_unsubscribe");
    assert_eq!(unsubscribe["params"][0]["name"], "subscription");
    assert_eq!(unsubscribe["result"]["schema"]["type"], "boolean");
    assert!(unsubscribe.get("x-stream").is_none());
}
