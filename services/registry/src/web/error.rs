//! How the admin pages fail: the one place errors become pages. Domain errors go through
//! the API's mapping ([`ApiError`]) so a page and the API say the same thing with the same
//! status; internal details stay in the log.

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::error::{ApiError, ErrorKind};

/// Why a page could not be shown or a form was not accepted.
#[derive(Debug)]
pub enum WebError {
    /// No valid session: the browser is sent to the login page, then back to `next`.
    LoginRequired {
        /// The page to return to after logging in.
        next: String,
        /// Why a session ended (`expired`, `revoked`, `disabled`, `token-expired`,
        /// `invalid`), for the login page to say.
        reason: Option<&'static str>,
        /// The request wanted a part of a page (the queue's live refresh): answer 401
        /// rather than the login page.
        fragment: bool,
    },
    /// Any other failure, shown as an error page with the API's status and message.
    Failed(ApiError),
}

impl WebError {
    /// 403 with a message saying what is needed.
    pub fn forbidden(message: impl Into<String>) -> Self {
        WebError::Failed(ApiError::new(ErrorKind::Forbidden, "forbidden", message))
    }

    /// 400 with a message saying what to correct.
    pub fn bad_request(message: impl Into<String>) -> Self {
        WebError::Failed(ApiError::bad_request(message))
    }

    /// 404 with a message saying where to look instead.
    pub fn not_found(message: impl Into<String>) -> Self {
        WebError::Failed(ApiError::not_found(message))
    }
}

/// Every error type of the application layer becomes a page the way the API maps it.
macro_rules! through_api_error {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for WebError {
            fn from(error: $error) -> Self {
                WebError::Failed(ApiError::from(error))
            }
        }
    )*};
}

through_api_error!(
    ApiError,
    cairn_store::StoreError,
    crate::app::patches::PatchError,
    crate::app::audit::AuditError,
    crate::app::policy::PolicyError,
    crate::app::accounts::AccountError,
    crate::app::catalog::CatalogError,
    crate::app::webhooks::WebhookError,
    crate::auth::AuthError,
    crate::app::live::WatchError,
);

impl From<askama::Error> for WebError {
    fn from(error: askama::Error) -> Self {
        WebError::Failed(ApiError::internal("rendering a page", &error))
    }
}

/// The error page.
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    status: u16,
    title: &'a str,
    message: &'a str,
}

/// The heading of an error page.
fn title(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 422 => "That did not work",
        403 => "Not allowed",
        404 => "Not found",
        409 => "Already changed",
        429 => "Too many requests",
        _ => "Something went wrong",
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        match self {
            WebError::LoginRequired { fragment: true, .. } => (
                StatusCode::UNAUTHORIZED,
                [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
                "your session ended: reload the page to log in again",
            )
                .into_response(),
            WebError::LoginRequired { next, reason, .. } => {
                let mut target = format!("/admin/login?next={}", encode(&next));
                if let Some(reason) = reason {
                    target.push_str(&format!("&ended={reason}"));
                }
                Redirect::to(&target).into_response()
            }
            WebError::Failed(error) => {
                let page = ErrorPage {
                    status: error.status().as_u16(),
                    title: title(error.status()),
                    message: error.message(),
                };
                let body = page
                    .render()
                    .unwrap_or_else(|_| "<!doctype html><title>Error</title><p>Something went wrong.".to_owned());
                let mut response = (error.status(), Html(body)).into_response();
                response
                    .headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                response
            }
        }
    }
}

/// Percent-encodes a query value.
pub fn encode(value: &str) -> String {
    serde_urlencoded::to_string([("", value)])
        .map(|s| s.trim_start_matches('=').to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(
            encode("/admin/queue?status=open&skill=a b"),
            "%2Fadmin%2Fqueue%3Fstatus%3Dopen%26skill%3Da+b"
        );
    }
}
