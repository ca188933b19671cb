//! TLS and HTTP/2: `Server::serve_https`, h2c on `serve_http`, and our
//! clients over `https://` and `wss://`, with certificates made here at
//! test time (`rcgen`); against clients nobody here wrote too: curl with
//! `--cacert` and Python's httpx with `verify=`.
//!
//! httpx and its HTTP/2 extra are pinned in `tests/tls/requirements.txt`
//! and installed by the test (`pip install --target <target
//! dir>/tls-python`) unless already there; Python 3 with pip must be on
//! `PATH`. Debian's curl (built with HTTP/2) is installed when missing, as
//! root.

#[path = "../support/mod.rs"]
mod support;

mod certs;
mod foreign;
mod limits;
mod ours;

use std::time::Duration;

use typed_rpc::transport::tls::TlsConfig;
use typed_rpc::transport::{Limits, ServerHandle};

use support::calculator::{Calc, server_of};

/// How long a test waits for any reply.
const PATIENCE: Duration = Duration::from_secs(10);

/// The calculator of the transport tests over HTTPS, with `tls`.
async fn serve_https(limits: Limits, tls: TlsConfig) -> ServerHandle {
    server_of(Calc::default(), limits)
        .serve_https("127.0.0.1:0", tls)
        .await
        .unwrap()
}

/// The `https://` URL of the server behind `handle`.
fn https_url(handle: &ServerHandle) -> String {
    format!("https://{}/", handle.local_addr().unwrap())
}
