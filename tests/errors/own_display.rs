//! `#[derive(RpcError)]` beside a `Display` of the user's own: thiserror's
//! derive, seen by its `#[error(...)]`, or one by hand with `no_display`.
//! The derive then implements neither `Display` nor `Error`, and the codes
//! still travel both ways.

use typed_rpc::{ErrorObject, RpcError};

#[derive(Debug, PartialEq, RpcError, thiserror::Error)]
pub enum ThisError {
    #[error("no value under {key:?}")]
    #[rpc_error(code = 1001, message = "Key not found")]
    NotFound { key: String },
    #[error("the store holds {0} values at most")]
    #[rpc_error(code = 1002)]
    StoreFull(u32),
}

#[derive(Debug, PartialEq, RpcError)]
#[rpc_error(no_display)]
pub enum ByHand {
    #[rpc_error(code = 7, message = "Busy")]
    Busy,
}

impl std::fmt::Display for ByHand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("busy, try later")
    }
}

impl std::error::Error for ByHand {}

#[test]
fn thiserror_writes_the_display_and_the_codes_still_travel() {
    let err = ThisError::NotFound { key: "a".into() };
    assert_eq!(err.to_string(), r#"no value under "a""#);
    let object = ErrorObject::from(err);
    assert_eq!((object.code(), object.message()), (1001, "Key not found"));
    assert_eq!(
        ThisError::try_from(object).unwrap(),
        ThisError::NotFound { key: "a".into() }
    );
    assert_eq!(
        ThisError::StoreFull(3).to_string(),
        "the store holds 3 values at most"
    );
}

#[test]
fn no_display_leaves_display_and_error_to_the_user() {
    assert_eq!(ByHand::Busy.to_string(), "busy, try later");
    let object = ErrorObject::from(ByHand::Busy);
    assert_eq!((object.code(), object.message()), (7, "Busy"));
    let _: &dyn std::error::Error = &ByHand::Busy;
}
