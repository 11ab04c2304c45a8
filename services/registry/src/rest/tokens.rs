//! `whoami` and the token endpoints: everyone manages their own tokens, admins everyone's.

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use uuid::Uuid;

use super::json_ok;
use super::wire::ToWire;
use crate::AppState;
use crate::access::Caller;
use crate::app::accounts::{self, Issuer, TokenSpec};
use crate::auth::Principal;
use crate::config::parse_ttl;
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiJson, ApiPath, ApiQuery};
use cairn_wire::{IssuedToken, Page, WhoAmI};

/// `GET /v1/whoami`: who the token belongs to and what it may do now.
pub async fn whoami(Extension(principal): Extension<Principal>) -> Response {
    json_ok(WhoAmI {
        user: principal.handle,
        org: principal.org_slug,
        role: principal.role.as_str().to_owned(),
        scopes: principal.scopes.names(),
        token_id: principal.token_id.to_string(),
        expires_at: principal.expires_at,
    })
}

/// Query of `GET /v1/tokens`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListQuery {
    /// Admins: only this user's tokens.
    user: Option<String>,
    /// `true`: include revoked and expired tokens.
    all: Option<bool>,
    /// Where the previous page ended: its `next_cursor`.
    cursor: Option<String>,
    /// Items per page, 1 to 200 (default 50).
    #[schemars(with = "Option<u32>", range(min = 1, max = 200))]
    limit: Option<String>,
}

/// `GET /v1/tokens`: the caller's tokens (admins: everyone's, or `?user=`), newest first.
pub async fn list(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Response, ApiError> {
    let limit = extract::limit(query.limit.as_deref())?;
    let user_id = match query.user.as_deref() {
        None => accounts::token_owner_scope(&principal),
        Some(handle) => Some(
            accounts::token_owner(&state.store, &principal, Some(handle))
                .await
                .map_err(|e| ApiError::from(e).hint("list users with GET /v1/users"))?
                .id,
        ),
    };
    let before = query
        .cursor
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(extract::time_id_cursor)
        .transpose()?;
    let token_query = cairn_store::TokenQuery {
        user_id,
        include_inactive: query.all.unwrap_or(false),
        before,
        limit: limit + 1,
    };
    let mut rows = state.store.list_tokens(principal.org_id, &token_query).await?;
    let next_cursor = extract::cut_page(&mut rows, limit, |t| {
        format!("{}_{}", t.created_at.timestamp_micros(), t.id)
    });
    Ok(json_ok(Page {
        items: rows.into_iter().map(ToWire::to_wire).collect(),
        next_cursor,
    }))
}

/// Body of `POST /v1/tokens`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IssueBody {
    /// A label, e.g. `laptop` or `ci`.
    name: Option<String>,
    /// Lifetime such as `30d` (default from the server's settings).
    ttl: Option<String>,
    /// Scope names; default: everything the caller may grant.
    scopes: Option<Vec<String>>,
    /// Admins: issue for this user instead of themselves.
    user: Option<String>,
}

/// `POST /v1/tokens`: issues a token (for the caller, or for `user` by an admin). The
/// token is in this response only.
pub async fn issue(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<IssueBody>,
) -> Result<Response, ApiError> {
    let principal = &caller.principal;
    let ttl = body
        .ttl
        .as_deref()
        .map(parse_ttl)
        .transpose()
        .map_err(ApiError::bad_request)?;
    let owner = accounts::token_owner(&state.store, principal, body.user.as_deref())
        .await
        .map_err(|e| ApiError::from(e).hint("list users with GET /v1/users"))?;
    let spec = TokenSpec {
        owner: &owner,
        org_slug: &principal.org_slug,
        issuer: Issuer::Caller(principal),
        name: body.name.as_deref(),
        ttl,
        scopes: body.scopes.as_deref(),
    };
    let issued = accounts::issue(&state.store, state.auth.keys(), &state.access, spec, &caller.actor()).await?;
    let mut response = (
        StatusCode::CREATED,
        axum::Json(IssuedToken {
            token: issued.token,
            item: issued.info.to_wire(),
        }),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

fn token_id(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw).map_err(|_| {
        ApiError::bad_request(format!(
            "'{raw}' is not a token id: use the id from GET /v1/tokens (a UUID)"
        ))
    })
}

/// `GET /v1/tokens/{id}`.
pub async fn get(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = token_id(&id)?;
    let token = state
        .store
        .token(principal.org_id, accounts::token_owner_scope(&principal), id)
        .await
        .map_err(|e| ApiError::from(e).hint("list your tokens with GET /v1/tokens"))?;
    Ok(json_ok(token.to_wire()))
}

/// `DELETE /v1/tokens/{id}`: revokes a token at once (everywhere). Revoking a revoked
/// token succeeds and changes nothing.
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = token_id(&id)?;
    let token = accounts::revoke_token(&state, &caller.principal, id, &caller.actor())
        .await
        .map_err(|e| ApiError::from(e).hint("list your tokens with GET /v1/tokens"))?;
    Ok(json_ok(token.to_wire()))
}
