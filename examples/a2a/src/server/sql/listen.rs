//! PostgreSQL's `LISTEN`: every append notifies the channel with its task
//! and sequence number at its commit; each replica relays them as
//! [`Notice`]s. A lost connection is made again with backoff, and a
//! [`Notice::Resync`] then tells followers to read the log for what the
//! gap may have hidden.

use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::sync::{broadcast, oneshot};

use super::failed;
use crate::server::store::{Notice, StoreError};

/// The channel appends notify.
pub(super) const NOTICE_CHANNEL: &str = "a2a_events";

/// Notices a slow reader may fall behind by; past it, it resyncs.
const NOTICE_BACKLOG: usize = 4096;

/// The first wait before connecting again, doubled up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// Listens on `url`, relaying notices until `stop` is dropped.
pub(super) async fn start(
    url: &str,
) -> Result<(broadcast::Sender<Notice>, oneshot::Sender<()>), StoreError> {
    let listener = listen(url).await?;
    let (notices, _) = broadcast::channel(NOTICE_BACKLOG);
    let (stop, stopped) = oneshot::channel();
    tokio::spawn(relay(url.to_owned(), listener, notices.clone(), stopped));
    Ok((notices, stop))
}

async fn listen(url: &str) -> Result<PgListener, StoreError> {
    let mut listener = PgListener::connect(url).await.map_err(failed)?;
    listener.listen(NOTICE_CHANNEL).await.map_err(failed)?;
    Ok(listener)
}

async fn relay(
    url: String,
    mut listener: PgListener,
    notices: broadcast::Sender<Notice>,
    mut stopped: oneshot::Receiver<()>,
) {
    loop {
        let received = tokio::select! {
            received = listener.try_recv() => received,
            _ = &mut stopped => return,
        };
        match received {
            Ok(Some(notification)) => {
                if let Some(notice) = parse(notification.payload()) {
                    // No follower now is not an error.
                    let _ = notices.send(notice);
                }
            }
            // The connection is gone: a new one, then everyone reads the log.
            Ok(None) | Err(_) => {
                let mut backoff = MIN_BACKOFF;
                listener = loop {
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = &mut stopped => return,
                    }
                    match listen(&url).await {
                        Ok(listener) => break listener,
                        Err(_) => backoff = (backoff * 2).min(MAX_BACKOFF),
                    }
                };
                let _ = notices.send(Notice::Resync);
            }
        }
    }
}

/// A notification's payload, `SEQ TASK_ID`, as a notice.
fn parse(payload: &str) -> Option<Notice> {
    let (seq, task_id) = payload.split_once(' ')?;
    Some(Notice::Appended {
        task_id: task_id.to_owned(),
        seq: seq.parse().ok()?,
    })
}
