//! The two conversions the derive generates, without a transport.

use serde_json::{Value, json};
use typed_rpc::ErrorObject;

use crate::api::KvError;

fn data_of(err: &ErrorObject) -> Option<Value> {
    err.data_as::<Value>().map(Result::unwrap)
}

#[test]
fn each_variant_travels_with_its_code_message_and_data() {
    let cases = [
        (
            KvError::NotFound {
                key: "a".into(),
                similar: None,
            },
            1001,
            "Key not found",
            Some(json!({"key": "a", "similar": null})),
        ),
        (
            KvError::StoreFull(100),
            1002,
            "Store full",
            Some(json!(100)),
        ),
        (
            KvError::Conflict("a".into(), 7),
            1003,
            "Version conflict",
            Some(json!(["a", 7])),
        ),
        (KvError::ReadOnly, -32001, "Read only", None),
    ];
    for (variant, code, message, data) in cases {
        let object = ErrorObject::from(variant);
        assert_eq!(object.code(), code);
        assert_eq!(
            object.message(),
            message,
            "a missing message is the variant's name in words"
        );
        assert_eq!(data_of(&object), data, "{object}");
    }
}

#[test]
fn each_variant_comes_back_from_its_object() {
    for variant in [
        KvError::NotFound {
            key: "a".into(),
            similar: Some("as".into()),
        },
        KvError::StoreFull(3),
        KvError::Conflict("b".into(), u64::MAX),
        KvError::ReadOnly,
    ] {
        let debug = format!("{variant:?}");
        let back = KvError::try_from(ErrorObject::from(variant)).unwrap();
        assert_eq!(format!("{back:?}"), debug);
    }
}

#[test]
fn an_absent_optional_member_reads_as_none_and_unknown_members_are_ignored() {
    let object = ErrorObject::new(1001, "whatever the server says")
        .with_data(&json!({"key": "a", "extra": true}));
    assert_eq!(
        KvError::try_from(object).unwrap(),
        KvError::NotFound {
            key: "a".into(),
            similar: None
        }
    );
}

#[test]
fn an_unknown_code_or_data_that_does_not_fit_gives_the_object_back() {
    for object in [
        ErrorObject::new(4242, "Something else").with_data(&1),
        ErrorObject::method_not_found(),
        ErrorObject::new(1001, "Key not found").with_data(&json!({"key": 5})),
        ErrorObject::new(1001, "Key not found"),
        ErrorObject::new(1003, "Version conflict").with_data(&json!(["a"])),
    ] {
        let unknown = KvError::try_from(object.clone()).unwrap_err();
        assert_eq!(unknown.error_object(), &object);
        assert_eq!(unknown.into_error_object(), object);
    }
}

#[test]
fn display_is_each_variants_message_and_the_type_is_an_error() {
    let cases = [
        (
            KvError::NotFound {
                key: "a".into(),
                similar: None,
            },
            "Key not found",
        ),
        (KvError::StoreFull(100), "Store full"),
        (KvError::Conflict("a".into(), 7), "Version conflict"),
        (KvError::ReadOnly, "Read only"),
    ];
    for (variant, message) in cases {
        assert_eq!(variant.to_string(), message);
        let boxed: Box<dyn std::error::Error> = Box::new(variant);
        assert!(boxed.source().is_none());
    }
}
