//! `eth_subscribe`: new heads and matching logs from the broadcast of mined blocks.

use std::sync::Arc;

use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::broadcast::{self, error::RecvError};
use typed_rpc::RpcResult;

use super::Node;
use crate::chain::MinedBlock;
use crate::types::{LogFilter, SubscriptionItem, SubscriptionKind};

impl Node {
    /// The items of a subscription of `kind`, from the next block on.
    pub(super) fn subscription(
        &self,
        kind: SubscriptionKind,
        filter: LogFilter,
    ) -> impl Stream<Item = RpcResult<SubscriptionItem>> + Send + 'static {
        let blocks = new_blocks(self.inner.heads.subscribe());
        match kind {
            SubscriptionKind::NewHeads => blocks
                .map(|block| Ok(SubscriptionItem::Header(block.shared_header())))
                .left_stream(),
            SubscriptionKind::Logs => blocks
                .flat_map(move |block| {
                    let logs: Vec<_> = block.matching_logs(&filter).collect();
                    stream::iter(logs).map(|log| Ok(SubscriptionItem::Log(Box::new(log))))
                })
                .right_stream(),
        }
    }
}

/// Each block mined from now on. A subscriber that falls more than the
/// backlog behind skips the oldest blocks rather than hold them all.
fn new_blocks(
    receiver: broadcast::Receiver<Arc<MinedBlock>>,
) -> impl Stream<Item = Arc<MinedBlock>> + Send {
    stream::unfold(receiver, |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(block) => return Some((block, receiver)),
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    })
}
