//! A value serialized once and sent many times: a `newHeads` header goes
//! to every subscriber as the same bytes.

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// `T` with its JSON, made once: serializes as that JSON (with
/// `serde_json`, which the framework writes with), deserializes as a `T`.
#[derive(Clone, Debug)]
pub struct Serialized<T> {
    value: Arc<T>,
    json: Arc<RawValue>,
}

impl<T: Serialize> Serialized<T> {
    /// `value` and its JSON.
    pub fn new(value: T) -> Self {
        let json = serde_json::value::to_raw_value(&value).expect("the API's types serialize");
        Self {
            value: Arc::new(value),
            json: Arc::from(json),
        }
    }
}

impl<T> Deref for Serialized<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Serialized<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T> Serialize for Serialized<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de> + Serialize> Deserialize<'de> for Serialized<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_serializes_as_its_value_and_reads_back() {
        let shared = Serialized::new(vec![1u8, 2]);
        assert_eq!(serde_json::to_string(&shared).unwrap(), "[1,2]");
        let read: Serialized<Vec<u8>> = serde_json::from_str("[3]").unwrap();
        assert_eq!(*read, vec![3]);
        assert_eq!(serde_json::to_string(&read).unwrap(), "[3]");
    }
}
