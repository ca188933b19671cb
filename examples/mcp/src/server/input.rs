//! Asking the client for input in the 2026-07-28 generation: a handler's
//! host call either finds its answer among those the client's retry
//! brought, or asks for it, and the request ends with an
//! `input_required` result carrying every question asked and, signed, the
//! answers given so far, so that any server process can take the retry.

use std::collections::BTreeMap;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::Poll;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::{digest, hmac, rand};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use typed_rpc::client::Params;
use typed_rpc::{ClientError, ErrorObject};

use crate::types::{InputRequest, InputRequests, InputResponses};

/// How long the state of an `input_required` result stays good.
const STATE_LIFETIME: Duration = Duration::from_secs(3600);

/// The input of one try of a request: the answers it came with, and the
/// questions its handler asked that none of them answers.
pub(crate) struct InputRound {
    answers: InputResponses,
    /// Counts the host calls, to key each by its place in the handler.
    calls: AtomicU32,
    asked: Mutex<InputRequests>,
}

impl InputRound {
    pub(crate) fn new(answers: InputResponses) -> Self {
        InputRound {
            answers,
            calls: AtomicU32::new(0),
            asked: Mutex::new(InputRequests::new()),
        }
    }

    /// The answer to the host call `method` with `params` (keyed `key`,
    /// else by its place among the handler's calls), as the text of its
    /// response; an answer that is no answer to `method` is `-32602`. A
    /// call not answered yet is asked, and never resolves (the request
    /// ends with the question, see [`until_input`]).
    pub(crate) async fn answer(
        &self,
        method: &str,
        params: Option<&Params>,
        key: Option<&str>,
    ) -> Result<String, ClientError> {
        let key = match key {
            Some(key) => key.to_owned(),
            None => {
                let place = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
                format!("{}-{place}", method.split('/').next().unwrap_or(method))
            }
        };
        if let Some(answer) = self.answers.get(&key) {
            check_answer(method, &key, answer).map_err(ClientError::Rpc)?;
            return Ok(format!(r#"{{"jsonrpc":"2.0","id":0,"result":{answer}}}"#));
        }
        let params = params
            .map(|p| serde_json::from_str(p.as_json()))
            .transpose()
            .map_err(|err| {
                ClientError::Decode(typed_rpc::client::DecodeError::invalid_response(err))
            })?;
        let request = InputRequest {
            method: method.to_owned(),
            params,
        };
        lock(&self.asked).insert(key, request);
        std::future::pending().await
    }

    /// The questions asked, if any were.
    fn take_asked(&self) -> Option<InputRequests> {
        let mut asked = lock(&self.asked);
        (!asked.is_empty()).then(|| std::mem::take(&mut *asked))
    }

    /// Every answer known: to carry to the next try.
    pub(crate) fn answers(&self) -> &InputResponses {
        &self.answers
    }
}

/// Whether `answer` (to the input request `key`) is a result of `method`.
fn check_answer(method: &str, key: &str, answer: &Value) -> Result<(), ErrorObject> {
    use crate::types::{CreateMessageResult, ElicitResult, ListRootsResult};
    let fits = match method {
        "sampling/createMessage" => {
            serde_json::from_value::<CreateMessageResult>(answer.clone()).is_ok()
        }
        "elicitation/create" => serde_json::from_value::<ElicitResult>(answer.clone()).is_ok(),
        "roots/list" => serde_json::from_value::<ListRootsResult>(answer.clone()).is_ok(),
        _ => true,
    };
    match fits {
        true => Ok(()),
        false => Err(ErrorObject::new(
            typed_rpc::code::INVALID_PARAMS,
            format!("Invalid params: inputResponses.{key} is not a result of {method}"),
        )
        .with_data(&serde_json::json!({ "param": "inputResponses", "path": format!("/inputResponses/{key}"), "reason": format!("not a result of {method}") }))),
    }
}

/// Runs `handler` until it finishes, or until it waits on a question for
/// the client (then the questions it asked, and the handler is dropped).
pub(crate) async fn until_input<F: Future>(
    handler: F,
    round: Option<&InputRound>,
) -> Result<F::Output, InputRequests> {
    let mut handler = pin!(handler);
    poll_fn(|cx| match handler.as_mut().poll(cx) {
        Poll::Ready(output) => Poll::Ready(Ok(output)),
        Poll::Pending => match round.and_then(InputRound::take_asked) {
            Some(asked) => Poll::Ready(Err(asked)),
            None => Poll::Pending,
        },
    })
    .await
}

/// The key that signs the state of `input_required` results. Servers that
/// share one key take each other's retries.
pub struct StateKey(hmac::Key);

impl StateKey {
    /// A key of this process's own.
    pub fn random() -> Self {
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &rand::SystemRandom::new())
            .expect("the system's random source works");
        StateKey(key)
    }

    /// The key derived from `secret` (at least 16 bytes of it, say).
    pub fn from_secret(secret: &[u8]) -> Self {
        StateKey(hmac::Key::new(hmac::HMAC_SHA256, secret))
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

/// The request a state belongs to: its method, what it names (a tool, a
/// prompt, a URI) and a digest of its arguments.
pub(crate) struct Binding(String);

impl Binding {
    pub(crate) fn new(method: &str, target: &str, arguments: Option<&str>) -> Self {
        // Arguments are compared as values, whatever their spacing or order.
        let canonical = arguments
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .map(|value| value.to_string())
            .unwrap_or_default();
        let mut context = digest::Context::new(&digest::SHA256);
        for part in [method, target, &canonical] {
            context.update(part.as_bytes());
            context.update(&[0]);
        }
        Binding(URL_SAFE_NO_PAD.encode(&context.finish().as_ref()[..16]))
    }
}

/// What a state carries.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The binding.
    b: String,
    /// When it stops being good (seconds since the epoch).
    exp: u64,
    /// The answers so far.
    a: InputResponses,
}

/// The state of an `input_required` result: `answers`, for the request
/// `binding` names, signed with `key`.
pub(crate) fn seal(key: &StateKey, binding: &Binding, answers: &InputResponses) -> String {
    let sealed = Sealed {
        b: binding.0.clone(),
        exp: now() + STATE_LIFETIME.as_secs(),
        a: answers.clone(),
    };
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&sealed).expect("a state serializes"));
    let tag = hmac::sign(&key.0, payload.as_bytes());
    format!("{payload}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
}

/// The answers a retry's `requestState` carries, if `key` signed it for
/// the request `binding` names and it has not expired; else `-32602`.
pub(crate) fn open(
    key: &StateKey,
    binding: &Binding,
    state: &str,
) -> Result<InputResponses, ErrorObject> {
    let invalid = |reason: &str| {
        ErrorObject::new(
            typed_rpc::code::INVALID_PARAMS,
            format!("Invalid requestState: {reason}"),
        )
        .with_data(&serde_json::json!({ "param": "requestState", "reason": reason }))
    };
    let (payload, tag) = state
        .split_once('.')
        .ok_or_else(|| invalid("not a state this server made"))?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| invalid("not a state this server made"))?;
    hmac::verify(&key.0, payload.as_bytes(), &tag)
        .map_err(|_| invalid("its signature does not match"))?;
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| invalid("unreadable"))?;
    let sealed: Sealed = serde_json::from_slice(&payload).map_err(|_| invalid("unreadable"))?;
    if sealed.b != binding.0 {
        return Err(invalid("it belongs to another request"));
    }
    if sealed.exp < now() {
        return Err(invalid("it has expired"));
    }
    Ok(sealed.a)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The answers of a retry: those its signed state carries, then those it
/// brings (which win).
pub(crate) fn answers_of(
    key: &StateKey,
    binding: &Binding,
    state: Option<&str>,
    responses: Option<InputResponses>,
) -> Result<InputResponses, ErrorObject> {
    let mut answers = match state {
        Some(state) => open(key, binding, state)?,
        None => BTreeMap::new(),
    };
    answers.extend(responses.unwrap_or_default());
    Ok(answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_opens_only_for_its_request_and_key() {
        let key = StateKey::from_secret(b"a secret of sixteen bytes");
        let binding = Binding::new("tools/call", "greet", Some(r#"{"b": 2, "a": 1}"#));
        let mut answers = InputResponses::new();
        answers.insert(
            "elicitation-1".into(),
            serde_json::json!({"action": "accept"}),
        );
        let state = seal(&key, &binding, &answers);
        // The same arguments, spaced and ordered otherwise.
        let same = Binding::new("tools/call", "greet", Some(r#"{"a":1,"b":2}"#));
        assert_eq!(open(&key, &same, &state).unwrap(), answers);
        let other = Binding::new("tools/call", "greet", Some(r#"{"a":2}"#));
        assert!(
            open(&key, &other, &state)
                .unwrap_err()
                .message()
                .contains("another request")
        );
        let stranger = StateKey::from_secret(b"another secret entirely");
        assert!(open(&stranger, &binding, &state).is_err());
        let mut tampered = state.clone();
        tampered.insert(3, 'x');
        assert_eq!(open(&key, &binding, &tampered).unwrap_err().code(), -32602);
    }

    #[tokio::test]
    async fn a_handler_that_asks_ends_with_its_questions() {
        let round = InputRound::new(InputResponses::new());
        let asked = until_input(
            async {
                let first = round.answer("roots/list", None, None);
                let second = round.answer("sampling/createMessage", None, None);
                let _ = futures_util::future::join(first, second).await;
            },
            Some(&round),
        )
        .await
        .unwrap_err();
        assert_eq!(asked.keys().collect::<Vec<_>>(), ["roots-1", "sampling-2"]);

        let mut answers = InputResponses::new();
        answers.insert("roots-1".into(), serde_json::json!({"roots": []}));
        let round = InputRound::new(answers);
        let text = until_input(round.answer("roots/list", None, None), Some(&round))
            .await
            .unwrap();
        assert_eq!(
            text.unwrap(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#
        );
    }
}
