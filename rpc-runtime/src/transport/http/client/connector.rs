//! How [`HttpClient`](super::HttpClient) opens its connections: TCP for
//! `http://`, and (the `tls` feature) TLS over TCP for `https://`, with ALPN
//! `h2` and `http/1.1`, so that the client speaks HTTP/2 to a server that
//! chooses it.

use hyper_util::client::legacy::connect::HttpConnector;

use super::HttpConfigError;

/// The connector of the client's pool.
#[cfg(not(feature = "tls"))]
pub(super) type Connector = HttpConnector;

/// The connector of the client's pool.
#[cfg(feature = "tls")]
pub(super) type Connector = hyper_rustls::HttpsConnector<HttpConnector>;

/// The connector for a client of `uri`'s scheme.
#[cfg(not(feature = "tls"))]
pub(super) fn connector(_uri: &http::Uri) -> Result<Connector, HttpConfigError> {
    Ok(tcp())
}

/// The connector for a client of `uri`'s scheme, trusting `tls` (by
/// default, the system's roots) over `https://`.
#[cfg(feature = "tls")]
pub(super) fn connector(
    uri: &http::Uri,
    tls: Option<crate::transport::tls::ClientTlsConfig>,
) -> Result<Connector, HttpConfigError> {
    use crate::transport::tls::ClientTlsConfig;

    let tls = match tls {
        Some(tls) => tls,
        // The system's store is read only when a server may need it.
        None if uri.scheme_str() == Some("https") => ClientTlsConfig::system_roots()
            .map_err(|err| HttpConfigError::new(format!("for `{uri}`: {err}")))?,
        None => ClientTlsConfig::new(),
    };
    let mut tcp = tcp();
    // The TLS connector sees `https://` URLs through to the TCP one.
    tcp.enforce_http(false);
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls.to_rustls())
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(tcp))
}

fn tcp() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector
}
