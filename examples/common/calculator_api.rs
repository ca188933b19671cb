//! The calculator API of the JSON-RPC 2.0 specification's examples, shared
//! by the server and client examples.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use typed_rpc::{ErrorObject, RpcResult, rpc};

/// The calculator of the JSON-RPC 2.0 specification's examples, plus `add`.
#[rpc]
pub trait Calculator {
    /// Subtracts `subtrahend` from `minuend`; fails with `-32000` on overflow.
    #[method(
        name = "subtract",
        error(code = -32000, message = "Overflow"),
        example(params = "[42, 23]", result = "19")
    )]
    async fn subtract(&self, minuend: Number, subtrahend: Number) -> RpcResult<Number>;

    /// Adds `a` and `b`; fails with `-32000` on overflow.
    #[method(
        name = "add",
        error(code = -32000, message = "Overflow"),
        example(params = "[1, 2]", result = "3")
    )]
    async fn add(&self, a: Number, b: Number) -> RpcResult<Number>;

    /// Sums any number of values, given as the whole positional params.
    #[method(
        name = "sum",
        error(code = -32000, message = "Overflow"),
        example(params = "[1, 2, 4]", result = "7")
    )]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// Returns `["hello", 5]`.
    #[method(name = "get_data", example(params = "[]", result = r#"["hello", 5]"#))]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    /// Adds the values to the running total; never answered.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);

    /// Says hello on stderr; never answered.
    #[notification(name = "notify_hello")]
    async fn notify_hello(&self, value: i64);

    /// Adds the values to the running total; never answered.
    #[notification(name = "notify_sum")]
    async fn notify_sum(&self, #[params] values: Vec<i64>);

    /// The running total of what `update` and `notify_sum` received.
    #[method(
        name = "total",
        example(name = "nothing yet", params = "[]", result = "0")
    )]
    async fn total(&self) -> RpcResult<i64>;
}

/// A JSON number as the calculator computes with it: integers stay exact
/// integers, anything with a fraction or an exponent is a float.
///
/// Two integers give an integer, sent back as a JSON integer (`5`, not
/// `5.0`); an integer result outside `i64` is the `-32000 Overflow` error
/// rather than a rounded float, so that a client never gets a wrong
/// integer. A float on either side gives a float; a float result that is
/// not finite (JSON has no infinity) is the same error. An integer operand
/// outside `i64` is refused as invalid params: rounding it would lose the
/// exactness integers are promised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// A JSON integer.
    Int(i64),
    /// A JSON number with a fraction or an exponent.
    Float(f64),
}

impl Number {
    /// `self + other`; `None` on overflow.
    pub fn checked_add(self, other: Number) -> Option<Number> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a.checked_add(b).map(Number::Int),
            _ => finite(self.as_f64() + other.as_f64()),
        }
    }

    /// `self - other`; `None` on overflow.
    pub fn checked_sub(self, other: Number) -> Option<Number> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a.checked_sub(b).map(Number::Int),
            _ => finite(self.as_f64() - other.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(int) => int as f64,
            Number::Float(float) => float,
        }
    }
}

fn finite(float: f64) -> Option<Number> {
    float.is_finite().then_some(Number::Float(float))
}

impl From<i64> for Number {
    fn from(int: i64) -> Self {
        Number::Int(int)
    }
}

impl From<f64> for Number {
    fn from(float: f64) -> Self {
        Number::Float(float)
    }
}

impl PartialEq<i64> for Number {
    fn eq(&self, other: &i64) -> bool {
        *self == Number::Int(*other)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(int) => int.fmt(f),
            Number::Float(float) => float.fmt(f),
        }
    }
}

/// In the calculator's OpenRPC document a `Number` is any JSON number.
impl schemars::JsonSchema for Number {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Number".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "number" })
    }
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Number::Int(int) => serializer.serialize_i64(int),
            Number::Float(float) => serializer.serialize_f64(float),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NumberVisitor)
    }
}

/// Takes integers as integers, so that none is rounded through `f64`.
struct NumberVisitor;

impl Visitor<'_> for NumberVisitor {
    type Value = Number;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number (an integer within i64, or a float)")
    }

    fn visit_i64<E: de::Error>(self, int: i64) -> Result<Number, E> {
        Ok(Number::Int(int))
    }

    fn visit_u64<E: de::Error>(self, int: u64) -> Result<Number, E> {
        i64::try_from(int)
            .map(Number::Int)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(int), &self))
    }

    fn visit_f64<E: de::Error>(self, float: f64) -> Result<Number, E> {
        Ok(Number::Float(float))
    }
}

/// A calculator that keeps a running total of what it is notified about.
#[derive(Default)]
pub struct Calc {
    total: AtomicI64,
}

impl Calculator for Calc {
    async fn subtract(&self, minuend: Number, subtrahend: Number) -> RpcResult<Number> {
        minuend
            .checked_sub(subtrahend)
            .ok_or_else(|| overflow(minuend, subtrahend))
    }

    async fn add(&self, a: Number, b: Number) -> RpcResult<Number> {
        a.checked_add(b).ok_or_else(|| overflow(a, b))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        values
            .iter()
            .try_fold(0i64, |sum, v| sum.checked_add(*v))
            .ok_or_else(|| ErrorObject::new(-32000, "Overflow").with_data(&values))
    }

    async fn get_data(&self) -> RpcResult<(String, i64)> {
        Ok(("hello".to_owned(), 5))
    }

    async fn update(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::Relaxed);
    }

    async fn notify_hello(&self, value: i64) {
        eprintln!("hello, {value}");
    }

    async fn notify_sum(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::Relaxed);
    }

    async fn total(&self) -> RpcResult<i64> {
        Ok(self.total.load(Ordering::Relaxed))
    }
}

fn overflow(a: Number, b: Number) -> ErrorObject {
    ErrorObject::new(-32000, "Overflow").with_data(&[a, b])
}
