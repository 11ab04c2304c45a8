//! The review web's credential: an encrypted, authenticated cookie (`cairn_session`) that
//! holds the API token a user logged in with and when the session ends. The gate reads it
//! for routes declared [`Access::Session`](super::Access::Session) and then treats the
//! request like one carrying that token: the same authentication (revocation, disabled
//! users and role changes take effect at once), the same authorization rule and the same
//! per-token rate limit. Setting the cookie (logging in) and the CSRF protection of forms
//! belong to the web.

use axum::extract::Request;
use axum::http::HeaderMap;
use axum::response::Response;
use axum_extra::extract::cookie::PrivateCookieJar;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::auth::SessionKey;
use crate::error::ApiError;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "cairn_session";

/// The path the web's cookies are scoped to.
pub const COOKIE_PATH: &str = "/admin";

/// What the session cookie holds (encrypted with the [`SessionKey`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct SessionCookie {
    /// The API token the user logged in with.
    pub token: String,
    /// When the session ends.
    pub expires_at: DateTime<Utc>,
}

impl SessionCookie {
    /// The session cookie of a request, if it carries one this server encrypted.
    pub fn read(headers: &HeaderMap, key: &SessionKey) -> Option<Self> {
        PrivateCookieJar::from_headers(headers, key.cookie_key().clone())
            .get(SESSION_COOKIE)
            .and_then(|cookie| serde_json::from_str(cookie.value()).ok())
    }

    /// The cookie's value (encrypted when the jar adds it).
    pub fn value(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// When the session of a request ends: the gate hands it to the pages with the
/// [`Principal`](crate::auth::Principal) (the live queue's stream ends with the session).
#[derive(Clone, Copy, Debug)]
pub struct SessionEnds(pub DateTime<Utc>);

/// Why the gate did not let a session request through.
#[derive(Debug)]
pub enum SessionRefusal {
    /// No valid session: the browser must log in (again). The reason, when a session
    /// ended, is one of `expired`, `revoked`, `disabled`, `token-expired`, `invalid`.
    LoginRequired(Option<&'static str>),
    /// Logged in, but refused (permission, organisation, rate limit, registry trouble).
    Failed(ApiError),
}

/// How the web answers a refused session request (a login redirect, an error page): the
/// server hands the web's renderer to the gate, which does not know pages.
pub type RefusalPage = fn(&Request, SessionRefusal) -> Response;
