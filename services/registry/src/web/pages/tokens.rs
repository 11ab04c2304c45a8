//! Tokens: everyone sees and revokes their own; admins see everyone's and issue tokens
//! for others, e.g. a read-only token for CI. A new token is shown once, on the page that
//! issued it.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

use super::{back_with, given, when};
use crate::AppState;
use crate::app::accounts::{self, Issuer, TokenSpec};
use crate::web::error::{WebError, encode};
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Tokens listed per page.
const PAGE: i64 = 200;

/// Query of the tokens page.
#[derive(Debug, Default, Deserialize)]
pub struct TokensQuery {
    /// `1`: include revoked and expired tokens.
    all: Option<String>,
    cursor: Option<String>,
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One token.
#[derive(Debug)]
pub struct TokenRow {
    id: String,
    owner: String,
    name: String,
    scopes: String,
    created: String,
    expires: String,
    last_used: String,
    state: &'static str,
    active: bool,
    current: bool,
}

/// The tokens page.
#[derive(Template)]
#[template(path = "tokens.html")]
struct TokensPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    rows: Vec<TokenRow>,
    users: Vec<String>,
    all: bool,
    next_page: Option<String>,
    issued: Option<(String, String)>,
    default_ttl: String,
}

async fn render(
    state: &AppState,
    viewer: &Viewer,
    query: TokensQuery,
    issued: Option<(String, String)>,
) -> Result<Response, WebError> {
    let all = query.all.as_deref() == Some("1");
    let before = given(query.cursor)
        .map(|c| crate::app::paging::time_id_cursor(&c))
        .transpose()
        .map_err(WebError::bad_request)?;
    let principal = &viewer.principal;
    let mut rows = state
        .store
        .list_tokens(
            principal.org_id,
            &cairn_store::TokenQuery {
                user_id: accounts::token_owner_scope(principal),
                include_inactive: all,
                before,
                limit: PAGE + 1,
            },
        )
        .await?;
    let next = crate::app::paging::cut_page(&mut rows, PAGE, |t| crate::app::paging::time_id_key(t.created_at, t.id));
    let users = if principal.is_admin() {
        state
            .store
            .list_users(principal.org_id, None, 1000)
            .await?
            .into_iter()
            .filter(|u| !u.disabled)
            .map(|u| u.handle)
            .collect()
    } else {
        vec![principal.handle.clone()]
    };
    let now = chrono::Utc::now();
    let page = TokensPage {
        chrome: Chrome::new(viewer, "tokens"),
        notice: query.flash.notice(state),
        error: query.flash.error(state),
        rows: rows
            .into_iter()
            .map(|t| {
                let state = if t.revoked_at.is_some() {
                    "revoked"
                } else if t.expires_at <= now {
                    "expired"
                } else {
                    "active"
                };
                TokenRow {
                    id: t.id.to_string(),
                    current: t.id == principal.token_id,
                    owner: t.owner,
                    name: t.name,
                    scopes: t.scopes.join(", "),
                    created: when(&t.created_at),
                    expires: when(&t.expires_at),
                    last_used: t.last_used_at.as_ref().map_or_else(|| "never".to_owned(), when),
                    active: state == "active",
                    state,
                }
            })
            .collect(),
        users,
        all,
        next_page: next.map(|c| format!("/admin/tokens?all={}&cursor={}", u8::from(all), encode(&c))),
        issued,
        default_ttl: accounts::describe_duration(state.access.default_token_ttl),
    };
    crate::web::page(&page)
}

/// `GET /admin/tokens`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<TokensQuery>,
) -> Result<Response, WebError> {
    render(&state, &viewer, query, None).await
}

/// The issue form. Each checked scope arrives as its own `scope` field.
#[derive(Debug, Deserialize)]
pub struct IssueForm {
    user: Option<String>,
    name: Option<String>,
    ttl: Option<String>,
    #[serde(default)]
    read: Option<String>,
    #[serde(default)]
    submit: Option<String>,
    #[serde(default)]
    review: Option<String>,
    #[serde(default)]
    admin: Option<String>,
}

/// `POST /admin/tokens`: issues a token and shows it once.
pub async fn issue(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<IssueForm>,
) -> Result<Response, WebError> {
    let principal = &viewer.principal;
    let ttl = match given(form.ttl).as_deref().map(crate::config::parse_ttl).transpose() {
        Ok(ttl) => ttl,
        Err(message) => return back_with(&state, "/admin/tokens", WebError::bad_request(message)),
    };
    let owner = match accounts::token_owner(&state.store, principal, given(form.user).as_deref()).await {
        Ok(owner) => owner,
        Err(e) => return back_with(&state, "/admin/tokens", e),
    };
    let scopes: Vec<String> = [
        ("read", &form.read),
        ("submit", &form.submit),
        ("review", &form.review),
        ("admin", &form.admin),
    ]
    .into_iter()
    .filter(|(_, checked)| checked.is_some())
    .map(|(name, _)| name.to_owned())
    .collect();
    let name = given(form.name);
    let spec = TokenSpec {
        owner: &owner,
        org_slug: &principal.org_slug,
        issuer: Issuer::Caller(principal),
        name: name.as_deref(),
        ttl,
        scopes: Some(&scopes),
    };
    match accounts::issue(&state.store, state.auth.keys(), &state.access, spec, &viewer.actor()).await {
        Ok(issued) => {
            let label = format!(
                "{} for {} ({}), expires {}",
                issued.info.name,
                issued.info.owner,
                issued.info.scopes.join(", "),
                when(&issued.info.expires_at)
            );
            render(&state, &viewer, TokensQuery::default(), Some((issued.token, label))).await
        }
        Err(e) => back_with(&state, "/admin/tokens", e),
    }
}

/// The revoke form (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct RevokeForm {}

/// `POST /admin/tokens/{id}/revoke`: revokes a token at once, everywhere.
pub async fn revoke(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(_): Verified<RevokeForm>,
) -> Result<Response, WebError> {
    let Ok(id) = Uuid::parse_str(&id) else {
        return back_with(
            &state,
            "/admin/tokens",
            WebError::bad_request(format!("'{id}' is not a token id: pick the token from the list.")),
        );
    };
    match accounts::revoke_token(&state, &viewer.principal, id, &viewer.actor()).await {
        Ok(token) => Ok(done(
            &state,
            "/admin/tokens",
            &format!("Revoked {} of {}.", token.name, token.owner),
        )),
        Err(e) => back_with(&state, "/admin/tokens", e),
    }
}
