//! A stream's last item as a plain reply, for a call that cannot stream
//! and whose method falls back to it ([`StreamFallback::LastItem`]).
//!
//! [`StreamFallback::LastItem`]: crate::StreamFallback::LastItem

use std::future::poll_fn;

use serde_json::value::RawValue;

use super::{Buffer, Frame, Items, bare_items};
use crate::wire::{self, Id};
use crate::{ErrorObject, code};

/// How many bytes of items are framed per poll before the earlier ones are
/// dropped: the items ready are taken in one go, and memory stays bounded
/// by the largest item.
const ROOM: usize = 16 * 1024;

/// Runs `items` to their end and answers the call `id` with the last one;
/// an error item is the reply, and so is a stream that ends empty.
pub(crate) async fn reply(id: Id<'_>, mut items: Items) -> String {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    let mut last: Option<Vec<u8>> = None;
    let ended = poll_fn(|cx| {
        loop {
            out.clear();
            ends.clear();
            let into = Buffer {
                out: &mut out,
                room: ROOM,
                ends: Some(&mut ends),
            };
            match std::task::ready!(items.poll_into(cx, &Frame::BARE, into)) {
                Some(Ok(())) => keep_last(&out, &ends, &mut last),
                Some(Err(error)) => return std::task::Poll::Ready(Err(error)),
                None => {
                    keep_last(&out, &ends, &mut last);
                    return std::task::Poll::Ready(Ok(()));
                }
            }
        }
    })
    .await;
    if let Err(error) = ended {
        return wire::failure(Some(id), &error);
    }
    let item = last
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| RawValue::from_string(text).ok());
    match item {
        Some(item) => wire::success(id, &item),
        None => wire::failure(Some(id), &ended_empty()),
    }
}

/// Keeps the last of the items framed into `out` (each ends where `ends` says).
fn keep_last(out: &[u8], ends: &[usize], last: &mut Option<Vec<u8>>) {
    if let Some(item) = bare_items(out, ends).last() {
        let kept = last.get_or_insert_with(Vec::new);
        kept.clear();
        kept.extend_from_slice(item);
    }
}

#[cold]
fn ended_empty() -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, "Internal error")
        .with_data(&serde_json::json!({ "reason": "the stream ended without an item" }))
}
