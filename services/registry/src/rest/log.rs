//! Handlers of the transparency log and attestations (docs/PROVENANCE.md).

use axum::Extension;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use cairn_wire::AttestationBatchRequest;
use serde::Deserialize;

use super::json_ok;
use crate::AppState;
use crate::app::provenance;
use crate::auth::Principal;
use crate::error::ApiError;
use crate::error::parse as extract;
use crate::error::parse::{ApiJson, ApiPath, ApiQuery};

/// `GET /v1/log/checkpoint`: the log's size and root, signed (C2SP signed note, text).
pub async fn checkpoint(State(state): State<AppState>) -> Result<Response, ApiError> {
    let note = provenance::checkpoint(&state).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        note,
    )
        .into_response())
}

/// `GET /v1/log/entries/{index}`: one entry (version events of the caller's organisation,
/// key events).
pub async fn entry(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(index): ApiPath<String>,
) -> Result<Response, ApiError> {
    let index = log_index("index", &index)?;
    Ok(json_ok(provenance::entry(&state, principal.org_id, index).await?))
}

/// Query of `GET /v1/log/proof/inclusion`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct InclusionQuery {
    /// The entry's index.
    index: u64,
    /// The tree size to prove against (default: the current size).
    size: Option<u64>,
}

/// `GET /v1/log/proof/inclusion?index=&size=`.
pub async fn inclusion(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<InclusionQuery>,
) -> Result<Response, ApiError> {
    Ok(json_ok(provenance::inclusion(&state, query.index, query.size).await?))
}

/// Query of `GET /v1/log/proof/consistency`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ConsistencyQuery {
    /// The older tree size (at least 1).
    from: u64,
    /// The newer tree size (default: the current size).
    to: Option<u64>,
}

/// `GET /v1/log/proof/consistency?from=&to=`.
pub async fn consistency(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ConsistencyQuery>,
) -> Result<Response, ApiError> {
    Ok(json_ok(provenance::consistency(&state, query.from, query.to).await?))
}

/// Query of `GET /v1/skills/{name}/versions/{rev}/attestation`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AttestationQuery {
    /// Prove against the tree of this many entries (a pinned checkpoint's size);
    /// default: the current tree.
    size: Option<u64>,
}

/// `GET /v1/skills/{name}/versions/{rev|latest}/attestation[?size=]`.
pub async fn attestation(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath((name, rev)): ApiPath<(String, String)>,
    ApiQuery(query): ApiQuery<AttestationQuery>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let selector = extract::revision(&rev)?;
    Ok(json_ok(
        provenance::attestation(&state, principal.org_id, &name, selector, query.size).await?,
    ))
}

/// `POST /v1/attestations/batch`: many versions' attestations against one checkpoint.
pub async fn attestations(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiJson(request): ApiJson<AttestationBatchRequest>,
) -> Result<Response, ApiError> {
    Ok(json_ok(
        provenance::attestations(&state, principal.org_id, &request).await?,
    ))
}

/// `GET /.well-known/cairn/keys`: the registry's public keys and their status.
pub async fn keys(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(json_ok(provenance::keys(&state).await?))
}

fn log_index(what: &str, text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>()
        .ok()
        .filter(|_| !text.starts_with('+'))
        .ok_or_else(|| ApiError::bad_request(format!("'{text}' is not a log {what}: use a number from 0")))
}
