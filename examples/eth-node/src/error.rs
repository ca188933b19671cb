//! The error objects Ethereum clients expect, by the codes of EIP-1474 and geth's messages.
//!
//! Clients read the message as much as the code: ethers and viem match
//! `insufficient funds` and `nonce too low`, and decode a revert from code
//! `3` with the revert bytes in `data`. So the messages follow geth's words.

use alloy_primitives::Bytes;
use typed_rpc::ErrorObject;

/// `-32000`: the input is well formed JSON-RPC but not a usable value.
pub const INVALID_INPUT: i64 = -32000;
/// `-32001`: what the call names does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32001;
/// `-32003`: a transaction the node will not take.
pub const TRANSACTION_REJECTED: i64 = -32003;
/// `-32005`: the request asks for more than the node gives at once.
pub const LIMIT_EXCEEDED: i64 = -32005;
/// `3`: the EVM ran `REVERT`; `data` holds what it returned.
pub const EXECUTION_REVERTED: i64 = 3;

/// `-32000` with `message`.
pub fn invalid_input(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(INVALID_INPUT, message.into())
}

/// `-32001` with `message`.
pub fn not_found(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(RESOURCE_NOT_FOUND, message.into())
}

/// `-32003` with `message`.
pub fn rejected(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(TRANSACTION_REJECTED, message.into())
}

/// `-32005` with `message`.
pub fn limit_exceeded(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(LIMIT_EXCEEDED, message.into())
}

/// `3`, `"execution reverted: REASON"` when the output is a Solidity
/// `Error(string)`, and the output as `data`.
pub fn reverted(output: &Bytes) -> ErrorObject {
    let message = match revert_reason(output) {
        Some(reason) => format!("execution reverted: {reason}"),
        None => "execution reverted".to_owned(),
    };
    ErrorObject::new(EXECUTION_REVERTED, message).with_data(output)
}

/// The string of an ABI-encoded `Error(string)` (selector `0x08c379a0`).
pub fn revert_reason(output: &[u8]) -> Option<String> {
    let body = output.strip_prefix(&[0x08, 0xc3, 0x79, 0xa0])?;
    let word = |at: usize| -> Option<usize> {
        let word = body.get(at..at.checked_add(32)?)?;
        // A length or offset that does not fit in 8 bytes is not one we can read.
        if word[..24].iter().any(|byte| *byte != 0) {
            return None;
        }
        usize::try_from(u64::from_be_bytes(word[24..].try_into().ok()?)).ok()
    };
    let offset = word(0)?;
    let len = word(offset)?;
    let start = offset.checked_add(32)?;
    let text = body.get(start..start.checked_add(len)?)?;
    String::from_utf8(text.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_error_string() {
        let mut output = vec![0x08, 0xc3, 0x79, 0xa0];
        output.extend_from_slice(&[0; 31]);
        output.push(0x20);
        output.extend_from_slice(&[0; 31]);
        output.push(3);
        output.extend_from_slice(b"low");
        output.extend_from_slice(&[0; 29]);
        assert_eq!(revert_reason(&output).as_deref(), Some("low"));
        let error = reverted(&Bytes::from(output));
        assert_eq!(error.code(), 3);
        assert_eq!(error.message(), "execution reverted: low");
    }

    #[test]
    fn other_output_is_a_bare_revert() {
        assert_eq!(revert_reason(&[0x08, 0xc3, 0x79, 0xa0, 0xff]), None);
        let error = reverted(&Bytes::from_static(&[0x12, 0x34]));
        assert_eq!(error.message(), "execution reverted");
        assert_eq!(error.data().unwrap().get(), r#""0x1234""#);
    }
}
