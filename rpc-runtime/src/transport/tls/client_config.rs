//! The clients' side of TLS: which certificates they trust.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use tokio_rustls::rustls::{ClientConfig, RootCertStore};

use super::server_config::provider;
use super::{TlsConfigError, pem};

/// Which servers [`HttpClient`](crate::transport::HttpClient) and
/// [`WsConnector`](crate::transport::WsConnector) trust over `https://`
/// and `wss://`: the system's trust store, certificates of your own
/// (a private CA, a self-signed server), or a rustls `ClientConfig`.
///
/// Without one, both clients trust the system's store
/// ([`system_roots`](Self::system_roots)). Cheap to clone.
///
/// ```no_run
/// use typed_rpc::transport::http::HttpClient;
/// use typed_rpc::transport::tls::ClientTlsConfig;
///
/// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let tls = ClientTlsConfig::new().add_root_pem_file("ca.pem")?;
/// let client = HttpClient::builder("https://rpc.internal:8443/").tls(tls).build()?;
/// # let _ = client; Ok(()) }
/// ```
#[derive(Clone)]
pub struct ClientTlsConfig {
    trust: Trust,
}

#[derive(Clone)]
enum Trust {
    Roots(Arc<RootCertStore>),
    Rustls(Arc<ClientConfig>),
}

impl ClientTlsConfig {
    /// Trusts no certificate yet: add roots with
    /// [`add_root_pem`](Self::add_root_pem) or
    /// [`add_root_pem_file`](Self::add_root_pem_file).
    pub fn new() -> Self {
        ClientTlsConfig {
            trust: Trust::Roots(Arc::new(RootCertStore::empty())),
        }
    }

    /// Trusts the roots of the system's trust store (on Linux, the
    /// OpenSSL bundle: `/etc/ssl/certs` and `SSL_CERT_FILE`), read once per
    /// process. Fails when the store holds none.
    ///
    /// The system's store rather than a copy of Mozilla's built into the
    /// binary: it follows the system's updates, and the roots an
    /// administrator adds (a company's CA).
    pub fn system_roots() -> Result<Self, TlsConfigError> {
        static ROOTS: OnceLock<Result<Arc<RootCertStore>, String>> = OnceLock::new();
        let roots = ROOTS.get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut roots = RootCertStore::empty();
            let (_added, _ignored) = roots.add_parsable_certificates(found.certs);
            if roots.is_empty() {
                let errors: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
                return Err(format!(
                    "no root certificate in the system's trust store ({})",
                    errors.join("; ")
                ));
            }
            Ok(Arc::new(roots))
        });
        match roots {
            Ok(roots) => Ok(ClientTlsConfig {
                trust: Trust::Roots(roots.clone()),
            }),
            Err(message) => Err(TlsConfigError::new(message.clone())),
        }
    }

    /// Also trusts the certificates of this PEM text (one or more): a CA's,
    /// or a self-signed server's own.
    pub fn add_root_pem(mut self, pem: &[u8]) -> Result<Self, TlsConfigError> {
        let certificates = pem::certificates(pem, "PEM root certificates")?;
        let roots = match &mut self.trust {
            Trust::Roots(roots) => Arc::make_mut(roots),
            Trust::Rustls(_) => {
                return Err(TlsConfigError::new(
                    "roots cannot be added to a rustls ClientConfig: add them to its verifier",
                ));
            }
        };
        for certificate in certificates {
            roots.add(certificate).map_err(|err| {
                TlsConfigError::with_source("a root certificate rustls cannot use", err)
            })?;
        }
        Ok(self)
    }

    /// Also trusts the certificates of this PEM file (see
    /// [`add_root_pem`](Self::add_root_pem)).
    pub fn add_root_pem_file(self, path: impl AsRef<Path>) -> Result<Self, TlsConfigError> {
        let pem = pem::read(path.as_ref())?;
        self.add_root_pem(&pem)
    }

    /// A rustls configuration of your own (client certificates, another
    /// verifier). Its ALPN protocols are replaced by what each client
    /// speaks: `h2` and `http/1.1` for [`HttpClient`](crate::transport::HttpClient),
    /// `http/1.1` for [`WsConnector`](crate::transport::WsConnector).
    pub fn from_rustls(config: Arc<ClientConfig>) -> Self {
        ClientTlsConfig {
            trust: Trust::Rustls(config),
        }
    }

    /// The rustls configuration of a client, without ALPN protocols.
    pub(crate) fn rustls(&self) -> ClientConfig {
        let mut config = match &self.trust {
            Trust::Roots(roots) => ClientConfig::builder_with_provider(provider())
                .with_safe_default_protocol_versions()
                .expect("the ring provider supports rustls' default protocol versions")
                .with_root_certificates(roots.clone())
                .with_no_client_auth(),
            Trust::Rustls(config) => ClientConfig::clone(config),
        };
        config.alpn_protocols.clear();
        config
    }
}

impl Default for ClientTlsConfig {
    fn default() -> Self {
        ClientTlsConfig::new()
    }
}

impl fmt::Debug for ClientTlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.trust {
            Trust::Roots(roots) => f
                .debug_struct("ClientTlsConfig")
                .field("roots", &roots.len())
                .finish(),
            Trust::Rustls(_) => f.write_str("ClientTlsConfig(rustls ClientConfig)"),
        }
    }
}
