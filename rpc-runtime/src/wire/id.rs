//! Request ids, kept exactly as the client wrote them.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// A request id: a JSON number, string or null, borrowed from the request.
///
/// The id is kept as the exact text the client sent, so it is echoed back
/// unchanged: integers beyond `u64`, negative numbers, fractions, exponents
/// and escaped strings all round-trip byte for byte.
///
/// ```
/// use typed_rpc::Id;
/// use serde_json::value::RawValue;
///
/// let raw: &RawValue = serde_json::from_str("-18446744073709551617").unwrap();
/// let id = Id::new(raw).unwrap();
/// assert_eq!(id.as_json(), "-18446744073709551617");
/// assert_eq!(id.as_i64(), None);
///
/// let raw: &RawValue = serde_json::from_str("[1]").unwrap();
/// assert!(Id::new(raw).is_none(), "an array is not an id");
/// ```
#[derive(Clone, Copy)]
pub struct Id<'a>(&'a RawValue);

impl<'a> Id<'a> {
    /// Wraps `raw` if it is a valid id (a number, a string or null).
    pub fn new(raw: &'a RawValue) -> Option<Self> {
        match raw.get().as_bytes().first()? {
            b'"' | b'n' | b'-' | b'0'..=b'9' => Some(Id(raw)),
            _ => None,
        }
    }

    /// The id as JSON text, exactly as received.
    pub fn as_json(&self) -> &'a str {
        self.0.get()
    }

    /// Whether the id is `null`.
    pub fn is_null(&self) -> bool {
        self.as_json() == "null"
    }

    /// The id as an unsigned integer, if it is one that fits.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_json().parse().ok()
    }

    /// The id as a signed integer, if it is one that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_json().parse().ok()
    }

    /// The id as a string, with JSON escapes resolved, if it is a string.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        let text = self.as_json();
        if !text.starts_with('"') {
            return None;
        }
        match serde_json::from_str::<&'a str>(text) {
            Ok(plain) => Some(Cow::Borrowed(plain)),
            Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
        }
    }
}

impl PartialEq for Id<'_> {
    /// Ids are equal when they are the same JSON text.
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}

impl Eq for Id<'_> {}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl Serialize for Id<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}
