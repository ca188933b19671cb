//! `eth_getLogs` and `logs` subscription filters, and whether a log matches one.

use alloy_primitives::{Address, B256};
use serde::{Deserialize, Serialize};

use super::{BlockNumberOrTag, OneOrMany};

/// Up to four topic positions: `None` matches any topic there, a list any of its topics.
pub type Topics = Vec<Option<OneOrMany<B256>>>;

/// Which logs: a block range (or one block by hash), emitters and topics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogFilter {
    /// First block of the range; `latest` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_block: Option<BlockNumberOrTag>,
    /// Last block of the range; `latest` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<BlockNumberOrTag>,
    /// One block, in place of the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_hash: Option<B256>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<OneOrMany<Address>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<Topics>,
}

impl LogFilter {
    /// Whether a log from `address` with `topics` passes the address and topic tests.
    pub fn matches(&self, address: &Address, topics: &[B256]) -> bool {
        if let Some(wanted) = &self.address
            && !wanted.contains(address)
        {
            return false;
        }
        let Some(wanted) = &self.topics else {
            return true;
        };
        wanted
            .iter()
            .enumerate()
            .all(|(position, wanted)| match wanted {
                None => true,
                Some(wanted) => topics
                    .get(position)
                    .is_some_and(|topic| wanted.contains(topic)),
            })
    }
}
