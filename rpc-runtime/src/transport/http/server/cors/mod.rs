//! Browser clients: which web pages may call the server, over HTTP (CORS)
//! and WebSocket (the handshake's `Origin`).
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`Cors`], what the user configures |
//! | `origin.rs` | origins: the configured ones checked, same-origin told |
//! | `error.rs` | [`CorsError`] |
//! | `admission.rs` | a request's `Origin` admitted or refused, preflights answered, grants written |

mod admission;
mod error;
mod origin;

#[cfg(feature = "ws")]
pub(crate) use admission::admits_handshake;
pub(crate) use admission::{Admission, Grant};
pub use error::CorsError;

use std::time::Duration;

use http::{HeaderName, HeaderValue, header};

/// Which web pages, besides the server's own origin, may call it from a
/// browser: the CORS answers of the HTTP endpoint, and the `Origin` check
/// of WebSocket handshakes. Given to the server with
/// [`Server::cors`](crate::transport::Server::cors); off by default.
///
/// A browser lets a page read a response from another origin only when the
/// server says so, and asks first (a *preflight* `OPTIONS`) before a `POST`
/// with `Content-Type: application/json`. With a `Cors`:
///
/// - a preflight from an allowed origin, for `POST` and allowed request
///   headers, is answered `204` with `Access-Control-Allow-Origin`,
///   `-Allow-Methods: POST`, `-Allow-Headers`, and `-Max-Age` and
///   `-Allow-Credentials` when set; any other preflight gets `403`. Either
///   way before any body is read;
/// - every response to an allowed origin, refusals and event streams
///   included, carries `Access-Control-Allow-Origin` (and
///   `-Expose-Headers`, `-Allow-Credentials` when set), so the page can
///   read the status and the error;
/// - a request whose `Origin` is neither allowed nor the server's own is
///   refused `403` before its body is read: the call never runs, even when
///   the browser sent it without a preflight;
/// - every response carries `Vary: Origin`, for caches;
/// - a WebSocket handshake from an allowed origin is upgraded.
///
/// Requests without `Origin` (curl, our own clients, servers) are served as
/// before: only browsers send it, and a client that is not a browser can
/// write any `Origin` it likes, so it is no authentication.
///
/// Without a `Cors`, the HTTP endpoint writes no CORS header (browsers then
/// let only the server's own origin read its answers, and refuse
/// preflights, which get `405`), and a WebSocket handshake that carries an
/// `Origin` other than the server's own is refused `403`: browsers do not
/// ask before opening a WebSocket, so without this check any site could
/// talk to a server the browser can reach (one on `localhost`, say). The
/// server's own origin is the host and port of the request's `Host`
/// header: behind a proxy that rewrites `Host`, list the public origin.
///
/// ```
/// use std::time::Duration;
/// use typed_rpc::transport::http::Cors;
///
/// let cors = Cors::allow_origins(["https://app.example.com", "http://localhost:5173"])?
///     .allow_headers(["A2A-Version"])?
///     .expose_headers(["Retry-After"])?
///     .max_age(Duration::from_secs(600));
/// let err = Cors::allow_origins(["https://app.example.com/"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "`https://app.example.com/` is not an origin: an origin has no path, query or fragment \
///      (no trailing `/` either)"
/// );
/// # let _ = cors;
/// # Ok::<(), typed_rpc::transport::http::CorsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Cors {
    origins: Origins,
    /// The request headers a page may send, besides the CORS-safelisted ones.
    allow_headers: Vec<HeaderName>,
    /// `Access-Control-Expose-Headers`, written once here rather than
    /// joined again for every response.
    expose_headers: Option<HeaderValue>,
    max_age: Option<Duration>,
    credentials: bool,
}

/// The origins a [`Cors`] allows.
#[derive(Clone, Debug)]
enum Origins {
    Any,
    /// As browsers write them (see `origin::normalize`).
    Listed(Vec<HeaderValue>),
}

impl Cors {
    /// Allows the pages of `origins` (each `scheme://host[:port]`, as in
    /// `https://app.example.com`, without a path or a trailing `/`), with
    /// the default request headers `Content-Type`, `Authorization` and
    /// `Accept`. Scheme and host are compared without regard to case, and
    /// a default port (`:443` for `https`) may be written or left out.
    pub fn allow_origins<I>(origins: I) -> Result<Self, CorsError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let origins = origins
            .into_iter()
            .map(|origin| origin::normalize(origin.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(Cors::with(Origins::Listed(origins)))
    }

    /// Allows the pages of every origin: `Access-Control-Allow-Origin: *`,
    /// and WebSocket handshakes from anywhere. Fit for a public API that
    /// holds no user's credentials; never for a server whose network
    /// position is its protection (one on `localhost` or an intranet).
    pub fn allow_any_origin() -> Self {
        Cors::with(Origins::Any)
    }

    /// Allows no other origin than the server's own, and refuses with
    /// `403` what pages of other origins send, even the requests a browser
    /// sends without a preflight and without letting the page read the
    /// answer (a `no-cors` `fetch` of a body without `Content-Type`, which
    /// the server takes for JSON). Without any `Cors` those are served,
    /// unread: the call still runs.
    pub fn same_origin() -> Self {
        Cors::with(Origins::Listed(Vec::new()))
    }

    fn with(origins: Origins) -> Self {
        Cors {
            origins,
            allow_headers: vec![header::CONTENT_TYPE, header::AUTHORIZATION, header::ACCEPT],
            expose_headers: None,
            max_age: None,
            credentials: false,
        }
    }

    /// Adds request headers a page may send (`A2A-Version`, say; in any
    /// case): a preflight that asks for any header not allowed gets `403`.
    pub fn allow_headers<I>(mut self, headers: I) -> Result<Self, CorsError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        for name in header_names(headers)? {
            if !self.allow_headers.contains(&name) {
                self.allow_headers.push(name);
            }
        }
        Ok(self)
    }

    /// Response headers a page may read besides the CORS-safelisted ones
    /// (`Content-Type`, `Content-Length`, ...): none by default.
    pub fn expose_headers<I>(mut self, headers: I) -> Result<Self, CorsError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut names: Vec<String> = self
            .expose_headers
            .iter()
            .flat_map(|value| value.to_str().ok())
            .map(str::to_owned)
            .collect();
        names.extend(
            header_names(headers)?
                .iter()
                .map(|name| name.as_str().to_owned()),
        );
        // Names joined by `, ` are a valid value: each name is.
        self.expose_headers = HeaderValue::from_str(&names.join(", ")).ok();
        Ok(self)
    }

    /// How long a browser may keep a preflight's answer and skip the next
    /// one (`Access-Control-Max-Age`, in whole seconds). Unset, browsers
    /// keep it 5 s; Chromium keeps it at most 2 hours whatever is asked.
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.max_age = Some(max_age);
        self
    }

    /// Lets pages send cookies and HTTP authentication with their calls
    /// (`credentials: "include"`), and read the answers
    /// (`Access-Control-Allow-Credentials: true`). Only for listed
    /// origins: with [`allow_any_origin`](Cors::allow_any_origin) it has no
    /// effect, since browsers refuse credentials with `*`, and echoing
    /// every page's origin instead would let any site act as the user.
    pub fn allow_credentials(mut self) -> Self {
        self.credentials = true;
        self
    }

    /// Whether `origin` is one of the allowed ones, and how to grant it.
    fn grant(&self, origin: &HeaderValue) -> Option<Grant> {
        match &self.origins {
            Origins::Any => Some(Grant::Any),
            Origins::Listed(origins) => origins
                .iter()
                .position(|listed| listed == origin)
                .map(Grant::Listed),
        }
    }

    /// The `Access-Control-Allow-Origin` of `grant`.
    fn allowed_origin(&self, grant: Grant) -> HeaderValue {
        match (grant, &self.origins) {
            (Grant::Listed(index), Origins::Listed(origins)) => origins[index].clone(),
            _ => HeaderValue::from_static("*"),
        }
    }

    /// Whether answers to `grant` say `Access-Control-Allow-Credentials: true`.
    fn credentials_for(&self, grant: Grant) -> bool {
        self.credentials && matches!(grant, Grant::Listed(_))
    }
}

/// Each of `names` as a header name (in lower case, as HTTP/2 writes them).
fn header_names<I>(names: I) -> Result<Vec<HeaderName>, CorsError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    names
        .into_iter()
        .map(|name| {
            let name = name.as_ref();
            HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| CorsError::new(name, "is not a header name"))
        })
        .collect()
}
