//! An API with the shapes of data a real one has: nested structs, enums
//! tagged internally and externally, `Option`, `Vec`, maps and a recursive
//! type, a `#[params]` struct, docs on arguments, aliases and deprecation.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_rpc::{RpcResult, rpc};

/// A product of the catalog.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Product {
    pub id: String,
    pub price: Price,
    pub tags: Vec<String>,
    pub attributes: BTreeMap<String, String>,
    pub shipping: Option<Shipping>,
}

/// An amount of money.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Price {
    pub cents: u64,
    pub currency: String,
}

/// How a product ships: externally tagged.
#[derive(Serialize, Deserialize, JsonSchema)]
pub enum Shipping {
    Download { url: String },
    Parcel { grams: u32 },
}

/// A filter on products: internally tagged.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Filter {
    Tag { tag: String },
    PriceBelow { cents: u64 },
}

/// Categories nest: a recursive type.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Category {
    pub name: String,
    pub children: Vec<Category>,
}

/// The params of `catalog.search`, bound as a whole.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// What the product's name holds.
    pub text: String,
    pub filters: Vec<Filter>,
    pub limit: Option<u32>,
}

/// The catalog of a shop.
#[rpc(namespace = "catalog", namespace_separator = ".")]
pub trait Catalog {
    /// Finds a product by id.
    ///
    /// Unknown ids answer the declared error.
    #[method(
        aliases = ["product"],
        error(code = 404, message = "No such product"),
        example(params = r#"["p1"]"#, result = "null")
    )]
    async fn get(
        &self,
        /// The product's id.
        id: String,
        currency: Option<String>,
        detailed: Option<bool>,
    ) -> RpcResult<Option<Product>>;

    /// Searches by text and filters.
    #[method(example(
        params = r#"{"text": "mug", "filters": [{"kind": "tag", "tag": "kitchen"}]}"#,
        result = "[]"
    ))]
    async fn search(&self, #[params] params: SearchParams) -> RpcResult<Vec<Product>>;

    /// The category tree.
    #[deprecated = "use catalog.categories_v2"]
    #[method]
    async fn categories(&self, root: Option<String>, depth: u32) -> RpcResult<Category>;

    /// Counts products per tag.
    #[method]
    async fn counts(&self, tags: Vec<String>) -> RpcResult<BTreeMap<String, u64>>;

    /// Replaces a product; never answered.
    #[notification]
    async fn put(&self, product: Product);
}

/// The catalog's document.
pub fn document() -> serde_json::Value {
    typed_rpc::schema::Document::new("Catalog", "2.1.0")
        .description("A shop's catalog.")
        .service(CatalogService::<()>::INFO)
        .to_json()
}

/// A shop that has nothing: enough to serve the catalog.
pub struct Shop;

impl Catalog for Shop {
    async fn get(
        &self,
        _: String,
        _: Option<String>,
        _: Option<bool>,
    ) -> RpcResult<Option<Product>> {
        Ok(None)
    }

    async fn search(&self, _: SearchParams) -> RpcResult<Vec<Product>> {
        Ok(Vec::new())
    }

    #[allow(deprecated)]
    async fn categories(&self, root: Option<String>, _: u32) -> RpcResult<Category> {
        Ok(Category {
            name: root.unwrap_or_default(),
            children: Vec::new(),
        })
    }

    async fn counts(&self, tags: Vec<String>) -> RpcResult<BTreeMap<String, u64>> {
        Ok(tags.into_iter().map(|tag| (tag, 0)).collect())
    }

    async fn put(&self, _: Product) {}
}
