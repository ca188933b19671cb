//! `https://` webhooks: delivered over TLS to a webhook whose certificate
//! the push settings trust, never to one they do not.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use typed_rpc::transport::tls::{ClientTlsConfig, TlsConfig};
use typed_rpc_a2a::server::{PushSettings, TOKEN_HEADER};
use typed_rpc_a2a::types::*;

use crate::push::until_terminal;
use crate::push::{Behaviour, Received, chunks, config, hook_app, pushed, pushing_agent, shape};
use crate::support::*;

/// A certificate authority of the test's own, as PEM, and the TLS
/// settings of a loopback server with a certificate it signed.
fn authority() -> (String, TlsConfig) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_pem = ca.self_signed(&ca_key).unwrap().pem();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    let server = TlsConfig::from_pem(cert.pem().as_bytes(), key.serialize_pem().as_bytes());
    (ca_pem, server.unwrap())
}

/// A webhook on loopback over TLS: its `https://` URL and what it accepted.
async fn tls_webhook(tls: TlsConfig) -> (String, mpsc::UnboundedReceiver<Received>) {
    let (app, accepted) = hook_app(Behaviour::Accept);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::clone(tls.rustls()));
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that does not trust us ends the handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = TowerToHyperService::new(app);
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    (format!("https://127.0.0.1:{}/hook", addr.port()), accepted)
}

#[tokio::test]
async fn an_https_webhook_gets_every_update_when_its_certificate_is_trusted() {
    let (ca_pem, server_tls) = authority();
    let (url, mut received) = tls_webhook(server_tls).await;
    let roots = ClientTlsConfig::new()
        .add_root_pem(ca_pem.as_bytes())
        .unwrap();
    let addr = pushing_agent(PushSettings::default().tls(roots)).await;
    let agent = client(addr).await;
    let request = pushed("upper pushed over tls", config(&url, "tls-tok"), false);
    let done = task(agent.send_message(request).await.unwrap());
    assert_eq!(done.status.state, TaskState::Completed);
    let updates = until_terminal(&mut received).await;
    assert_eq!(
        shape(&updates),
        ["task", "Working", "chunk", "chunk", "Completed"]
    );
    assert_eq!(chunks(&updates), "PUSHED OVER TLS");
    assert!(
        updates
            .iter()
            .all(|post| post.headers[TOKEN_HEADER] == "tls-tok")
    );
}

#[tokio::test]
async fn an_https_webhook_the_roots_do_not_vouch_for_gets_nothing() {
    let (_, server_tls) = authority();
    let (url, mut received) = tls_webhook(server_tls).await;
    // The system's roots: they know nothing of the test's authority.
    let settings = PushSettings::default()
        .attempts(2)
        .backoff(Duration::from_millis(10));
    let addr = pushing_agent(settings).await;
    let agent = client(addr).await;
    let sent = agent
        .send_message(pushed("upper unseen", config(&url, "t"), false))
        .await;
    match sent {
        // Taken, its task done, its deliveries refused by the handshake.
        Ok(response) => assert_eq!(task(response).status.state, TaskState::Completed),
        // A machine without a system trust store refuses https webhooks.
        Err(typed_rpc::CallError::App(typed_rpc_a2a::A2aError::InvalidParams(_))) => {}
        Err(other) => panic!("{other:?}"),
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(received.try_recv().is_err(), "nothing reached the webhook");
}
