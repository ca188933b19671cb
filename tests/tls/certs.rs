//! Certificates made at test time: a certificate authority, and server
//! certificates it signs for `localhost` and `127.0.0.1`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use typed_rpc::transport::tls::{ClientTlsConfig, TlsConfig};

use typed_rpc_test_support::paths::target_dir;

/// A certificate authority of our own.
pub struct Authority {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

/// A server certificate (the leaf only) and its private key, as PEM.
pub struct ServerCertificate {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Authority {
    pub fn new(name: &str) -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let certificate = params.self_signed(&key).unwrap();
        Authority {
            issuer: Issuer::new(params, key),
            pem: certificate.pem(),
        }
    }

    /// A certificate for the loopback server, signed by this authority.
    pub fn issue(&self) -> ServerCertificate {
        let key = KeyPair::generate().unwrap();
        let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
        let params = CertificateParams::new(names).unwrap();
        let certificate = params.signed_by(&key, &self.issuer).unwrap();
        ServerCertificate {
            cert_pem: certificate.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// The server's TLS settings, with a fresh certificate of this authority.
    pub fn server_tls(&self) -> TlsConfig {
        let issued = self.issue();
        TlsConfig::from_pem(issued.cert_pem.as_bytes(), issued.key_pem.as_bytes()).unwrap()
    }

    /// A client's TLS settings that trust this authority only.
    pub fn client_tls(&self) -> ClientTlsConfig {
        ClientTlsConfig::new()
            .add_root_pem(self.pem.as_bytes())
            .unwrap()
    }

    /// The authority's certificate in a file of its own, for foreign
    /// clients (`curl --cacert`, httpx's `verify=`).
    pub fn pem_file(&self) -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = target_dir().join("tls-certs");
        std::fs::create_dir_all(&dir).unwrap();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("ca-{}-{n}.pem", std::process::id()));
        std::fs::write(&path, &self.pem).unwrap();
        path
    }
}
