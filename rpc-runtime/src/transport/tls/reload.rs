//! A server certificate that can be replaced while the server runs.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

use super::server_config::provider;
use super::{TlsConfigError, pem};
use crate::transport::sync::lock;

/// A certificate chain and key that can be replaced without restarting
/// the server (a renewed Let's Encrypt certificate, say): handshakes after
/// a [`reload_pem_files`](Self::reload_pem_files) present the new one,
/// connections already open keep theirs. Clones share the certificate.
///
/// ```no_run
/// use typed_rpc::transport::tls::{ReloadableCertificate, TlsConfig};
///
/// # fn demo() -> Result<(), typed_rpc::transport::tls::TlsConfigError> {
/// let certificate = ReloadableCertificate::from_pem_files("fullchain.pem", "key.pem")?;
/// let tls = TlsConfig::from_reloadable(&certificate);
/// // ... serve with `tls`; once the files are renewed:
/// certificate.reload_pem_files("fullchain.pem", "key.pem")?;
/// # let _ = tls; Ok(()) }
/// ```
#[derive(Clone)]
pub struct ReloadableCertificate {
    /// A mutex, not a read-write lock: each handshake holds it for the
    /// clone of an `Arc`, too briefly for readers to queue.
    current: Arc<Mutex<Arc<CertifiedKey>>>,
}

impl ReloadableCertificate {
    /// The certificate chain and key in these PEM files (see
    /// [`TlsConfig::from_pem_files`](super::TlsConfig::from_pem_files)).
    pub fn from_pem_files(
        cert_chain: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<Self, TlsConfigError> {
        ReloadableCertificate::from_pem(&pem::read(cert_chain.as_ref())?, &pem::read(key.as_ref())?)
    }

    /// The certificate chain and key, as PEM text.
    pub fn from_pem(cert_chain: &[u8], key: &[u8]) -> Result<Self, TlsConfigError> {
        Ok(ReloadableCertificate {
            current: Arc::new(Mutex::new(certified_key(cert_chain, key)?)),
        })
    }

    /// Replaces the certificate with the one in these PEM files. On an
    /// error the old certificate stays.
    pub fn reload_pem_files(
        &self,
        cert_chain: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<(), TlsConfigError> {
        self.reload_pem(&pem::read(cert_chain.as_ref())?, &pem::read(key.as_ref())?)
    }

    /// Replaces the certificate with this PEM text. On an error the old
    /// certificate stays.
    pub fn reload_pem(&self, cert_chain: &[u8], key: &[u8]) -> Result<(), TlsConfigError> {
        let replacement = certified_key(cert_chain, key)?;
        *lock(&self.current) = replacement;
        Ok(())
    }
}

/// The chain and a signing key made of the private key, checked to match.
fn certified_key(cert_chain: &[u8], key: &[u8]) -> Result<Arc<CertifiedKey>, TlsConfigError> {
    let chain = pem::certificates(cert_chain, "PEM certificate chain")?;
    let key = pem::private_key(key)?;
    let certified = CertifiedKey::from_der(chain, key, &provider())
        .map_err(|err| TlsConfigError::with_source("the key does not fit", err))?;
    Ok(Arc::new(certified))
}

impl ResolvesServerCert for ReloadableCertificate {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(lock(&self.current).clone())
    }
}

impl fmt::Debug for ReloadableCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReloadableCertificate")
    }
}
