//! The HTTP app of an agent: its card at `/.well-known/agent-card.json`
//! (public, cacheable, conditional), its JSON-RPC endpoint at `/a2a` and
//! `/a2a/`, bearer authentication in front of the endpoint, and CORS for
//! both through the framework's [`Cors`].

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use time::{OffsetDateTime, PrimitiveDateTime};
use typed_rpc::BuildError;
use typed_rpc::transport::Server;
use typed_rpc::transport::http::Cors;

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

/// The request headers of the binding, which a page must be let to send.
const A2A_HEADERS: [&str; 2] = ["A2A-Version", "A2A-Extensions"];

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

/// The axum app serving `handler`, with `auth` when given: [`App`] with
/// its defaults.
pub fn app<E: AgentExecutor, S: TaskStore>(
    handler: RequestHandler<E, S>,
    auth: Option<BearerAuth>,
) -> Result<axum::Router, BuildError> {
    let app = App::new(handler);
    match auth {
        Some(auth) => app.auth(auth).build(),
        None => app.build(),
    }
}

/// The HTTP app of an agent, to serve with axum.
///
/// - The card is public at [`CARD_PATH`], with `Cache-Control: public,
///   max-age=300`, a strong `ETag` (a hash of its bytes, the same in every
///   replica serving one card) and `Last-Modified` (when the app was
///   built); a `GET` with a matching `If-None-Match` (or, without one, an
///   `If-Modified-Since` not before it) is answered `304 Not Modified`
///   without the card.
/// - The JSON-RPC endpoint ([`RequestHandler::router`]) is at
///   [`ENDPOINT_PATH`] and with a trailing `/`.
/// - With [`auth`](App::auth), a request to the endpoint without one of
///   its tokens is answered `401` with `WWW-Authenticate: Bearer` before
///   its body is read; the call layer of the same [`BearerAuth`] then
///   names the caller of each call, once.
/// - With [`cors`](App::cors), pages of the origins it allows may read
///   the card and call the endpoint (the binding's `A2A-Version` and
///   `A2A-Extensions` headers allowed); without, only pages of the
///   agent's own origin may.
pub struct App<E, S> {
    handler: RequestHandler<E, S>,
    auth: Option<BearerAuth>,
    cors: Option<Cors>,
}

impl<E: AgentExecutor, S: TaskStore> App<E, S> {
    /// The app of `handler`, without authentication or CORS.
    pub fn new(handler: RequestHandler<E, S>) -> Self {
        App {
            handler,
            auth: None,
            cors: None,
        }
    }

    /// Takes only the callers of `auth` at the endpoint.
    pub fn auth(mut self, auth: BearerAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Lets the pages `cors` allows read the card and call the endpoint.
    pub fn cors(mut self, cors: Cors) -> Self {
        self.cors = Some(cors);
        self
    }

    /// The axum router.
    pub fn build(self) -> Result<axum::Router, BuildError> {
        let card = CardFile::new(self.handler.card());
        let handler = match &self.auth {
            Some(auth) => self.handler.with_auth(auth.clone()),
            None => self.handler,
        };
        let cors = self.cors.map(|cors| {
            let cors = cors
                .allow_headers(A2A_HEADERS)
                .expect("the binding's header names are valid");
            Arc::new(cors)
        });
        let mut server = Server::new(handler.router()?);
        if let Some(cors) = &cors {
            server = server.cors(Cors::clone(cors));
        }
        let rpc = server.into_http_service();
        let mut endpoint = axum::Router::new()
            .route_service(ENDPOINT_PATH, rpc.clone())
            .route_service(&format!("{ENDPOINT_PATH}/"), rpc);
        if let Some(auth) = self.auth {
            let gate = Arc::new(Gate {
                auth,
                cors: cors.clone(),
            });
            endpoint = endpoint.layer(middleware::from_fn_with_state(gate, require_bearer));
        }
        let card = Arc::new(card);
        let card_route = axum::routing::get(move |headers: HeaderMap| {
            let (card, cors) = (card.clone(), cors.clone());
            async move { card.answer(&headers, cors.as_deref()) }
        });
        Ok(axum::Router::new()
            .route(CARD_PATH, card_route)
            .merge(endpoint))
    }
}

/// The card as served: its bytes, their entity tag, and when it was made.
struct CardFile {
    bytes: axum::body::Bytes,
    etag: HeaderValue,
    made: OffsetDateTime,
    last_modified: HeaderValue,
}

impl CardFile {
    fn new(card: &AgentCard) -> Self {
        let bytes = serde_json::to_vec(card).expect("a card serializes");
        let etag = HeaderValue::from_str(&etag_of(&bytes)).expect("a hex tag is a header value");
        // HTTP dates count whole seconds.
        let made = OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .expect("0 is a nanosecond");
        let last_modified = made
            .format(&http_date())
            .ok()
            .and_then(|date| HeaderValue::from_str(&date).ok())
            .expect("an HTTP date is a header value");
        CardFile {
            bytes: bytes.into(),
            etag,
            made,
            last_modified,
        }
    }

    /// Whether the client's copy is this card: `If-None-Match` names its
    /// tag, or (without `If-None-Match`, which goes first) `If-Modified-Since`
    /// is not before it was made.
    fn unchanged(&self, request: &HeaderMap) -> bool {
        let mut tags = request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(|tag| tag.trim().trim_start_matches("W/"))
            .peekable();
        if tags.peek().is_some() {
            return tags.any(|tag| tag == "*" || tag.as_bytes() == self.etag.as_bytes());
        }
        request
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|value| value.to_str().ok())
            .and_then(|date| PrimitiveDateTime::parse(date.trim(), &http_date()).ok())
            .is_some_and(|since| since.assume_utc() >= self.made)
    }

    /// The card, or `304` when the client's copy is unchanged.
    fn answer(&self, request: &HeaderMap, cors: Option<&Cors>) -> Response {
        let mut response = if self.unchanged(request) {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            let mut response = Response::new(Body::from(self.bytes.clone()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        };
        let headers = response.headers_mut();
        headers.insert(header::ETAG, self.etag.clone());
        headers.insert(header::LAST_MODIFIED, self.last_modified.clone());
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CARD_CACHE_CONTROL),
        );
        if let Some(cors) = cors {
            cors.write_response_headers(request, headers);
        }
        response
    }
}

/// The endpoint's bearer check, and the CORS rules its refusals follow.
struct Gate {
    auth: BearerAuth,
    cors: Option<Arc<Cors>>,
}

/// Lets through only requests whose `Authorization` names one of the
/// gate's callers, and CORS preflights (which carry no credentials; the
/// endpoint answers them).
async fn require_bearer(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if request.method() == Method::OPTIONS || gate.auth.identify(header).is_some() {
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
    if let Some(cors) = &gate.cors {
        cors.write_response_headers(request.headers(), refused.headers_mut());
    }
    refused
}

/// HTTP's date format (RFC 9110's IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
fn http_date() -> Vec<time::format_description::BorrowedFormatItem<'static>> {
    time::format_description::parse_borrowed::<2>(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT",
    )
    .expect("the IMF-fixdate description parses")
}

/// A strong entity tag for the card's bytes: their FNV-1a hash, stable
/// across processes, so replicas serving one card give one tag.
fn etag_of(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}
