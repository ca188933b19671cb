//! The server's side of TLS: its certificate and what it offers by ALPN.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::{CryptoProvider, ring};

use super::reload::ReloadableCertificate;
use super::{H2, HTTP_1_1, TlsConfigError, pem};

/// What [`Server::serve_https`](crate::transport::Server::serve_https)
/// answers TLS handshakes with: a certificate chain and its private key,
/// TLS 1.2 and 1.3, ALPN `h2` then `http/1.1` (a client that names neither
/// speaks HTTP/1.1).
///
/// Cheap to clone (one `Arc`).
///
/// ```no_run
/// use typed_rpc::transport::tls::TlsConfig;
///
/// # fn demo() -> Result<(), typed_rpc::transport::tls::TlsConfigError> {
/// let tls = TlsConfig::from_pem_files("/etc/ssl/rpc/fullchain.pem", "/etc/ssl/rpc/key.pem")?;
/// # let _ = tls; Ok(()) }
/// ```
#[derive(Clone)]
pub struct TlsConfig {
    config: Arc<ServerConfig>,
}

impl TlsConfig {
    /// The certificate chain (PEM, the leaf first, then its intermediates)
    /// and the private key (PEM: PKCS#8, PKCS#1 or SEC1) in these files.
    pub fn from_pem_files(
        cert_chain: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<Self, TlsConfigError> {
        TlsConfig::from_pem(&pem::read(cert_chain.as_ref())?, &pem::read(key.as_ref())?)
    }

    /// The certificate chain and the private key, as PEM text (see
    /// [`from_pem_files`](Self::from_pem_files)).
    pub fn from_pem(cert_chain: &[u8], key: &[u8]) -> Result<Self, TlsConfigError> {
        let chain = pem::certificates(cert_chain, "PEM certificate chain")?;
        let key = pem::private_key(key)?;
        let config = builder()?
            .with_single_cert(chain, key)
            .map_err(|err| TlsConfigError::with_source("the key does not fit", err))?;
        Ok(TlsConfig::with_alpn(config))
    }

    /// The certificate of `certificate`, which may be replaced while the
    /// server runs (see [`ReloadableCertificate`]).
    pub fn from_reloadable(certificate: &ReloadableCertificate) -> Self {
        // The provider's protocol versions are rustls' safe defaults: this
        // cannot fail with the provider rustls ships.
        let config = builder()
            .expect("the ring provider supports rustls' default protocol versions")
            .with_cert_resolver(Arc::new(certificate.clone()));
        TlsConfig::with_alpn(config)
    }

    /// A rustls configuration of your own (client certificates, other
    /// cipher suites, a certificate resolver). Its ALPN protocols are kept
    /// when it names some; when it names none, `h2` and `http/1.1` are
    /// offered, as the other constructors do.
    pub fn from_rustls(config: Arc<ServerConfig>) -> Self {
        if config.alpn_protocols.is_empty() {
            TlsConfig::with_alpn(ServerConfig::clone(&config))
        } else {
            TlsConfig { config }
        }
    }

    /// The rustls configuration handshakes are answered with.
    pub fn rustls(&self) -> &Arc<ServerConfig> {
        &self.config
    }

    fn with_alpn(mut config: ServerConfig) -> Self {
        config.alpn_protocols = vec![H2.to_vec(), HTTP_1_1.to_vec()];
        TlsConfig {
            config: Arc::new(config),
        }
    }
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The configuration holds the private key: its ALPN only.
        let alpn: Vec<_> = self
            .config
            .alpn_protocols
            .iter()
            .map(|name| String::from_utf8_lossy(name))
            .collect();
        f.debug_struct("TlsConfig").field("alpn", &alpn).finish()
    }
}

/// The `ring` provider, named rather than taken from the process's
/// default: that default is ambiguous (rustls panics) when another crate
/// in the build turns on a second provider.
pub(super) fn provider() -> Arc<CryptoProvider> {
    Arc::new(ring::default_provider())
}

fn builder() -> Result<
    tokio_rustls::rustls::ConfigBuilder<
        ServerConfig,
        tokio_rustls::rustls::server::WantsServerCert,
    >,
    TlsConfigError,
> {
    Ok(ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|err| TlsConfigError::with_source("no protocol version", err))?
        .with_no_client_auth())
}
