//! Owners of skills and categories: `GET /v1/owners` for everyone who reads, and the
//! admins' `PUT`s that name them.

use axum::extract::State;
use axum::response::Response;
use cairn_store::{OwnedKind, OwnerRule};
use cairn_wire::{Items, OwnerList};
use serde::Deserialize;

use super::json_ok;
use crate::AppState;
use crate::access::Caller;
use crate::app::owners;
use crate::error::ApiError;
use crate::error::parse::{ApiJson, ApiPath};

fn to_wire(rule: OwnerRule) -> OwnerList {
    OwnerList {
        kind: rule.kind,
        name: rule.name,
        owners: rule.owners,
    }
}

/// `GET /v1/owners`: every owner list, skills first, then categories.
pub async fn list(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let rules = owners::rules(&state.store, &caller.principal).await?;
    Ok(json_ok(Items {
        items: rules.into_iter().map(to_wire).collect(),
    }))
}

/// Body of the owner `PUT`s.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnersBody {
    /// The owners' handles: members who can review (admins and reviewers). An empty
    /// list removes the owners. At most 20.
    #[schemars(length(max = 20))]
    owners: Vec<String>,
}

async fn set(
    state: &AppState,
    caller: &Caller,
    kind: OwnedKind,
    name: &str,
    body: OwnersBody,
) -> Result<Response, ApiError> {
    let rule = owners::set(
        &state.store,
        &caller.principal,
        kind,
        name,
        &body.owners,
        &caller.actor(),
    )
    .await?;
    Ok(json_ok(to_wire(rule)))
}

/// `PUT /v1/owners/skills/{name}`: names a published skill's owners.
pub async fn set_skill(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(name): ApiPath<String>,
    ApiJson(body): ApiJson<OwnersBody>,
) -> Result<Response, ApiError> {
    set(&state, &caller, OwnedKind::Skill, &name, body).await
}

/// `PUT /v1/owners/categories/{category}`: names the owners of every skill in a category
/// and in the categories under it.
pub async fn set_category(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(category): ApiPath<String>,
    ApiJson(body): ApiJson<OwnersBody>,
) -> Result<Response, ApiError> {
    set(&state, &caller, OwnedKind::Category, &category, body).await
}
