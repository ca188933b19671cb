//! Bearer tokens and the callers they name.

use std::collections::HashMap;

use super::Caller;

/// The bearer tokens a server accepts, each naming its caller.
#[derive(Clone, Debug, Default)]
pub struct BearerAuth {
    callers: HashMap<String, String>,
}

impl BearerAuth {
    /// Accepts `token` as the caller `name`.
    pub fn token(mut self, token: impl Into<String>, name: impl Into<String>) -> Self {
        self.callers.insert(token.into(), name.into());
        self
    }

    /// The caller an `Authorization` header value names, when its token is one of ours.
    pub fn identify(&self, authorization: Option<&str>) -> Option<Caller> {
        let value = authorization?.trim();
        let (scheme, token) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let name = self.callers.get(token.trim())?;
        Some(Caller { name: name.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_tokens_name_a_caller() {
        let auth = BearerAuth::default().token("s3cret", "alice");
        assert_eq!(auth.identify(Some("Bearer s3cret")).unwrap().name, "alice");
        assert_eq!(auth.identify(Some("bearer s3cret")).unwrap().name, "alice");
        assert!(auth.identify(Some("Bearer wrong")).is_none());
        assert!(auth.identify(Some("Basic s3cret")).is_none());
        assert!(auth.identify(None).is_none());
    }
}
