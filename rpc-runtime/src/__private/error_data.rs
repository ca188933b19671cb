//! The error objects of derived error types: their codes and messages,
//! and the fields that travel in their `data`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::Ty;
use crate::ErrorObject;

/// The type of a field of an error variant, which travels in the error's
/// `data`: the server serializes it, the client deserializes it (asserted
/// like [`Param`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an RPC error: it does not implement `serde::Serialize` and `serde::Deserialize`",
    label = "an error field must implement `Serialize` and `Deserialize`",
    note = "the fields of an error variant travel as the error object's `data`: add `#[derive(serde::Serialize, serde::Deserialize)]` to the type (to the element type of a `Vec`, an `Option` or a map)"
)]
pub trait ErrorField: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> ErrorField for T {}

/// Asserts that `T` is an [`ErrorField`].
#[inline]
pub const fn error_field<T: ErrorField>(_: Ty<T>) {}

/// The error object of a variant without fields: no `data`.
#[cold]
pub fn error_object(code: i64, message: &'static str) -> ErrorObject {
    ErrorObject::new(code, message)
}

/// The error object of a variant with one unnamed field: the field is the `data`.
#[cold]
pub fn error_with_data<T: ErrorField>(
    code: i64,
    message: &'static str,
    _field_type: Ty<T>,
    data: &T,
) -> ErrorObject {
    ErrorObject::new(code, message).with_data(data)
}

/// The `data` of a variant with named fields (an object) or several unnamed
/// ones (an array), written one field at a time.
pub struct DataWriter {
    text: String,
    failed: Option<serde_json::Error>,
}

/// Starts the `data` object of a variant with named fields.
#[cold]
pub fn data_object() -> DataWriter {
    DataWriter {
        text: String::from("{"),
        failed: None,
    }
}

/// Starts the `data` array of a variant with several unnamed fields.
#[cold]
pub fn data_array() -> DataWriter {
    DataWriter {
        text: String::from("["),
        failed: None,
    }
}

impl DataWriter {
    /// Adds the member `name` (of an object).
    pub fn field<T: ErrorField>(&mut self, name: &str, _field_type: Ty<T>, value: &T) {
        self.separate();
        // A `str` always serializes.
        self.text
            .push_str(&serde_json::to_string(name).unwrap_or_default());
        self.text.push(':');
        self.value(value);
    }

    /// Adds the next element (of an array).
    pub fn element<T: ErrorField>(&mut self, _field_type: Ty<T>, value: &T) {
        self.separate();
        self.value(value);
    }

    fn separate(&mut self) {
        if !matches!(self.text.as_bytes(), [b'{' | b'[']) {
            self.text.push(',');
        }
    }

    fn value<T: Serialize>(&mut self, value: &T) {
        match serde_json::to_string(value) {
            Ok(json) => self.text.push_str(&json),
            Err(err) => self.failed = Some(err),
        }
    }

    /// The error object with this `data`, or with none if a field failed to
    /// serialize (logged, as [`ErrorObject::with_data`] does: an error report
    /// must not itself fail).
    pub fn into_error(mut self, code: i64, message: &'static str) -> ErrorObject {
        let error = ErrorObject::new(code, message);
        if let Some(err) = self.failed {
            tracing::warn!(%err, "error data could not be serialized; sent without it");
            return error;
        }
        self.text
            .push(if self.text.starts_with('{') { '}' } else { ']' });
        match RawValue::from_string(self.text) {
            Ok(raw) => error.with_data(&*raw),
            Err(_) => error,
        }
    }
}

/// Reads the fields of a variant back from an error object's `data`.
///
/// A member or element that is absent reads as `null`, so an `Option` field
/// may be left out; members it does not know are ignored.
pub struct DataReader(serde_json::Value);

impl DataReader {
    /// The reader of `err`'s `data` (`null` when it has none).
    #[cold]
    pub fn new(err: &ErrorObject) -> Self {
        let value = err
            .data_as::<serde_json::Value>()
            .and_then(Result::ok)
            .unwrap_or_default();
        DataReader(value)
    }

    /// The whole `data`, as the one unnamed field of a variant.
    pub fn whole<T: ErrorField>(&self, _field_type: Ty<T>) -> Option<T> {
        T::deserialize(&self.0).ok()
    }

    /// The member `name` of an object.
    pub fn field<T: ErrorField>(&self, name: &str, _field_type: Ty<T>) -> Option<T> {
        Self::read(self.0.as_object()?.get(name))
    }

    /// The element at `index` of an array.
    pub fn element<T: ErrorField>(&self, index: usize, _field_type: Ty<T>) -> Option<T> {
        Self::read(self.0.as_array()?.get(index))
    }

    fn read<T: DeserializeOwned>(value: Option<&serde_json::Value>) -> Option<T> {
        T::deserialize(value.unwrap_or(&serde_json::Value::Null)).ok()
    }
}
