//! Admin-page sessions and CSRF protection.
//!
//! Logging in with an API token stores that token in an encrypted, authenticated cookie
//! (`cairn_session`: HttpOnly, SameSite=Strict, path `/admin`, Secure behind TLS). The gate
//! re-verifies the token on every request exactly as for the API
//! ([`crate::access::session`]), so revoking the token, disabling the user or lowering
//! their role ends or narrows the session at once, on every replica, and a page's requests
//! count against the token's rate limit.
//! A second encrypted cookie (`cairn_csrf`) holds a random value that every form must send
//! back (the synchronizer-token pattern); a cross-site page can neither read nor set it.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum_extra::extract::cookie::{Cookie, PrivateCookieJar, SameSite};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::error::WebError;
use crate::AppState;
use crate::access::RequestContext;
use crate::access::session::{COOKIE_PATH, SESSION_COOKIE, SessionCookie, SessionEnds};
use crate::auth::Principal;
use crate::auth::scopes::Scope;
use cairn_store::Actor;

/// The CSRF cookie's name.
pub const CSRF_COOKIE: &str = "cairn_csrf";
/// The form field carrying the CSRF token.
pub const CSRF_FIELD: &str = "csrf";

/// Whether cookies must be `Secure`: always when the operator says the registry is only
/// reached over TLS (`CAIRN_COOKIE_SECURE=always`), else when the request reached us over
/// TLS, which only a trusted reverse proxy can say (`X-Forwarded-Proto: https`), since the
/// registry itself serves plain HTTP.
fn is_https(headers: &HeaderMap, trusted_proxy_hops: usize, always: bool) -> bool {
    always || crate::access::forwarded_https(headers, trusted_proxy_hops)
}

/// The request's encrypted cookies.
pub fn jar(state: &AppState, headers: &HeaderMap) -> PrivateCookieJar {
    PrivateCookieJar::from_headers(headers, state.session_key.cookie_key().clone())
}

/// A cookie with the attributes both of ours share.
fn cookie(name: &'static str, value: String, headers: &HeaderMap, state: &AppState) -> Cookie<'static> {
    Cookie::build((name, value))
        .path(COOKIE_PATH)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(is_https(
            headers,
            state.access.trusted_proxy_hops,
            state.access.cookie_secure_always,
        ))
        .build()
}

/// A removal of `name` (expired, same path).
fn removal(name: &'static str) -> Cookie<'static> {
    Cookie::build(name).path(COOKIE_PATH).build()
}

/// A fresh random CSRF token.
fn new_csrf() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

/// The CSRF token of this browser, and the jar that sets it when it was missing.
pub fn csrf_token(state: &AppState, headers: &HeaderMap) -> (String, PrivateCookieJar) {
    let jar = jar(state, headers);
    match jar.get(CSRF_COOKIE) {
        Some(existing) if existing.value().len() == 64 => (existing.value().to_owned(), jar),
        _ => {
            let token = new_csrf();
            let jar = jar.add(cookie(CSRF_COOKIE, token.clone(), headers, state));
            (token, jar)
        }
    }
}

/// Starts a session for `token` (already verified as `principal`): the session cookie,
/// and a new CSRF token so one planted before login is worthless after it.
pub fn start(state: &AppState, headers: &HeaderMap, token: &str, principal: &Principal) -> PrivateCookieJar {
    let ttl = chrono::Duration::from_std(state.access.admin_session_ttl).unwrap_or(chrono::Duration::hours(12));
    let session = SessionCookie {
        token: token.to_owned(),
        expires_at: (Utc::now() + ttl).min(principal.expires_at),
    };
    jar(state, headers)
        .add(cookie(SESSION_COOKIE, session.value(), headers, state))
        .add(cookie(CSRF_COOKIE, new_csrf(), headers, state))
}

/// Ends the session: both cookies removed.
pub fn end(state: &AppState, headers: &HeaderMap) -> PrivateCookieJar {
    jar(state, headers)
        .remove(removal(SESSION_COOKIE))
        .remove(removal(CSRF_COOKIE))
}

/// The logged-in user of an admin page: who they are (verified by the gate on this
/// request, like an API token) and the CSRF token their forms carry.
#[derive(Clone, Debug)]
pub struct Viewer {
    /// Who, with their current role and scopes.
    pub principal: Principal,
    /// The value forms send back in their `csrf` field.
    pub csrf: String,
    /// When the session ends.
    pub expires_at: DateTime<Utc>,
    /// Where the request came from (for the audit log).
    pub context: Option<RequestContext>,
}

impl Viewer {
    /// The audit-log actor of this request: the viewer, the request id and address.
    pub fn actor(&self) -> Actor {
        Actor {
            user_id: Some(self.principal.user_id),
            name: self.principal.handle.clone(),
            request_id: self.context.as_ref().and_then(|c| c.request_id.clone()),
            client_addr: self.context.as_ref().map(|c| c.client_addr.to_string()),
        }
    }

    /// Whether the viewer may do what `scope` allows (to show or hide controls).
    pub fn can(&self, scope: Scope) -> bool {
        self.principal.scopes.contains(scope)
    }
}

/// Where to return after logging in: the page asked for (path and query), if it is one
/// of ours.
pub fn return_path(method: &Method, uri: &axum::http::Uri) -> String {
    if method != Method::GET {
        return "/admin/queue".to_owned();
    }
    uri.path_and_query().map_or("/admin/queue", |p| p.as_str()).to_owned()
}

/// Whether the request wants a part of a page (the queue's live refresh), which gets a
/// 401 rather than the login page when the session ended.
pub fn wants_fragment(headers: &HeaderMap) -> bool {
    headers.contains_key("x-cairn-fragment")
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let (Some(principal), Some(SessionEnds(expires_at))) = (
            parts.extensions.get::<Principal>().cloned(),
            parts.extensions.get::<SessionEnds>().copied(),
        ) else {
            return Err(WebError::Failed(crate::error::ApiError::internal(
                "a page needing a viewer is routed without a session rule",
                &"missing session",
            )));
        };
        let Some(csrf) = jar(state, &parts.headers)
            .get(CSRF_COOKIE)
            .map(|c| c.value().to_owned())
        else {
            return Err(WebError::LoginRequired {
                next: return_path(&parts.method, &parts.uri),
                reason: None,
                fragment: wants_fragment(&parts.headers),
            });
        };
        Ok(Viewer {
            principal,
            csrf,
            expires_at,
            context: parts.extensions.get::<RequestContext>().cloned(),
        })
    }
}

/// A form whose CSRF token matched: the only way a page handler receives form input.
/// A mismatch (or a cross-site request) is refused with 403 before the handler runs.
#[derive(Debug)]
pub struct Verified<T>(pub T);

#[derive(Deserialize)]
struct CsrfField {
    #[serde(default)]
    csrf: String,
}

/// Whether the request came from another site. Browsers say so themselves
/// (`Sec-Fetch-Site`, sent by every current browser): only `same-origin` and `none` (the
/// user typed or bookmarked it) pass. Older browsers are judged by `Origin`, which must
/// name this host as the browser reached it (`Host`, the request's authority, or behind
/// trusted proxies `X-Forwarded-Host`); `Origin: null` is another site.
fn cross_site(headers: &HeaderMap, authority: Option<&str>, trusted_proxy_hops: usize) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return !matches!(site.to_str().unwrap_or_default(), "same-origin" | "none");
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let origin = origin.to_str().unwrap_or("null");
    if origin == "null" {
        return true;
    }
    let origin_host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let forwarded = (trusted_proxy_hops > 0)
        .then(|| text(header::HeaderName::from_static("x-forwarded-host")))
        .flatten()
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim);
    ![text(header::HOST), authority, forwarded].contains(&Some(origin_host))
}

/// The message of every refused form: what happened and what to do.
pub const CSRF_REFUSED: &str = "This form was not accepted: it was not sent from this page (or the page is too old). Reload the page and try again.";

impl<T: DeserializeOwned + Send> FromRequest<AppState> for Verified<T> {
    type Rejection = WebError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let (parts, body) = request.into_parts();
        let expected = jar(state, &parts.headers)
            .get(CSRF_COOKIE)
            .map(|c| c.value().to_owned());
        if cross_site(
            &parts.headers,
            parts.uri.authority().map(|a| a.as_str()),
            state.access.trusted_proxy_hops,
        ) {
            return Err(WebError::forbidden(CSRF_REFUSED));
        }
        let bytes = axum::body::to_bytes(body, crate::access::MAX_BODY_BYTES)
            .await
            .map_err(|_| WebError::bad_request("The form is too large: shorten what you entered."))?;
        let sent: CsrfField = serde_urlencoded::from_bytes(&bytes).unwrap_or(CsrfField { csrf: String::new() });
        match expected {
            Some(expected) if !sent.csrf.is_empty() && crate::auth::same_secret(&expected, &sent.csrf) => {}
            _ => return Err(WebError::forbidden(CSRF_REFUSED)),
        }
        let form = serde_urlencoded::from_bytes(&bytes).map_err(|e| {
            WebError::bad_request(format!("The form is not valid ({e}): reload the page and try again."))
        })?;
        Ok(Verified(form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn cross_site_requests_are_recognised() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("cairn.example:7878"));
        assert!(!cross_site(&headers, None, 0));
        headers.insert(header::ORIGIN, HeaderValue::from_static("http://cairn.example:7878"));
        assert!(!cross_site(&headers, None, 0));
        headers.insert(header::ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert!(cross_site(&headers, None, 0));
        headers.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(cross_site(&headers, None, 0));
        // HTTP/2 carries the host as the authority; a proxy may rewrite Host but say
        // what the browser used in X-Forwarded-Host.
        headers.remove(header::HOST);
        headers.insert(header::ORIGIN, HeaderValue::from_static("https://cairn.example"));
        assert!(!cross_site(&headers, Some("cairn.example"), 0));
        headers.insert("x-forwarded-host", HeaderValue::from_static("cairn.example"));
        assert!(cross_site(&headers, None, 0));
        assert!(!cross_site(&headers, None, 1));
        // The browser's own verdict wins when it gives one.
        headers.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
        headers.insert(header::ORIGIN, HeaderValue::from_static("https://elsewhere.example"));
        assert!(!cross_site(&headers, None, 0));
        for site in ["cross-site", "same-site"] {
            headers.insert("sec-fetch-site", HeaderValue::from_static(site));
            assert!(cross_site(&headers, None, 1), "{site}");
        }
    }

    #[test]
    fn cookies_are_secure_behind_a_tls_proxy_or_when_configured() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(!is_https(&headers, 0, false));
        assert!(is_https(&headers, 1, false));
        assert!(is_https(&headers, 0, true));
        headers.insert("x-forwarded-proto", HeaderValue::from_static("http"));
        assert!(!is_https(&headers, 1, false));
        assert!(is_https(&HeaderMap::new(), 0, true));
    }
}
