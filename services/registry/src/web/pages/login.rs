//! Logging in with an API token, and out.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::AppState;
use crate::auth::AuthError;
use crate::web::error::WebError;
use crate::web::session::{self, Verified};

/// The login page.
#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    csrf: String,
    next: String,
    error: Option<String>,
    notice: Option<&'static str>,
    session_ttl: String,
}

/// Query of the login page.
#[derive(Debug, Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
    /// Why the last session ended (see `WebError::LoginRequired`).
    ended: Option<String>,
    out: Option<String>,
}

/// Where to go after logging in: only a page of ours (a path under `/admin/`, never a
/// `//host` or scheme), else the queue.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if n.starts_with("/admin/")
                && !n.contains('\\')
                && !n.contains("://")
                && !n.chars().any(|c| c.is_control() || c == ' ') =>
        {
            n.to_owned()
        }
        _ => "/admin/queue".to_owned(),
    }
}

fn render(
    state: &AppState,
    headers: &HeaderMap,
    next: String,
    error: Option<String>,
    notice: Option<&'static str>,
    status: StatusCode,
) -> Result<Response, WebError> {
    let (csrf, jar) = session::csrf_token(state, headers);
    let page = LoginPage {
        csrf,
        next,
        error,
        notice,
        session_ttl: crate::app::accounts::describe_duration(state.access.admin_session_ttl),
    };
    Ok((status, jar, Html(page.render()?)).into_response())
}

/// `GET /admin/login`.
pub async fn form(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<LoginQuery>,
) -> Result<Response, WebError> {
    let notice = match (query.ended.as_deref(), query.out.is_some()) {
        (Some("expired"), _) => Some("Your session expired: log in again."),
        (Some("revoked"), _) => Some("The token you logged in with was revoked: log in with another."),
        (Some("disabled"), _) => Some("Your account is disabled: ask an admin of your organisation."),
        (Some("token-expired"), _) => Some("The token you logged in with has expired: log in with a new one."),
        (Some(_), _) => Some("Your session is no longer valid: log in again."),
        (None, true) => Some("You are logged out."),
        (None, false) => None,
    };
    render(
        &state,
        &headers,
        safe_next(query.next.as_deref()),
        None,
        notice,
        StatusCode::OK,
    )
}

/// The login form.
#[derive(Debug, Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    token: String,
    next: Option<String>,
}

/// `POST /admin/login`: verifies the token like the API does and starts a session.
pub async fn submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    Verified(form): Verified<LoginForm>,
) -> Result<Response, WebError> {
    let next = safe_next(form.next.as_deref());
    let token = form.token.trim();
    if token.is_empty() {
        return render(
            &state,
            &headers,
            next,
            Some("Paste your API token to log in.".to_owned()),
            None,
            StatusCode::BAD_REQUEST,
        );
    }
    match state
        .auth
        .authenticate(&state.store, Some(&format!("Bearer {token}")))
        .await
    {
        Ok(principal) => {
            let jar = session::start(&state, &headers, token, &principal);
            Ok((jar, Redirect::to(&next)).into_response())
        }
        Err(e @ AuthError::Unavailable(_)) => Err(e.into()),
        Err(e) => render(
            &state,
            &headers,
            next,
            Some(format!("That token was not accepted: {e}")),
            None,
            StatusCode::UNAUTHORIZED,
        ),
    }
}

/// The logout form (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct LogoutForm {}

/// `POST /admin/logout`: ends the session (the token itself stays valid).
pub async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    Verified(_): Verified<LogoutForm>,
) -> Result<Response, WebError> {
    Ok((session::end(&state, &headers), Redirect::to("/admin/login?out=1")).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_pages_are_returned_to() {
        assert_eq!(
            safe_next(Some("/admin/patches/x?view=split")),
            "/admin/patches/x?view=split"
        );
        for bad in [
            "//evil.example/admin/",
            "https://evil.example/",
            "/v1/skills",
            "/admin\\..",
            "",
            "/admin/x://y",
        ] {
            assert_eq!(safe_next(Some(bad)), "/admin/queue", "{bad}");
        }
        assert_eq!(safe_next(None), "/admin/queue");
    }
}
