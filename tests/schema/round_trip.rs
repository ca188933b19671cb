//! The calculator's own document, committed as a file for `openrpc!`, back
//! into a client that talks to the calculator.

use typed_rpc::Router;
use typed_rpc::client::InProcess;

use super::calculator_api::{Calc, Calculator as _};
use super::calculator_document;

/// `openrpc!` reads a file at compile time; this one is what the trait
/// produces, kept equal to it by the test below.
const FIXTURE: &str = "tests/schema/calculator.openrpc.json";

mod generated {
    typed_rpc::openrpc!("tests/schema/calculator.openrpc.json");
}

#[test]
fn the_committed_document_is_what_the_trait_produces_now() {
    super::fixture::assert_current(FIXTURE, &calculator_document());
}

#[tokio::test]
async fn a_client_generated_from_the_document_calls_the_calculator() {
    let server = Router::new(Calc::default().into_service());
    let client = generated::CalculatorClient::new(InProcess::new(server));
    // The calculator takes any JSON number, so the document says `number`
    // and the generated client sends and reads `f64`s.
    assert_eq!(client.subtract(42.0, 23.0).await.unwrap(), 19.0);
    assert_eq!(client.add(0.25, 0.5).await.unwrap(), 0.75);
    assert_eq!(client.sum(vec![1, 2, 4]).await.unwrap(), 7);
    assert_eq!(client.get_data().await.unwrap(), ("hello".to_owned(), 5));
    client.update(vec![10, 20]).await.unwrap();
    client.notify_sum(vec![3]).await.unwrap();
    client.notify_hello(1).await.unwrap();
    assert_eq!(client.total().await.unwrap(), 33);
    // A sum past what a double holds is the documented `-32000`, typed
    // from the document's `errors` (one enum for the methods that list the
    // same errors, named after the first), its data kept.
    let overflow = client.add(f64::MAX, f64::MAX).await.unwrap_err();
    match overflow.app_error() {
        Some(generated::SubtractError::Overflow(Some(data))) => {
            assert_eq!(data, &serde_json::json!([f64::MAX, f64::MAX]));
        }
        other => panic!("not the documented overflow: {other:?}"),
    }
}
