//! `#[rpc]` services gathered for one router (a server's tools, or its
//! prompts), with the descriptions of their methods.

use typed_rpc::{MethodInfo, Router, RouterBuilder, RpcService, ServiceInfo};

use super::tools::ServerBuildError;

/// Adds one service to a router being built.
type Adder = Box<dyn FnOnce(RouterBuilder) -> RouterBuilder + Send>;

/// Services gathered by a server's builder.
#[derive(Default)]
pub(crate) struct Services {
    adders: Vec<Adder>,
    infos: Vec<&'static ServiceInfo>,
}

impl Services {
    pub(crate) fn add(&mut self, service: impl RpcService) {
        self.infos.push(service.info());
        self.adders
            .push(Box::new(move |router| router.service(service)));
    }

    /// The methods that can be called and answered (not notifications,
    /// not streams), in the order their traits declare them.
    pub(crate) fn methods(&self) -> impl Iterator<Item = &'static MethodInfo> + '_ {
        self.infos
            .iter()
            .flat_map(|info| info.methods())
            .filter(|method| !method.is_notification() && method.stream_info().is_none())
    }

    /// The router of every service; two that name one method are an error.
    pub(crate) fn router(self) -> Result<Router, ServerBuildError> {
        self.adders
            .into_iter()
            .fold(Router::builder(), |router, add| add(router))
            .build()
            .map_err(ServerBuildError::Duplicate)
    }
}
