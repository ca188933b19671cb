//! Encoding a call's arguments as `params`.

use serde::Serialize;

use super::ClientError;
use crate::{MethodInfo, ParamStyle};

/// Encoded `params`: JSON text that is an array or an object.
///
/// ```
/// use typed_rpc::client::Params;
///
/// assert_eq!(Params::from_value(&[1, 2, 4]).unwrap().as_json(), "[1,2,4]");
/// assert!(Params::from_value(&42).is_err(), "params must be an array or an object");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params(String);

impl Params {
    /// Serializes `value` as the whole `params`; it must serialize to an
    /// array or an object.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, ClientError> {
        Params::from_json(serde_json::to_string(value).map_err(ClientError::Encode)?)
    }

    /// Wraps serialized JSON, which must be an array or an object.
    pub(crate) fn from_json(json: String) -> Result<Self, ClientError> {
        if !json.starts_with(['[', '{']) {
            return Err(ClientError::Encode(serde::ser::Error::custom(
                "params must serialize to an array or an object",
            )));
        }
        Ok(Params(json))
    }

    /// The params as JSON text.
    pub fn as_json(&self) -> &str {
        &self.0
    }
}

/// Builds the params of a call argument by argument, by position or by name
/// as the method's [`ParamStyle`] says.
///
/// `None`s of optional params are left out: named ones entirely, positional
/// ones when nothing but `None`s follows them.
///
/// ```
/// use typed_rpc::client::ParamsBuilder;
/// use typed_rpc::{MethodInfo, ParamInfo, ParamStyle};
///
/// static GREET: MethodInfo = MethodInfo::method("greet")
///     .params(&[ParamInfo::new("name", "String"), ParamInfo::new("greeting", "Option<String>").optional()]);
///
/// let mut params = ParamsBuilder::new(&GREET);
/// params.push(&"Ada");
/// params.push(&None::<String>);
/// assert_eq!(params.finish().unwrap().unwrap().as_json(), r#"["Ada"]"#);
///
/// static GREET_NAMED: MethodInfo = GREET.param_style(ParamStyle::Named);
/// let mut params = ParamsBuilder::new(&GREET_NAMED);
/// params.push(&"Ada");
/// params.push(&Some("Hello"));
/// assert_eq!(params.finish().unwrap().unwrap().as_json(), r#"{"name":"Ada","greeting":"Hello"}"#);
/// ```
#[derive(Debug)]
pub struct ParamsBuilder {
    method: &'static MethodInfo,
    json: Vec<u8>,
    /// How many arguments have been pushed.
    pushed: usize,
    /// The length to cut back to: trailing `None`s of positional params are dropped.
    keep: usize,
    error: Option<serde_json::Error>,
}

impl ParamsBuilder {
    /// Starts the params of a call of `method`.
    pub fn new(method: &'static MethodInfo) -> Self {
        let open = match method.client_param_style() {
            ParamStyle::Positional => b'[',
            ParamStyle::Named => b'{',
        };
        ParamsBuilder {
            method,
            json: vec![open],
            pushed: 0,
            keep: 1,
            error: None,
        }
    }

    /// Appends the next argument, in declaration order.
    pub fn push<T: Serialize + ?Sized>(&mut self, value: &T) {
        let param = self.method.param_list().get(self.pushed);
        self.pushed += 1;
        let named = self.method.client_param_style() == ParamStyle::Named;
        let mark = self.json.len();
        if self.json.len() > 1 {
            self.json.push(b',');
        }
        if named {
            let name = param.map_or("", |p| p.name());
            self.write(name);
            self.json.push(b':');
        }
        let value_start = self.json.len();
        self.write(value);
        let left_out =
            param.is_some_and(|p| p.is_optional()) && &self.json[value_start..] == b"null";
        match (left_out, named) {
            (true, true) => self.json.truncate(mark),
            (true, false) => {}
            (false, _) => self.keep = self.json.len(),
        }
    }

    fn write<T: Serialize + ?Sized>(&mut self, value: &T) {
        if let Err(err) = serde_json::to_writer(&mut self.json, value) {
            self.error.get_or_insert(err);
        }
    }

    /// The finished params; `None` for a method that takes none.
    pub fn finish(mut self) -> Result<Option<Params>, ClientError> {
        if let Some(err) = self.error {
            return Err(ClientError::Encode(err));
        }
        if self.method.param_list().is_empty() {
            return Ok(None);
        }
        let close = match self.method.client_param_style() {
            ParamStyle::Positional => {
                self.json.truncate(self.keep);
                b']'
            }
            ParamStyle::Named => b'}',
        };
        self.json.push(close);
        // serde_json writes UTF-8 only.
        String::from_utf8(self.json)
            .map(|json| Some(Params(json)))
            .map_err(|err| ClientError::Encode(serde::ser::Error::custom(err)))
    }
}
