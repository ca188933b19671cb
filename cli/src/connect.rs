//! The server a command talks to: the runtime's connecting by URL, with the command line's settings.

use serde_json::value::RawValue;
use typed_rpc::ClientError;
use typed_rpc::Connector;
use typed_rpc::client::{AnyTransport, OutgoingRequest, Params, Transport, decode_result};
use typed_rpc::transport::stream::Framing;

use crate::args::{ConnectArgs, FramingArg};

/// A connector with `--header`, `--timeout` and `--framing` applied.
pub fn connector(args: &ConnectArgs) -> Connector {
    let connector = args
        .headers
        .iter()
        .fold(Connector::new(), |connector, (name, value)| {
            connector.header(name, value)
        });
    connector
        .timeout(args.timeout.0)
        .framing(match args.framing {
            FramingArg::Lines => Framing::Lines,
            FramingArg::ContentLength => Framing::ContentLength,
        })
}

/// Calls `method` and returns its result exactly as the server wrote it.
pub async fn request(
    client: &AnyTransport,
    method: &str,
    params: Option<&Params>,
) -> Result<Box<RawValue>, ClientError> {
    let reply = client
        .send_request(OutgoingRequest::new(method, params))
        .await?;
    decode_result(&reply)
}
