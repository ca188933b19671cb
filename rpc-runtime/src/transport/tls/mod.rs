//! TLS with rustls (cargo feature `tls`): `https://` and `wss://` for
//! [`Server::serve_https`](crate::transport::Server::serve_https),
//! [`HttpClient`](crate::transport::HttpClient) and
//! [`WsConnector`](crate::transport::WsConnector).
//!
//! The server's side is a [`TlsConfig`]: a certificate chain and its key
//! from PEM, or a rustls `ServerConfig` of your own; it offers `h2` and
//! `http/1.1` by ALPN. A [`ReloadableCertificate`] swaps the certificate
//! of a running server. The clients' side is a [`ClientTlsConfig`]: the
//! system's trust store, roots of your own from PEM, or a rustls
//! `ClientConfig`. rustls runs on its `ring` provider.
//!
//! | file | its job |
//! |---|---|
//! | `error.rs` | [`TlsConfigError`] |
//! | `pem.rs` | reading certificates and keys from PEM |
//! | `server_config.rs` | [`TlsConfig`], the server's side |
//! | `reload.rs` | [`ReloadableCertificate`] |
//! | `client_config.rs` | [`ClientTlsConfig`], the clients' side |
//! | `handshake.rs` | the server's handshake, under the header timeout |

mod client_config;
mod error;
mod handshake;
mod pem;
mod reload;
mod server_config;

pub use client_config::ClientTlsConfig;
pub use error::TlsConfigError;
pub(crate) use handshake::accept;
pub use reload::ReloadableCertificate;
pub use server_config::TlsConfig;
/// The rustls crate this module is built on, for a `ServerConfig` or a
/// `ClientConfig` of your own ([`TlsConfig::from_rustls`],
/// [`ClientTlsConfig::from_rustls`]).
pub use tokio_rustls::rustls;

/// The ALPN names of HTTP/2 and HTTP/1.1.
const H2: &[u8] = b"h2";
const HTTP_1_1: &[u8] = b"http/1.1";
