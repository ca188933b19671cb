//! Building the OpenRPC document from the services' static descriptions.

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::metadata::{ExampleInfo, MethodInfo, ParamInfo, ServiceInfo};

/// The OpenRPC version the documents follow.
const OPENRPC_VERSION: &str = "1.3.2";

/// Where shared schemas go, and so what their `$ref`s point at.
const COMPONENTS: &str = "/components/schemas";

/// An OpenRPC 1.3 document: the methods of one or more services, described
/// by their `#[rpc]` traits, under an `info` title and version of your own.
///
/// ```
/// use typed_rpc::{MethodInfo, ParamInfo, ServiceInfo, schema::Document};
///
/// static INFO: ServiceInfo = ServiceInfo::new("Greeter", &[
///     MethodInfo::method("greet").params(&[ParamInfo::new("name", "String")]).result("String"),
/// ]);
/// let document = Document::new("Greeter", "1.0.0").service(&INFO).to_json();
/// assert_eq!(document["info"]["title"], "Greeter");
/// assert_eq!(document["methods"][0]["name"], "greet");
/// assert_eq!(document["methods"][0]["params"][0]["required"], true);
/// ```
#[derive(Clone, Debug)]
pub struct Document {
    title: String,
    version: String,
    description: Option<String>,
    services: Vec<&'static ServiceInfo>,
}

impl Document {
    /// A document with no methods yet; `title` and `version` are the API's
    /// (`info.title`, `info.version`), not the library's.
    pub fn new(title: impl Into<String>, version: impl Into<String>) -> Self {
        Document {
            title: title.into(),
            version: version.into(),
            description: None,
            services: Vec::new(),
        }
    }

    /// Sets `info.description`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds the methods of a service (`FooService::<()>::INFO`).
    pub fn service(mut self, info: &'static ServiceInfo) -> Self {
        self.services.push(info);
        self
    }

    /// Adds the methods of several services.
    pub fn services(mut self, infos: impl IntoIterator<Item = &'static ServiceInfo>) -> Self {
        self.services.extend(infos);
        self
    }

    /// The document as JSON.
    pub fn to_json(&self) -> Value {
        let mut schemas = Schemas::new();
        let methods: Vec<Value> = self
            .services
            .iter()
            .flat_map(|service| service.methods())
            .map(|method| describe_method(method, &mut schemas))
            .collect();
        let mut info = Map::new();
        info.insert("title".into(), self.title.clone().into());
        info.insert("version".into(), self.version.clone().into());
        if let Some(description) = &self.description {
            info.insert("description".into(), description.clone().into());
        }
        let mut document = Map::new();
        document.insert("openrpc".into(), OPENRPC_VERSION.into());
        document.insert("info".into(), info.into());
        document.insert("methods".into(), methods.into());
        let components = schemas.generator.take_definitions(true);
        if !components.is_empty() {
            document.insert("components".into(), json!({ "schemas": components }));
        }
        document.into()
    }
}

/// The schema generator, set for draft 07 with shared schemas under
/// `components/schemas`. Params and results use one contract, the
/// deserializing one: what a server accepts and what a client reads.
struct Schemas {
    generator: SchemaGenerator,
}

impl Schemas {
    fn new() -> Self {
        let settings = SchemaSettings::draft07().with(|s| s.definitions_path = COMPONENTS.into());
        Schemas {
            generator: settings.into_generator(),
        }
    }

    /// The schema `write` gives, in draft-07 form (the generator's
    /// transforms are otherwise applied to root schemas only); `{}` when
    /// there is no function.
    fn of(&mut self, write: Option<super::SchemaFn>, ty: &str) -> Value {
        let Some(write) = write else {
            return json!({ "description": format!("any value: no schema was given for `{ty}`") });
        };
        let mut schema: Schema = write(&mut self.generator);
        for transform in self.generator.transforms_mut() {
            transform.transform(&mut schema);
        }
        schema.to_value()
    }

    /// `schema` with a `$ref` to `components/schemas` followed.
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        let name = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#"))
            .and_then(|r| r.strip_prefix(COMPONENTS))
            .and_then(|r| r.strip_prefix('/'));
        name.and_then(|name| self.generator.definitions().get(name))
            .unwrap_or(schema)
    }
}

fn describe_method(method: &MethodInfo, schemas: &mut Schemas) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), method.name().into());
    let (summary, description) = split_docs(method.documentation());
    if let Some(summary) = summary {
        object.insert("summary".into(), summary.into());
    }
    if let Some(description) = description {
        object.insert("description".into(), description.into());
    }
    let params = describe_params(method, schemas);
    object.insert("params".into(), params.descriptors.clone().into());
    object.insert(
        "paramStructure".into(),
        params.shape.param_structure().into(),
    );
    if params.shape == Shape::Whole {
        // The whole `params` value is the one param: OpenRPC has no word for
        // it (a `Vec` bound with `#[params]` takes `[1, 2, 3]`, not `[[1, 2, 3]]`).
        object.insert("x-params-whole".into(), true.into());
    }
    if !method.is_notification() {
        let ty = method.result_type().unwrap_or("()");
        let schema = schemas.of(method.result_schema_fn(), ty);
        object.insert(
            "result".into(),
            json!({ "name": "result", "schema": schema }),
        );
    }
    if method.is_deprecated() {
        object.insert("deprecated".into(), true.into());
    }
    let errors: Vec<Value> = method
        .declared_errors()
        .iter()
        .map(|error| json!({ "code": error.code(), "message": error.message() }))
        .collect();
    if !errors.is_empty() {
        object.insert("errors".into(), errors.into());
    }
    let examples: Vec<Value> = method
        .example_list()
        .iter()
        .filter_map(|example| describe_example(example, &params))
        .collect();
    if !examples.is_empty() {
        object.insert("examples".into(), examples.into());
    }
    if !method.alias_names().is_empty() {
        object.insert("x-aliases".into(), method.alias_names().into());
    }
    object.into()
}

/// The summary is the doc comment's first paragraph; the description the
/// whole comment, given only when there is more than that paragraph.
fn split_docs(docs: &str) -> (Option<String>, Option<String>) {
    let docs = docs.trim();
    if docs.is_empty() {
        return (None, None);
    }
    let first = docs.split("\n\n").next().unwrap_or(docs);
    let summary = first.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let description = (first.len() < docs.len()).then(|| docs.to_owned());
    (Some(summary), description)
}

/// A method's params as content descriptors.
struct Params {
    descriptors: Vec<Value>,
    /// The descriptors' names, in order.
    names: Vec<String>,
    shape: Shape,
}

/// How the params map onto the wire's `params`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One by position or by name each: the server takes both.
    Positions,
    /// The fields of a `#[params]` struct, by name.
    Fields,
    /// One param that is the whole `params` value.
    Whole,
}

impl Shape {
    fn param_structure(self) -> &'static str {
        match self {
            Shape::Positions => "either",
            Shape::Fields => "by-name",
            Shape::Whole => "by-position",
        }
    }
}

fn describe_params(method: &MethodInfo, schemas: &mut Schemas) -> Params {
    let list = method.param_list();
    if let ([param], true) = (list, method.binds_whole_params()) {
        return describe_whole(param, schemas);
    }
    // A param may be left out by position only if every one after it may.
    let descriptors: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let omissible = list[index..].iter().all(ParamInfo::is_optional);
            let schema = schemas.of(param.schema_fn(), param.ty());
            descriptor(param.name(), schema, !omissible, param.documentation())
        })
        .collect();
    Params {
        descriptors,
        names: list.iter().map(|p| p.name().to_owned()).collect(),
        shape: Shape::Positions,
    }
}

/// A `#[params]` struct is its fields, by name; any other type is one
/// param holding the whole value.
fn describe_whole(param: &ParamInfo, schemas: &mut Schemas) -> Params {
    let schema = schemas.of(param.schema_fn(), param.ty());
    let resolved = schemas.resolve(&schema);
    let properties = resolved.get("properties").and_then(Value::as_object);
    let is_object = resolved.get("type").and_then(Value::as_str) == Some("object");
    if let (true, Some(properties)) = (is_object, properties) {
        let required: Vec<&str> = resolved
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let descriptors = properties
            .iter()
            .map(|(name, schema)| {
                let docs = schema.get("description").and_then(Value::as_str);
                let required = required.contains(&name.as_str());
                descriptor(name, schema.clone(), required, docs.unwrap_or(""))
            })
            .collect();
        return Params {
            descriptors,
            names: properties.keys().cloned().collect(),
            shape: Shape::Fields,
        };
    }
    let descriptors = vec![descriptor(
        param.name(),
        schema,
        !param.is_optional(),
        param.documentation(),
    )];
    Params {
        descriptors,
        names: vec![param.name().to_owned()],
        shape: Shape::Whole,
    }
}

fn descriptor(name: &str, schema: Value, required: bool, docs: &str) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), name.into());
    object.insert("schema".into(), schema);
    object.insert("required".into(), required.into());
    if !docs.is_empty() {
        object.insert("description".into(), docs.into());
    }
    object.into()
}

/// An example pairing: each param value named after its descriptor. An
/// example whose JSON does not fit (`#[rpc]` checks it; a hand-written
/// [`ExampleInfo`] may not) is left out.
fn describe_example(example: &ExampleInfo, params: &Params) -> Option<Value> {
    let value: Value = serde_json::from_str(example.params_json()).ok()?;
    let named = |(name, value): (&String, &Value)| json!({ "name": name, "value": value });
    let values: Vec<Value> = match (params.shape, &value) {
        (Shape::Fields, Value::Object(fields)) => params
            .names
            .iter()
            .filter_map(|name| fields.get(name).map(|value| named((name, value))))
            .collect(),
        (Shape::Positions, Value::Array(items)) if items.len() <= params.names.len() => {
            params.names.iter().zip(items).map(named).collect()
        }
        (Shape::Whole, _) => vec![named((&params.names[0], &value))],
        _ => return None,
    };
    let mut object = Map::new();
    object.insert("name".into(), example.name().into());
    object.insert("params".into(), values.into());
    if let Some(result) = example.result_json() {
        let value: Value = serde_json::from_str(result).ok()?;
        object.insert("result".into(), json!({ "name": "result", "value": value }));
    }
    Some(object.into())
}
