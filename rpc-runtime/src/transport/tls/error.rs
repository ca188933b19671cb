//! What goes wrong when TLS settings are made.

use std::fmt;

/// A TLS setting that could not be made: a PEM file that cannot be read,
/// holds no certificate or no key, or a key that does not fit rustls.
///
/// ```
/// use typed_rpc::transport::tls::TlsConfig;
///
/// let err = TlsConfig::from_pem(b"not PEM", b"not PEM either").unwrap_err();
/// assert_eq!(err.to_string(), "no certificate in the PEM certificate chain");
/// ```
#[derive(Debug)]
pub struct TlsConfigError {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl TlsConfigError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        TlsConfigError {
            message: message.into(),
            source: None,
        }
    }

    pub(super) fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        TlsConfigError {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

impl fmt::Display for TlsConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TlsConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}
