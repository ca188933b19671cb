//! A request's `Origin`, under a [`Cors`]: admitted or refused, a preflight
//! answered, and the CORS headers of an admitted request's response.

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, ORIGIN, VARY,
};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri};

use super::Cors;
use super::origin::is_same_origin;
use crate::transport::http::ResponseBody;
use crate::transport::http::server::refusal::{origin_refused, plain};

/// What becomes of a request under a [`Cors`].
pub(crate) enum Admission {
    /// Served; its response then carries the CORS headers of the grant,
    /// if any (none for a request without `Origin`, or from the server's
    /// own origin, which needs none).
    Serve(Option<Grant>),
    /// Answered at once, before the body is read: a preflight, or a refusal.
    Answered(Response<ResponseBody>),
}

/// How an allowed origin was allowed: small, since the answer to an HTTP
/// request holds it until the response is ready.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Grant {
    /// By [`Cors::allow_any_origin`].
    Any,
    /// As the origin listed at this index.
    Listed(usize),
}

impl Cors {
    /// What becomes of the request of `method` to `uri` with `headers`.
    pub(crate) fn admit(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> Admission {
        let Some(origin) = headers.get(ORIGIN) else {
            return Admission::Serve(None);
        };
        let grant = self.grant(origin);
        if method == Method::OPTIONS
            && let Some(requested) = headers.get(ACCESS_CONTROL_REQUEST_METHOD)
        {
            return Admission::Answered(self.preflight(grant, requested, headers));
        }
        match grant {
            Some(grant) => Admission::Serve(Some(grant)),
            None if is_same_origin(origin, uri, headers) => Admission::Serve(None),
            None => {
                let mut refused = origin_refused();
                refused
                    .headers_mut()
                    .append(VARY, HeaderValue::from_static("origin"));
                Admission::Answered(refused)
            }
        }
    }

    /// Writes the CORS headers of `grant` on the response to an admitted
    /// request: always `Vary: Origin`, since the answer depends on it.
    pub(crate) fn write_grant(&self, grant: Option<Grant>, headers: &mut HeaderMap) {
        headers.append(VARY, HeaderValue::from_static("origin"));
        let Some(grant) = grant else {
            return;
        };
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, self.allowed_origin(grant));
        if self.credentials_for(grant) {
            headers.insert(
                ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
        if let Some(exposed) = &self.expose_headers {
            headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, exposed.clone());
        }
    }

    /// Writes the CORS headers of the response to a simple request (a
    /// `GET`) with the headers `request`, for a resource an app serves
    /// beside the JSON-RPC endpoint under the same rules (an A2A Agent
    /// Card, a health check): `Vary: Origin` always, and for an allowed
    /// origin `Access-Control-Allow-Origin` (with `-Expose-Headers` and
    /// `-Allow-Credentials` when set). A page of another origin gets no
    /// grant, so its browser keeps the response from it.
    ///
    /// ```
    /// use typed_rpc::transport::http::Cors;
    ///
    /// let cors = Cors::allow_origins(["https://app.example.com"])?;
    /// let mut request = http::HeaderMap::new();
    /// request.insert("origin", "https://app.example.com".parse().unwrap());
    /// let mut response = http::HeaderMap::new();
    /// cors.write_response_headers(&request, &mut response);
    /// assert_eq!(response["access-control-allow-origin"], "https://app.example.com");
    /// assert_eq!(response["vary"], "origin");
    ///
    /// request.insert("origin", "https://elsewhere.example".parse().unwrap());
    /// let mut refused = http::HeaderMap::new();
    /// cors.write_response_headers(&request, &mut refused);
    /// assert!(refused.get("access-control-allow-origin").is_none());
    /// # Ok::<(), typed_rpc::transport::http::CorsError>(())
    /// ```
    pub fn write_response_headers(&self, request: &HeaderMap, response: &mut HeaderMap) {
        let grant = request.get(ORIGIN).and_then(|origin| self.grant(origin));
        self.write_grant(grant, response);
    }

    /// The answer to a preflight for the `requested` method: `204` with
    /// what the page may do, or `403` saying what it may not.
    fn preflight(
        &self,
        grant: Option<Grant>,
        requested: &HeaderValue,
        headers: &HeaderMap,
    ) -> Response<ResponseBody> {
        let mut response = match self.check_preflight(grant, requested, headers) {
            Ok(grant) => self.preflight_granted(grant),
            Err(reason) => plain(StatusCode::FORBIDDEN, reason),
        };
        response.headers_mut().append(
            VARY,
            HeaderValue::from_static(
                "origin, access-control-request-method, access-control-request-headers",
            ),
        );
        response
    }

    /// The preflight's grant, or why it gets none.
    fn check_preflight(
        &self,
        grant: Option<Grant>,
        requested: &HeaderValue,
        headers: &HeaderMap,
    ) -> Result<Grant, &'static str> {
        let grant = grant.ok_or("This origin may not call this server.\n")?;
        if requested != "POST" {
            return Err("JSON-RPC requests are sent with POST.\n");
        }
        if !self.allows_request_headers(headers) {
            return Err("A header this request would send is not allowed here.\n");
        }
        Ok(grant)
    }

    /// The `204` of a preflight granted.
    fn preflight_granted(&self, grant: Grant) -> Response<ResponseBody> {
        let mut response = Response::new(ResponseBody::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, self.allowed_origin(grant));
        headers.insert(
            ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("POST"),
        );
        if let Ok(allowed) = HeaderValue::from_str(&self.allowed_headers()) {
            headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, allowed);
        }
        if let Some(max_age) = self.max_age {
            headers.insert(ACCESS_CONTROL_MAX_AGE, max_age.as_secs().into());
        }
        if self.credentials_for(grant) {
            headers.insert(
                ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
        response
    }

    /// Whether every header a preflight announces is allowed.
    fn allows_request_headers(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(ACCESS_CONTROL_REQUEST_HEADERS)
            .iter()
            .all(|value| match value.to_str() {
                Ok(names) => names
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .all(|name| {
                        self.allow_headers
                            .iter()
                            .any(|allowed| allowed.as_str().eq_ignore_ascii_case(name))
                    }),
                Err(_) => false,
            })
    }

    /// `Access-Control-Allow-Headers`.
    fn allowed_headers(&self) -> String {
        let names: Vec<&str> = self
            .allow_headers
            .iter()
            .map(|name| name.as_str())
            .collect();
        names.join(", ")
    }
}

/// Whether a WebSocket handshake with `headers`, sent to `uri`, may be
/// upgraded: one without `Origin` (not from a browser), from the server's
/// own origin, or from an origin `cors` allows.
#[cfg(feature = "ws")]
pub(crate) fn admits_handshake(cors: Option<&Cors>, uri: &Uri, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    is_same_origin(origin, uri, headers) || cors.is_some_and(|cors| cors.grant(origin).is_some())
}
