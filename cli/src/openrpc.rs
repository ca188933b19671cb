//! What an OpenRPC document says about a server's methods: enough to check a
//! call before it is sent and to list the methods.
//!
//! Only what a call needs is read: each method's name and aliases, its
//! summary, its params (name, required or not, by position or by name),
//! whether it has a result, and whether it streams (typed-rpc's `x-stream`,
//! with the names its items travel under). Local `$ref`s
//! (`#/components/...`) are followed; schemas are not checked against the
//! values.

use std::fmt::Write as _;

use serde_json::Value;
use serde_json::value::RawValue;

/// The methods of an OpenRPC document.
#[derive(Debug)]
pub struct Document {
    methods: Vec<Method>,
}

#[derive(Debug)]
struct Method {
    name: String,
    /// Other names it answers to (typed-rpc's `x-aliases`).
    aliases: Vec<String>,
    summary: Option<String>,
    params: Vec<Param>,
    structure: Structure,
    /// The one param is the whole `params` value (typed-rpc's `x-params-whole`).
    whole: bool,
    /// No result: OpenRPC allows such a method only as a notification.
    notification: bool,
    /// How its items travel, if it streams (typed-rpc's `x-stream`).
    stream: Option<StreamNames>,
}

/// The names a streaming method's items travel under on a two-way
/// connection: the notification that carries each, and the method that
/// ends the subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamNames {
    pub notification: String,
    pub unsubscribe: String,
}

impl StreamNames {
    /// typed-rpc's defaults for `method`: its own name, and
    /// `<method>_unsubscribe`.
    pub fn of(method: &str) -> Self {
        StreamNames {
            notification: method.to_owned(),
            unsubscribe: format!("{method}_unsubscribe"),
        }
    }
}

#[derive(Debug)]
struct Param {
    name: String,
    required: bool,
}

/// How a method takes its params (`paramStructure`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Structure {
    ByName,
    ByPosition,
    Either,
}

/// How many `$ref`s in a row are followed before a document is called circular.
const MAX_REF_HOPS: usize = 32;

impl Document {
    /// Reads a document from its JSON text.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let root: Value = serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?;
        Document::from_value(&root)
    }

    /// Reads a document from its JSON value.
    pub fn from_value(root: &Value) -> Result<Self, String> {
        let methods = root
            .get("methods")
            .and_then(Value::as_array)
            .ok_or("not an OpenRPC document: no `methods` array")?;
        let methods = methods
            .iter()
            .enumerate()
            .map(|(index, method)| {
                read_method(root, method).map_err(|err| format!("methods/{index}: {err}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Document { methods })
    }

    /// Checks a call of `name` with `params` against the document: the
    /// method exists, takes params in that shape, has each param named, and
    /// is given every required one; a method without a result is only
    /// sent as a notification.
    pub fn check(&self, name: &str, params: Option<&RawValue>, notify: bool) -> Result<(), String> {
        let method = self.method(name)?;
        if method.notification && !notify {
            return Err(format!(
                "`{name}` is a notification (its document gives it no result): add --notify"
            ));
        }
        if method.stream.is_some() && notify {
            return Err(format!(
                "`{name}` streams its result (`x-stream` in its document): drop --notify"
            ));
        }
        let given = match params {
            Some(raw) => {
                serde_json::from_str(raw.get()).map_err(|err| format!("invalid params: {err}"))?
            }
            // No params: as few as there can be, in the shape the method takes.
            None if method.structure == Structure::ByName => Value::Object(Default::default()),
            None => Value::Array(Vec::new()),
        };
        if method.whole {
            return match (&method.params[..], params) {
                ([param], None) if param.required => Err(format!(
                    "`{name}` needs its params: the whole value is `{}`",
                    param.name
                )),
                _ => Ok(()),
            };
        }
        match &given {
            Value::Array(values) => method.check_positional(values.len()),
            Value::Object(members) => method.check_named(members.keys().map(String::as_str)),
            _ => Err("params must be an array or an object".to_owned()),
        }
    }

    /// How `name` streams, if its document says it does.
    pub fn stream(&self, name: &str) -> Option<&StreamNames> {
        self.method(name).ok()?.stream.as_ref()
    }

    fn method(&self, name: &str) -> Result<&Method, String> {
        let found = self
            .methods
            .iter()
            .find(|method| method.name == name || method.aliases.iter().any(|a| a == name));
        found.ok_or_else(|| {
            let mut message = format!("the OpenRPC document has no method `{name}`");
            if let Some(near) = self.nearest_name(name) {
                let _ = write!(message, "; did you mean `{near}`?");
            }
            message.push_str(" (`typed-rpc methods` lists them)");
            message
        })
    }

    /// The method name closest to a mistyped one, if any is close.
    fn nearest_name(&self, name: &str) -> Option<&str> {
        self.methods
            .iter()
            .map(|method| (edit_distance(&method.name, name), method.name.as_str()))
            .filter(|&(distance, _)| distance <= name.chars().count().div_ceil(3))
            .min_by_key(|&(distance, _)| distance)
            .map(|(_, name)| name)
    }

    /// One entry per method: `name(params)`, then its summary indented.
    /// Named params are shown in braces, optional ones with a `?`, a param
    /// that is the whole `params` with `...`.
    pub fn listing(&self) -> String {
        let mut text = String::new();
        for method in &self.methods {
            let names: Vec<String> = method
                .params
                .iter()
                .map(|param| {
                    let mark = match (method.whole, param.required) {
                        (true, _) => "...",
                        (false, true) => "",
                        (false, false) => "?",
                    };
                    format!("{}{mark}", param.name)
                })
                .collect();
            let (open, close) = match method.structure {
                Structure::ByName => ('{', '}'),
                _ => ('(', ')'),
            };
            let _ = write!(text, "{}{open}{}{close}", method.name, names.join(", "));
            if method.notification {
                text.push_str("  notification");
            }
            if method.stream.is_some() {
                text.push_str("  stream");
            }
            if !method.aliases.is_empty() {
                let _ = write!(text, "  also: {}", method.aliases.join(", "));
            }
            text.push('\n');
            if let Some(summary) = &method.summary {
                let _ = writeln!(text, "    {summary}");
            }
        }
        text
    }
}

impl Method {
    fn check_positional(&self, given: usize) -> Result<(), String> {
        let name = &self.name;
        if self.structure == Structure::ByName && given > 0 {
            return Err(format!(
                "`{name}` takes its params by name (KEY=VALUE): {}",
                self.param_names()
            ));
        }
        if given > self.params.len() {
            return Err(format!(
                "`{name}` takes at most {} params ({}), {given} given",
                self.params.len(),
                self.param_names()
            ));
        }
        let missing = self.params[given..].iter().position(|param| param.required);
        match missing {
            Some(offset) => Err(format!(
                "`{name}` is missing its required param `{}` (position {})",
                self.params[given + offset].name,
                given + offset
            )),
            None => Ok(()),
        }
    }

    fn check_named<'a>(&self, given: impl Iterator<Item = &'a str> + Clone) -> Result<(), String> {
        let name = &self.name;
        if self.structure == Structure::ByPosition {
            return Err(format!(
                "`{name}` takes its params by position (VALUE ...): {}",
                self.param_names()
            ));
        }
        if let Some(unknown) = given
            .clone()
            .find(|key| !self.params.iter().any(|param| param.name == *key))
        {
            return Err(format!(
                "`{name}` has no param `{unknown}`; its params: {}",
                self.param_names()
            ));
        }
        let missing = self
            .params
            .iter()
            .find(|param| param.required && !given.clone().any(|key| key == param.name));
        match missing {
            Some(param) => Err(format!(
                "`{name}` is missing its required param `{}`",
                param.name
            )),
            None => Ok(()),
        }
    }

    fn param_names(&self) -> String {
        if self.params.is_empty() {
            return "none".to_owned();
        }
        let names: Vec<&str> = self
            .params
            .iter()
            .map(|param| param.name.as_str())
            .collect();
        names.join(", ")
    }
}

fn read_method(root: &Value, method: &Value) -> Result<Method, String> {
    let method = resolve(root, method)?;
    let name = string(method, "name")?.ok_or("a method without a `name`")?;
    let structure = match string(method, "paramStructure")?.as_deref() {
        None | Some("either") => Structure::Either,
        Some("by-name") => Structure::ByName,
        Some("by-position") => Structure::ByPosition,
        Some(other) => return Err(format!("`{name}`: unknown paramStructure `{other}`")),
    };
    let params = match method.get("params") {
        None => Vec::new(),
        Some(Value::Array(params)) => params
            .iter()
            .map(|param| read_param(root, param))
            .collect::<Result<_, _>>()
            .map_err(|err| format!("`{name}`: {err}"))?,
        Some(_) => return Err(format!("`{name}`: `params` is not an array")),
    };
    let whole = method.get("x-params-whole") == Some(&Value::Bool(true)) && params.len() == 1;
    let aliases = match method.get("x-aliases") {
        Some(Value::Array(aliases)) => aliases
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let stream = match method.get("x-stream") {
        None => None,
        Some(stream @ Value::Object(_)) => {
            let defaults = StreamNames::of(&name);
            let named =
                |key| string(stream, key).map_err(|err| format!("`{name}`: x-stream: {err}"));
            Some(StreamNames {
                notification: named("notification")?.unwrap_or(defaults.notification),
                unsubscribe: named("unsubscribe")?.unwrap_or(defaults.unsubscribe),
            })
        }
        Some(_) => return Err(format!("`{name}`: `x-stream` is not an object")),
    };
    Ok(Method {
        summary: string(method, "summary")?,
        notification: method.get("result").is_none(),
        stream,
        name,
        aliases,
        params,
        structure,
        whole,
    })
}

fn read_param(root: &Value, param: &Value) -> Result<Param, String> {
    let param = resolve(root, param)?;
    Ok(Param {
        name: string(param, "name")?.ok_or("a param without a `name`")?,
        required: param.get("required") == Some(&Value::Bool(true)),
    })
}

/// The member `key` of `object` as a string, if present.
fn string(object: &Value, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

/// `value`, or what its local `$ref` points to.
fn resolve<'a>(root: &'a Value, mut value: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..MAX_REF_HOPS {
        let Some(reference) = value.get("$ref") else {
            return Ok(value);
        };
        let pointer = reference
            .as_str()
            .and_then(|reference| reference.strip_prefix('#'))
            .ok_or_else(|| format!("only local references are followed, not {reference}"))?;
        value = root
            .pointer(pointer)
            .ok_or_else(|| format!("the reference {reference} points to nothing"))?;
    }
    Err("references that go round in circles".to_owned())
}

/// The number of single-character edits that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::Document;

    fn document() -> Document {
        Document::from_value(&json!({
            "openrpc": "1.3.2",
            "methods": [
                { "name": "subtract", "summary": "Subtracts.", "params": [
                    { "name": "minuend", "required": true, "schema": {} },
                    { "$ref": "#/components/contentDescriptors/Subtrahend" }
                ], "result": { "name": "result", "schema": {} } },
                { "name": "greet", "paramStructure": "by-name", "params": [
                    { "name": "name", "required": true },
                    { "name": "greeting" }
                ], "result": { "name": "result", "schema": {} }, "x-aliases": ["hello"] },
                { "name": "sum", "paramStructure": "by-position", "x-params-whole": true,
                  "params": [{ "name": "values", "required": true }],
                  "result": { "name": "result", "schema": {} } },
                { "name": "update", "params": [] },
                { "name": "eth_subscribe", "params": [{ "name": "kind", "required": true }],
                  "result": { "name": "result", "schema": {} },
                  "x-stream": { "wire": ["sse", "subscription"], "notification": "eth_subscription",
                                "unsubscribe": "eth_unsubscribe", "item": {} } },
                { "name": "watch", "params": [], "result": { "name": "result", "schema": {} },
                  "x-stream": {} }
            ],
            "components": { "contentDescriptors": {
                "Subtrahend": { "name": "subtrahend", "required": true, "schema": {} }
            } }
        }))
        .unwrap()
    }

    fn check(method: &str, params: Option<&str>, notify: bool) -> Result<(), String> {
        let params = params.map(|text| RawValue::from_string(text.to_owned()).unwrap());
        document().check(method, params.as_deref(), notify)
    }

    #[test]
    fn calls_that_fit_pass() {
        assert_eq!(check("subtract", Some("[42, 23]"), false), Ok(()));
        assert_eq!(
            check(
                "subtract",
                Some(r#"{"subtrahend": 1, "minuend": 2}"#),
                false
            ),
            Ok(())
        );
        assert_eq!(check("greet", Some(r#"{"name": "Ada"}"#), false), Ok(()));
        assert_eq!(
            check("hello", Some(r#"{"name": "Ada"}"#), false),
            Ok(()),
            "an alias"
        );
        assert_eq!(
            check("sum", Some("[1, 2, 3, 4]"), false),
            Ok(()),
            "the whole params"
        );
        assert_eq!(check("update", None, true), Ok(()));
        assert_eq!(
            check("subtract", Some("[1, 2]"), true),
            Ok(()),
            "any method may be notified"
        );
    }

    #[test]
    fn unknown_methods_are_named_with_the_nearest() {
        let err = check("subtrac", None, false).unwrap_err();
        assert!(
            err.contains("no method `subtrac`; did you mean `subtract`?"),
            "{err}"
        );
        let err = check("multiply", None, false).unwrap_err();
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn wrong_params_are_named() {
        let err = check("subtract", Some("[1, 2, 3]"), false).unwrap_err();
        assert!(
            err.contains("at most 2 params (minuend, subtrahend), 3 given"),
            "{err}"
        );
        let err = check("subtract", Some("[1]"), false).unwrap_err();
        assert!(
            err.contains("missing its required param `subtrahend` (position 1)"),
            "{err}"
        );
        let err = check("subtract", Some(r#"{"minuend": 1, "subtrahnd": 2}"#), false).unwrap_err();
        assert!(err.contains("no param `subtrahnd`"), "{err}");
        let err = check("greet", Some(r#"["Ada"]"#), false).unwrap_err();
        assert!(err.contains("by name"), "{err}");
        let err = check("sum", Some(r#"{"values": []}"#), false);
        assert_eq!(err, Ok(()), "a whole param may be any value");
        let err = check("sum", None, false).unwrap_err();
        assert!(err.contains("needs its params"), "{err}");
        let err = check("greet", None, false).unwrap_err();
        assert!(err.contains("missing its required param `name`"), "{err}");
    }

    #[test]
    fn a_method_without_a_result_is_a_notification() {
        let err = check("update", None, false).unwrap_err();
        assert!(err.contains("add --notify"), "{err}");
    }

    #[test]
    fn the_listing_shows_params_and_summaries() {
        assert_eq!(
            document().listing(),
            "subtract(minuend, subtrahend)\n    Subtracts.\n\
             greet{name, greeting?}  also: hello\n\
             sum(values...)\n\
             update()  notification\n\
             eth_subscribe(kind)  stream\n\
             watch()  stream\n"
        );
    }

    #[test]
    fn bad_documents_are_refused_not_followed_forever() {
        let circular = json!({ "methods": [{ "$ref": "#/methods/0" }] });
        let err = Document::from_value(&circular).unwrap_err();
        assert!(err.contains("circles"), "{err}");
        let err = Document::from_json("[]").unwrap_err();
        assert!(err.contains("no `methods` array"), "{err}");
        let err =
            Document::from_value(&json!({ "methods": [{ "$ref": "other.json#/x" }] })).unwrap_err();
        assert!(err.contains("only local references"), "{err}");
    }

    #[test]
    fn x_stream_names_how_a_method_streams() {
        let document = document();
        let eth = document.stream("eth_subscribe").unwrap();
        assert_eq!(eth.notification, "eth_subscription");
        assert_eq!(eth.unsubscribe, "eth_unsubscribe");
        assert_eq!(
            document.stream("watch"),
            Some(&super::StreamNames::of("watch"))
        );
        assert_eq!(document.stream("subtract"), None);
        assert_eq!(document.stream("nope"), None);
        assert!(
            check("watch", None, true)
                .unwrap_err()
                .contains("streams its result"),
            "a stream is no notification"
        );
        let bad = serde_json::json!({"methods": [{"name": "w", "result": {}, "x-stream": true}]});
        assert!(Document::from_value(&bad).unwrap_err().contains("x-stream"));
    }
}
