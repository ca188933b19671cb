//! The API's JSON shapes: blocks, transactions, receipts, logs, filters, fee history.
//!
//! Every number is a quantity (`"0x1a"`: lowercase hex, no leading zeros) and
//! every byte string even-length hex, as Ethereum clients read them; the
//! serde of `alloy-primitives` and `alloy_serde::quantity` write exactly that.

mod block;
mod call;
pub mod fee;
mod filter;
mod one_or_many;
mod receipt;
mod serialized;
mod transaction;

pub use alloy_eips::{BlockId, BlockNumberOrTag};
pub use block::{Block, BlockTransactions, RpcHeader};
pub use call::CallRequest;
pub use fee::{BlockCount, FeeHistory};
pub use filter::{LogFilter, Topics};
pub use one_or_many::OneOrMany;
pub use receipt::{RpcLog, RpcReceipt};
pub use serialized::Serialized;
pub use transaction::RpcTransaction;

/// What `eth_subscribe` takes as its first param.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SubscriptionKind {
    /// A header per new block.
    #[serde(rename = "newHeads")]
    NewHeads,
    /// Each log of each new block that matches the filter (second param).
    #[serde(rename = "logs")]
    Logs,
}

/// One `eth_subscription` notification's `result`: a header or a log.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum SubscriptionItem {
    /// For `newHeads`: serialized once per block, whatever the subscribers.
    Header(Serialized<RpcHeader>),
    /// For `logs`.
    Log(Box<RpcLog>),
}
