//! User administration (admins; the gate enforces it).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cairn_store::{Role, UserUpdate};
use serde::Deserialize;

use super::json_ok;
use super::wire::ToWire;
use crate::AppState;
use crate::access::Caller;
use crate::app::accounts::{self, AccountError};
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiJson, ApiPath, ApiQuery};
use cairn_wire::Page;

/// `GET /v1/users`: the organisation's users by handle.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(page): ApiQuery<extract::PageQuery>,
) -> Result<Response, ApiError> {
    let limit = page.limit()?;
    let after = page.cursor();
    let mut rows = state
        .store
        .list_users(caller.principal.org_id, after, limit + 1)
        .await?;
    let next_cursor = extract::cut_page(&mut rows, limit, |u| u.handle.clone());
    Ok(json_ok(Page {
        items: rows.into_iter().map(ToWire::to_wire).collect(),
        next_cursor,
    }))
}

fn role(raw: &str) -> Result<Role, ApiError> {
    raw.parse().map_err(ApiError::bad_request)
}

/// Body of `POST /v1/users`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    /// Lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9._-]{0,63}$"))]
    handle: String,
    /// `admin`, `reviewer`, `member` or `reader`.
    #[schemars(extend("enum" = ["admin", "reviewer", "member", "reader"]))]
    role: String,
}

/// `POST /v1/users`: adds a user (then issue them a token with `POST /v1/tokens`).
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<CreateBody>,
) -> Result<Response, ApiError> {
    let role = role(&body.role)?;
    let user = accounts::add_user(
        &state.store,
        caller.principal.org_id,
        &body.handle,
        role,
        &caller.actor(),
    )
    .await
    .map_err(|e| match e {
        AccountError::Conflict(message) => AccountError::Conflict(format!(
            "{message}: choose another handle, or change the existing user with PATCH /v1/users/{{handle}}"
        )),
        other => other,
    })?;
    Ok((StatusCode::CREATED, axum::Json(user.to_wire())).into_response())
}

/// `GET /v1/users/{handle}`.
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(handle): ApiPath<String>,
) -> Result<Response, ApiError> {
    accounts::check_handle(&handle)?;
    let user = state
        .store
        .user_by_handle(caller.principal.org_id, &handle)
        .await
        .map_err(|e| ApiError::from(e).hint("list users with GET /v1/users"))?;
    Ok(json_ok(user.to_wire()))
}

/// Body of `PATCH /v1/users/{handle}`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateBody {
    /// The new role: `admin`, `reviewer`, `member` or `reader`.
    #[schemars(extend("enum" = ["admin", "reviewer", "member", "reader", null]))]
    role: Option<String>,
    disabled: Option<bool>,
}

/// `PATCH /v1/users/{handle}`: changes the role and/or disables (or enables) a user.
/// Takes effect at once for every token of the user, on every replica.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(handle): ApiPath<String>,
    ApiJson(body): ApiJson<UpdateBody>,
) -> Result<Response, ApiError> {
    let update = UserUpdate {
        role: body.role.as_deref().map(role).transpose()?,
        disabled: body.disabled,
    };
    let user = accounts::change_user(&state, caller.principal.org_id, &handle, update, &caller.actor())
        .await
        .map_err(|e| ApiError::from(e).hint("list users with GET /v1/users"))?;
    Ok(json_ok(user.to_wire()))
}
