//! Batches: several calls in one message, their replies matched by id.

use std::fmt::Write as _;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::{ClientError, DecodeError, OutgoingRequest, Params};

/// Several requests and notifications sent as one JSON-RPC batch.
///
/// ```
/// use typed_rpc::client::{Batch, Params};
///
/// let mut batch = Batch::new();
/// let difference = batch.request::<i64>("subtract", Some(Params::from_value(&(42, 23)).unwrap()));
/// batch.notify("update", Some(Params::from_value(&[1, 2, 3]).unwrap()));
/// assert_eq!(batch.len(), 2);
/// assert_eq!(
///     batch.to_text(7),
///     r#"[{"jsonrpc":"2.0","id":7,"method":"subtract","params":[42,23]},{"jsonrpc":"2.0","method":"update","params":[1,2,3]}]"#
/// );
/// # let _ = difference;
/// ```
#[derive(Clone, Debug, Default)]
pub struct Batch {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    method: String,
    params: Option<Params>,
    notification: bool,
}

/// Where the result of one request of a [`Batch`] will be, and its type;
/// `Copy`, like the typed [`BatchCall`](super::BatchCall).
#[derive(Debug)]
pub struct BatchSlot<R> {
    /// The request's position among the batch's requests (notifications skipped).
    request: usize,
    result: PhantomData<fn() -> R>,
}

// By hand: a derive would ask `R: Clone`, and `R` is only a marker.
impl<R> Clone for BatchSlot<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for BatchSlot<R> {}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Batch::default()
    }

    /// Adds a request; its result will be read from the reply with the returned slot.
    pub fn request<R: DeserializeOwned>(
        &mut self,
        method: impl Into<String>,
        params: Option<Params>,
    ) -> BatchSlot<R> {
        let slot = BatchSlot {
            request: self.request_count(),
            result: PhantomData,
        };
        self.push(method.into(), params, false);
        slot
    }

    /// Adds a notification.
    pub fn notify(&mut self, method: impl Into<String>, params: Option<Params>) {
        self.push(method.into(), params, true);
    }

    fn push(&mut self, method: String, params: Option<Params>, notification: bool) {
        self.entries.push(Entry {
            method,
            params,
            notification,
        });
    }

    /// The number of entries, requests and notifications.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch has no entries (an empty batch cannot be sent).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of requests, which each get a response.
    pub fn request_count(&self) -> usize {
        self.entries.iter().filter(|e| !e.notification).count()
    }

    /// Each entry as it will be sent, with whether it is a notification.
    pub fn entries(&self) -> impl Iterator<Item = (OutgoingRequest<'_>, bool)> {
        self.entries.iter().map(|entry| {
            (
                OutgoingRequest::new(&entry.method, entry.params.as_ref()),
                entry.notification,
            )
        })
    }

    /// The batch's text, numbering the requests `first_id`, `first_id + 1`, ...
    pub fn to_text(&self, first_id: u64) -> String {
        let mut text = String::from("[");
        let mut id = first_id;
        for (index, entry) in self.entries.iter().enumerate() {
            if index > 0 {
                text.push(',');
            }
            let request = OutgoingRequest::new(&entry.method, entry.params.as_ref());
            let entry_id = (!entry.notification).then(|| {
                id += 1;
                id - 1
            });
            // Writing to a `String` cannot fail.
            let _ = write!(text, "{}", request.to_text(entry_id));
        }
        text.push(']');
        text
    }
}

/// The replies to a batch's requests.
#[derive(Debug)]
pub struct BatchResponse {
    /// One slot per request, in order: the response text, if one came.
    replies: Vec<Option<Box<RawValue>>>,
}

impl BatchResponse {
    /// Matches the responses in `reply` (a batch reply, or a single error
    /// object when the server refused the whole batch) to the requests of a
    /// batch of `requests` requests numbered from `first_id`.
    pub fn from_reply(requests: usize, first_id: u64, reply: &str) -> Result<Self, ClientError> {
        let invalid = |err| ClientError::Decode(DecodeError::invalid_response(err));
        let mut replies = vec![None; requests];
        if reply.trim_start().starts_with('{') {
            // The whole batch was refused (parse error, too large, ...).
            let refusal: crate::Response<'_> = serde_json::from_str(reply).map_err(invalid)?;
            return Err(match refusal.into_result() {
                Err(error) => ClientError::Rpc(error),
                Ok(_) => ClientError::Decode(DecodeError::invalid_response(
                    serde::de::Error::custom("a batch was answered with a single result"),
                )),
            });
        }
        let responses: Vec<&RawValue> = serde_json::from_str(reply).map_err(invalid)?;
        for raw in responses {
            let response: crate::Response<'_> = serde_json::from_str(raw.get()).map_err(invalid)?;
            let index = response
                .id()
                .and_then(|id| id.as_u64())
                .and_then(|id| id.checked_sub(first_id))
                .and_then(|index| usize::try_from(index).ok())
                .filter(|&index| index < requests);
            if let Some(index) = index {
                replies[index] = Some(raw.to_owned());
            }
        }
        Ok(BatchResponse { replies })
    }

    /// A response built from one reply text per request, in order (`None`
    /// where no reply came).
    pub fn from_replies(replies: Vec<Option<String>>) -> Self {
        let replies = replies
            .into_iter()
            .map(|reply| reply.and_then(|text| RawValue::from_string(text).ok()))
            .collect();
        BatchResponse { replies }
    }

    /// The result of the request in `slot`.
    pub fn get<R: DeserializeOwned>(&self, slot: &BatchSlot<R>) -> Result<R, ClientError> {
        self.result_at(slot.request)
    }

    /// The result of the request at position `request` among the batch's requests.
    pub(crate) fn result_at<R: DeserializeOwned>(&self, request: usize) -> Result<R, ClientError> {
        match self.replies.get(request) {
            Some(Some(reply)) => super::decode_result(reply.get()),
            _ => Err(ClientError::Decode(DecodeError::invalid_response(
                serde::de::Error::custom("the batch reply has no response for this request"),
            ))),
        }
    }
}
