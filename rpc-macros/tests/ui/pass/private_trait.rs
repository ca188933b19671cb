//! A private trait, documented, in a private module: the generated service
//! and client share its visibility and need no `pub` item.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

mod inner {
    use super::*;

    /// A private API.
    ///
    /// With a second paragraph.
    #[rpc]
    trait Secret {
        /// The secret.
        ///
        /// Shared with nobody.
        #[method(name = "secret")]
        async fn secret(&self) -> RpcResult<u32>;

        /// Forgets the secret.
        #[notification(name = "forget")]
        async fn forget(&self);
    }

    struct Server;

    impl Secret for Server {
        async fn secret(&self) -> RpcResult<u32> {
            Ok(7)
        }

        async fn forget(&self) {}
    }

    pub async fn run() {
        assert_eq!(
            SecretService::INFO.documentation(),
            "A private API.\n\nWith a second paragraph."
        );
        let method = &SecretService::INFO.methods()[0];
        assert_eq!(method.documentation(), "The secret.\n\nShared with nobody.");

        let client = SecretClient::new(InProcess::new(Router::new(Server.into_service())));
        assert_eq!(client.secret().await.unwrap(), 7);
        client.forget().await.unwrap();
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    inner::run().await;
}
