//! A streaming call: each item printed as it arrives, until the stream
//! ends or Ctrl-C stops it.

use serde_json::value::RawValue;
use typed_rpc::StreamInfo;
use typed_rpc::client::{AnyTransport, OutgoingRequest, Params, Subscription, Transport};

use crate::exit::Failure;
use crate::openrpc::StreamNames;
use crate::output::{self, Style};

/// Calls `method` and prints its items in `style`, one JSON value each, as
/// they come. Ends `Ok` when the server ends the stream; an error item, a
/// lost connection or Ctrl-C (after unsubscribing) is the failure the exit
/// code tells.
pub async fn print_items(
    client: &AnyTransport,
    method: &str,
    params: Option<&Params>,
    names: StreamNames,
    style: Style,
) -> Result<(), Failure> {
    let info = leak(names);
    let call = OutgoingRequest::new(method, params);
    let mut items = Subscription::<Box<RawValue>>::new(client.send_stream(call, info).await?);
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            // Ctrl-C first: polled before the first item is printed, its
            // handler is in place by the time anyone sees the stream.
            biased;
            _ = &mut interrupted => {
                // Dropping the items unsubscribes, before the connection
                // closes (over HTTP, it closes the response).
                drop(items);
                return Err(Failure::interrupted());
            }
            item = items.next() => match item {
                Some(Ok(item)) => output::print(&style.render(item.get())),
                Some(Err(err)) => return Err(Failure::from(err).context("the stream")),
                None => return Ok(()),
            },
        }
    }
}

/// The names as the runtime's clients take them: for the process's life,
/// which is one call.
fn leak(names: StreamNames) -> &'static StreamInfo {
    let notification = Box::leak(names.notification.into_boxed_str());
    let unsubscribe = Box::leak(names.unsubscribe.into_boxed_str());
    Box::leak(Box::new(StreamInfo::new(notification, unsubscribe)))
}
