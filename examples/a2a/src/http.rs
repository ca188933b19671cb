//! The HTTP app of an agent: its card at `/.well-known/agent-card.json`
//! (public), its JSON-RPC endpoint at `/a2a` and `/a2a/`, bearer
//! authentication in front of the endpoint, batches refused.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use typed_rpc::transport::Server;
use typed_rpc::{BuildError, Router};

use crate::api::A2a;
use crate::server::{AgentExecutor, BearerAuth, RequestHandler, TaskStore};
use crate::types::{AgentCard, HttpAuthSecurityScheme, SecurityRequirement, SecurityScheme};

/// Where the card is served.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// Where the JSON-RPC endpoint is served (also with a trailing `/`).
pub const ENDPOINT_PATH: &str = "/a2a";

/// How long a client may keep the card: it changes only when the agent restarts.
const CARD_CACHE_CONTROL: &str = "public, max-age=300";

/// The name of the bearer scheme in the card's `securitySchemes`.
pub const BEARER_SCHEME: &str = "bearer";

/// `card` declaring bearer authentication as required.
pub fn with_bearer(mut card: AgentCard) -> AgentCard {
    card.security_schemes.insert(
        BEARER_SCHEME.into(),
        SecurityScheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
            scheme: "bearer".into(),
            bearer_format: None,
            description: Some("A token given out by the agent's operator.".into()),
        }),
    );
    let mut requirement = SecurityRequirement::default();
    requirement
        .schemes
        .insert(BEARER_SCHEME.into(), Default::default());
    card.security_requirements = vec![requirement];
    card
}

/// The axum app serving `handler`. With `auth`, a JSON-RPC request
/// without one of its tokens is answered `401` with `WWW-Authenticate:
/// Bearer` before it is read; the card stays public either way. A batch is
/// refused with one `-32600`, as the reference SDK does: A2A has no batches.
pub fn app<E: AgentExecutor, S: TaskStore>(
    handler: RequestHandler<E, S>,
    auth: Option<BearerAuth>,
) -> Result<axum::Router, BuildError> {
    let card = serde_json::to_vec(handler.card()).expect("a card serializes");
    let handler = match &auth {
        Some(auth) => handler.with_auth(auth.clone()),
        None => handler,
    };
    let router = Router::builder()
        .service(handler.into_service())
        .max_batch_len(0)
        .build()?;
    let rpc = Server::new(router).into_http_service();
    let mut endpoint = axum::Router::new()
        .route_service(ENDPOINT_PATH, rpc.clone())
        .route_service(&format!("{ENDPOINT_PATH}/"), rpc);
    if let Some(auth) = auth {
        endpoint = endpoint.layer(middleware::from_fn_with_state(
            Arc::new(auth),
            require_bearer,
        ));
    }
    let etag = etag_of(&card);
    let card = axum::routing::get(move || {
        let (card, etag) = (card.clone(), etag.clone());
        async move {
            let headers = [
                (header::CONTENT_TYPE, "application/json".to_owned()),
                (header::CACHE_CONTROL, CARD_CACHE_CONTROL.to_owned()),
                (header::ETAG, etag),
            ];
            (headers, card)
        }
    });
    Ok(axum::Router::new().route(CARD_PATH, card).merge(endpoint))
}

/// Lets through only requests whose `Authorization` names one of `auth`'s callers.
async fn require_bearer(
    State(auth): State<Arc<BearerAuth>>,
    request: Request,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if auth.identify(header).is_some() {
        return next.run(request).await;
    }
    let mut refused = (
        StatusCode::UNAUTHORIZED,
        Body::from("a bearer token is required\n"),
    )
        .into_response();
    refused
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    refused
}

/// A strong entity tag for the card's bytes: their FNV-1a hash, stable
/// across processes, so replicas serving one card give one tag.
fn etag_of(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}
