//! Batch handles are plain positions: `Copy`, kept in collections, and read
//! by value or by reference as often as needed, a call whose params could
//! not be sent included.

use std::collections::BTreeMap;

use typed_rpc::client::{BatchCall, InProcess};
use typed_rpc::{ClientError, Router, RpcResult, rpc};

#[rpc]
pub trait Squares {
    #[method(name = "square")]
    async fn square(&self, n: i64) -> RpcResult<i64>;

    /// Takes a map whose keys are pairs, which JSON cannot carry.
    #[method(name = "count")]
    async fn count(&self, pairs: BTreeMap<(i64, i64), i64>) -> RpcResult<usize>;
}

struct Math;

impl Squares for Math {
    async fn square(&self, n: i64) -> RpcResult<i64> {
        Ok(n * n)
    }

    async fn count(&self, pairs: BTreeMap<(i64, i64), i64>) -> RpcResult<usize> {
        Ok(pairs.len())
    }
}

fn client() -> SquaresClient<InProcess> {
    SquaresClient::new(InProcess::new(Router::new(Math.into_service())))
}

#[tokio::test]
async fn handles_in_a_vec_are_read_by_reference_and_by_value() {
    let client = client();
    let mut batch = client.batch();
    let calls: Vec<BatchCall<RpcResult<i64>>> = (1..=4).map(|n| batch.square(n)).collect();
    let replies = batch.await.unwrap();
    let by_reference: Vec<i64> = calls
        .iter()
        .map(|call| replies.get(call).unwrap())
        .collect();
    assert_eq!(by_reference, [1, 4, 9, 16]);
    // Indexing copies the handle out; reading again gives the same reply.
    assert_eq!(replies.get(calls[3]).unwrap(), 16);
    assert_eq!(replies.get(calls[3]).unwrap(), 16);
    let first = calls[0];
    let copy = first;
    assert_eq!(replies.get(first).unwrap(), replies.get(copy).unwrap());
}

#[tokio::test]
async fn a_call_that_could_not_be_sent_reads_as_the_same_encode_error_each_time() {
    let client = client();
    let mut batch = client.batch();
    let before = batch.square(3);
    let unsendable = batch.count(BTreeMap::from([((1, 2), 3)]));
    let after = batch.square(5);
    let replies = batch.await.unwrap();
    assert_eq!(replies.get(before).unwrap(), 9);
    assert_eq!(replies.get(after).unwrap(), 25);
    let reasons: Vec<String> = (0..2)
        .map(|_| match replies.get(unsendable) {
            Err(ClientError::Encode(err)) => err.to_string(),
            other => panic!("expected an Encode error, got {other:?}"),
        })
        .collect();
    assert_eq!(reasons[0], reasons[1]);
    assert!(
        reasons[0].contains("key must be a string"),
        "{}",
        reasons[0]
    );
}
