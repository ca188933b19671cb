//! Certificates and keys from PEM text or files (`rustls-pki-types`).

use std::path::Path;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use super::TlsConfigError;

/// Every certificate of a PEM text (a chain: the leaf first), at least one.
pub(super) fn certificates(
    pem: &[u8],
    what: &str,
) -> Result<Vec<CertificateDer<'static>>, TlsConfigError> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| TlsConfigError::with_source(format!("unreadable {what}"), err))?;
    if certificates.is_empty() {
        return Err(TlsConfigError::new(format!("no certificate in the {what}")));
    }
    Ok(certificates)
}

/// The first private key of a PEM text (PKCS#8, PKCS#1 or SEC1).
pub(super) fn private_key(pem: &[u8]) -> Result<PrivateKeyDer<'static>, TlsConfigError> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|err| match err {
        rustls_pki_types::pem::Error::NoItemsFound => {
            TlsConfigError::new("no private key in the PEM key")
        }
        err => TlsConfigError::with_source("unreadable PEM key", err),
    })
}

/// The whole of the file at `path`.
pub(super) fn read(path: &Path) -> Result<Vec<u8>, TlsConfigError> {
    std::fs::read(path).map_err(|err| {
        TlsConfigError::with_source(format!("cannot read `{}`", path.display()), err)
    })
}
