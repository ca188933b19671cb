//! The client side: [`WsConnector`] connects (`connector.rs`), and the
//! connection runs over tokio-tungstenite (`session.rs`).

mod connector;
mod session;

pub use connector::WsConnector;
