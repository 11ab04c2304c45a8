//! The patch endpoints: submit, list, read, approve, reject, withdraw, and the
//! organisation's patch policy. Handlers parse, call `app::patches`, and map.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::error::ApiError;
use super::extract::{self, ApiJson, ApiPath, ApiQuery};
use super::guard::Caller;
use super::json_ok;
use super::wire::{Page, PatchBody, PatchItem};
use crate::AppState;
use crate::app::patches::{self, AgentInfo, PatchError, Submission};

/// Body of `POST /v1/patches`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubmitBody {
    /// The skill to change (or create).
    skill: String,
    /// The revision the ops were made against; omit (or `null`) to create a skill.
    #[serde(default)]
    base_revision: Option<i32>,
    /// The ops (DESIGN §4).
    ops: serde_json::Value,
    #[serde(default)]
    summary: String,
    #[serde(default)]
    rationale: String,
    #[serde(default)]
    agent: AgentInfo,
    /// For a new skill: its category.
    #[serde(default)]
    category: Option<String>,
}

/// `POST /v1/patches`: runs the pipeline and records the patch (201). A patch the
/// pipeline refuses (malformed ops, a match it is not sure of, an invalid result) is
/// answered 422 and not stored.
pub async fn submit(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<SubmitBody>,
) -> Result<Response, ApiError> {
    let submission = Submission {
        skill: body.skill,
        base_revision: body.base_revision,
        ops: body.ops,
        summary: body.summary,
        rationale: body.rationale,
        agent: body.agent,
        category: body.category,
    };
    let record = patches::submit(&state, &caller.principal, &caller.actor(), submission).await?;
    Ok((StatusCode::CREATED, axum::Json(PatchBody::from(record))).into_response())
}

/// Query of `GET /v1/patches`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    /// One state, several separated by commas, or `open` (pending_review, blocked,
    /// conflict).
    status: Option<String>,
    skill: Option<String>,
    author: Option<String>,
    verdict: Option<String>,
    cursor: Option<String>,
    limit: Option<String>,
}

/// `GET /v1/patches`: the organisation's patches, newest first, by state and skill.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Response, ApiError> {
    let listing = patches::Listing {
        limit: Some(extract::limit(query.limit.as_deref())?),
        statuses: patches::status_filter(query.status.as_deref()),
        skill: query.skill.filter(|s| !s.is_empty()),
        author: query.author.filter(|s| !s.is_empty()),
        verdict: query.verdict.filter(|s| !s.is_empty()),
        cursor: query.cursor,
    };
    let (rows, next_cursor) = patches::list(&state, &caller.principal, listing).await?;
    Ok(json_ok(Page {
        items: rows.into_iter().map(PatchItem::from).collect(),
        next_cursor,
    }))
}

/// `GET /v1/patches/{id}`: one patch with its ops, reports and diff.
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let record = patches::get(&state, &caller.principal, patches::parse_id(&id)?).await?;
    Ok(json_ok(PatchBody::from(record)))
}

/// Body of approve and reject.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionBody {
    #[serde(default)]
    comment: Option<String>,
}

/// `POST /v1/patches/{id}/approve`: publishes the patch as the skill's next revision.
pub async fn approve(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let comment = decision(&body)?.comment;
    let record = patches::approve(&state, &caller.principal, &caller.actor(), id, comment.as_deref()).await?;
    Ok(json_ok(PatchBody::from(record)))
}

/// `POST /v1/patches/{id}/reject`: closes the patch; the comment is required.
pub async fn reject(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let comment = decision(&body)?.comment.unwrap_or_default();
    let record = patches::reject(&state, &caller.principal, &caller.actor(), id, &comment).await?;
    Ok(json_ok(PatchBody::from(record)))
}

/// `POST /v1/patches/{id}/withdraw`: the author takes the patch back.
pub async fn withdraw(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let record = patches::withdraw(&state, &caller.principal, &caller.actor(), id).await?;
    Ok(json_ok(PatchBody::from(record)))
}

/// `GET /v1/patch-policy`: who may approve what in this organisation.
pub async fn get_policy(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let stored = state.store.patch_policy(caller.principal.org_id).await?;
    let policy: cairn_pipeline::policy::Policy = serde_json::from_value(stored).unwrap_or_default();
    Ok(json_ok(policy))
}

/// `PUT /v1/patch-policy`: replaces the policy (admins).
pub async fn put_policy(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(policy): ApiJson<cairn_pipeline::policy::Policy>,
) -> Result<Response, ApiError> {
    for handle in &policy.auto_approve_safe_from {
        state
            .store
            .user_by_handle(caller.principal.org_id, handle)
            .await
            .map_err(|e| ApiError::from(e).hint("auto_approve_safe_from lists user handles of this organisation"))?;
    }
    let value = serde_json::to_value(&policy).map_err(|e| ApiError::internal("serialising a policy", &e))?;
    state
        .store
        .set_patch_policy(caller.principal.org_id, &value, &caller.actor())
        .await?;
    Ok(json_ok(policy))
}

/// The optional `{"comment": …}` body of approve and reject (an empty body is none).
fn decision(body: &[u8]) -> Result<DecisionBody, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(DecisionBody::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body is not valid: {e}; send {{\"comment\": \"…\"}} or nothing"
        ))
    })
}

impl From<PatchError> for ApiError {
    fn from(error: PatchError) -> Self {
        match error {
            PatchError::Invalid(message) => ApiError::bad_request(message),
            PatchError::Refused(message) => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "patch_refused", message),
            PatchError::NotFound(message) => ApiError::not_found(message),
            PatchError::Forbidden(message) => ApiError::new(StatusCode::FORBIDDEN, "forbidden", message),
            PatchError::State(message) => ApiError::new(StatusCode::CONFLICT, "conflict", message),
            PatchError::Store(e) => e.into(),
            PatchError::Catalog(e) => e.into(),
            PatchError::Publish(e) => e.into(),
        }
    }
}
