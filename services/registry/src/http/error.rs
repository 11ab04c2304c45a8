//! The single JSON error shape of the API and the one place domain errors become HTTP.
//!
//! `{"error": {"code": "not_found", "message": "skill 'x' does not exist"}}`. Internal
//! failures are logged with the request id and answered with a generic message.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use cairn_store::StoreError;
use cairn_store::blob::BlobError;
use serde_json::json;

use crate::app::accounts::AccountError;
use crate::auth::AuthError;

/// An error answered to an API client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// Builds an error with an explicit status and code.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// 404: the thing does not exist (or is not visible to the caller).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 400: the request itself is wrong.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 500: something on our side failed; details go to the log, not the client.
    pub fn internal(context: &str, error: &dyn std::fmt::Display) -> Self {
        tracing::error!(%error, "{context}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the registry hit an internal error; it was logged — retry, and report it with the x-request-id header if it persists",
        )
    }

    /// Adds what to do next to a 404 (`… does not exist: <hint>`); other errors keep
    /// their own message.
    pub fn hint(mut self, hint: &str) -> Self {
        if self.status == StatusCode::NOT_FOUND {
            self.message = format!("{}: {hint}", self.message);
        }
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The machine-readable code (`not_found`, `patch_refused`, …).
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The message for the caller.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Seconds a client is asked to wait before retrying a 503: long enough for a database
/// restart or a blob-store blip to pass, short enough that sync clients catch up quickly.
pub const RETRY_AFTER_SECONDS: u64 = 5;

impl ApiError {
    /// 503: a dependency (database, blob store) is unreachable for now; the request
    /// changed nothing and may be retried after `Retry-After`.
    pub fn unavailable(what: &str, error: &dyn std::fmt::Display) -> Self {
        tracing::warn!(%error, "{what} unavailable");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            format!("the registry's {what} is unreachable right now: retry in a few seconds"),
        )
    }
}

/// Adds `Retry-After` to every 503 the router answers, whatever its format (JSON, the
/// ClawHub API's text, the review web's pages): applied by the router's outermost
/// middleware.
pub fn retry_after_on_503(mut response: Response) -> Response {
    if response.status() == StatusCode::SERVICE_UNAVAILABLE && !response.headers().contains_key(header::RETRY_AFTER) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({ "error": { "code": self.code, "message": self.message } }));
        let mut response = (self.status, body).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"cairn\""),
            );
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(what) => ApiError::not_found(format!("{what} does not exist")),
            StoreError::Conflict(message) => ApiError::new(StatusCode::CONFLICT, "conflict", message),
            e @ StoreError::Unavailable(_) => ApiError::unavailable("database", &e),
            other => ApiError::internal("database error", &other),
        }
    }
}

impl From<BlobError> for ApiError {
    fn from(error: BlobError) -> Self {
        if error.is_unavailable() {
            return ApiError::unavailable("blob store", &error);
        }
        ApiError::internal("blob store error", &error)
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Unavailable(e) if !e.is_unavailable() => ApiError::internal("checking a token", &e),
            AuthError::Unavailable(e) => {
                tracing::error!(error = %e, "token check failed");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    AuthError::Unavailable(e).to_string(),
                )
            }
            e @ AuthError::NoLongerAllowed(_) => ApiError::new(StatusCode::FORBIDDEN, "forbidden", e.to_string()),
            other => ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", other.to_string()),
        }
    }
}

impl From<AccountError> for ApiError {
    fn from(error: AccountError) -> Self {
        match error {
            AccountError::Invalid(message) => ApiError::bad_request(message),
            AccountError::Forbidden(message) => ApiError::new(StatusCode::FORBIDDEN, "forbidden", message),
            AccountError::NotFound(what) => ApiError::not_found(format!("{what} does not exist")),
            AccountError::Conflict(message) => ApiError::new(StatusCode::CONFLICT, "conflict", message),
            AccountError::Store(e) => e.into(),
            AccountError::Internal(e) => ApiError::internal("issuing a token", &e),
        }
    }
}
