//! The patch endpoints: submit, list, read, approve, reject, close as a duplicate,
//! resolve a conflict, decide many at once, withdraw, and the organisation's patch
//! policy. Handlers parse, call `app::patches`, and map.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::json_ok;
use super::wire::{self, ToWire};
use crate::AppState;
use crate::access::Caller;
use crate::app::patches::{self, AgentInfo, Submission, conversation, rounds};
use crate::app::policy;
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiBytes, ApiJson, ApiPath, ApiQuery};
use cairn_wire::Page;

/// Body of `POST /v1/patches`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitBody {
    /// The skill to change (or create).
    skill: String,
    /// The revision the ops were made against; omit (or `null`) to create a skill.
    #[serde(default)]
    base_revision: Option<i32>,
    /// The ops (docs/PATCHING.md), checked by the pipeline's validate stage (which
    /// names the op and field at fault).
    #[schemars(with = "Vec<cairn_pipeline::ops::Op>")]
    ops: serde_json::Value,
    /// One line: what the lesson is.
    #[serde(default)]
    summary: String,
    /// Why: what went wrong without it.
    #[serde(default)]
    rationale: String,
    /// The agent that wrote it (self-reported).
    #[serde(default)]
    agent: AgentInfo,
    /// For a new skill: its category.
    #[serde(default)]
    category: Option<String>,
    /// The open patch (by the same author) this one carries on.
    #[serde(default)]
    supersedes: Option<String>,
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
        supersedes: body.supersedes.as_deref().map(patches::parse_id).transpose()?,
    };
    let record = patches::submit(&state, &caller.principal, &caller.actor(), submission).await?;
    Ok((StatusCode::CREATED, axum::Json(record.to_wire())).into_response())
}

/// Query of `GET /v1/patches`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListQuery {
    /// One state, several separated by commas, or `open` (pending_review, blocked,
    /// conflict).
    status: Option<String>,
    /// Only patches to this skill.
    skill: Option<String>,
    /// Only patches by this member (handle).
    author: Option<String>,
    /// Only patches whose scan reached this verdict (`safe`, `caution`, `dangerous`).
    verdict: Option<String>,
    /// Only patches whose skill name contains this text (any case).
    skill_contains: Option<String>,
    /// Only patches whose author's handle contains this text (any case).
    author_contains: Option<String>,
    /// Only patches that ask this member for review (`me`, or a handle): open, to a skill
    /// they own (see `GET /v1/owners`), written by someone else, not waiting for their
    /// author's answer.
    review_requested: Option<String>,
    /// The order: `newest` (default), `oldest` (longest waiting first), `size` (most
    /// changed lines first) or `verdict` (worst scan verdict first).
    sort: Option<String>,
    /// Paging.
    #[serde(flatten)]
    page: extract::PageQuery,
}

/// `GET /v1/patches`: the organisation's patches, newest first, by state and skill.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Response, ApiError> {
    let listing = patches::Listing {
        limit: Some(query.page.limit()?),
        statuses: patches::status_filter(query.status.as_deref()),
        skill: query.skill.filter(|s| !s.is_empty()),
        author: query.author.filter(|s| !s.is_empty()),
        verdict: query.verdict.filter(|s| !s.is_empty()),
        skill_contains: query.skill_contains,
        author_contains: query.author_contains,
        review_requested: query.review_requested,
        sort: query.sort,
        cursor: query.page.cursor,
    };
    let (rows, next_cursor) = patches::list(&state, &caller.principal, listing).await?;
    Ok(json_ok(Page {
        items: rows.into_iter().map(wire::patch_item).collect(),
        next_cursor,
    }))
}

/// `GET /v1/patches/{id}`: one patch with its ops, reports, diff and conversation.
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let review = conversation::read(&state, &caller.principal, patches::parse_id(&id)?).await?;
    Ok(json_ok(review.to_wire()))
}

/// Body of `POST /v1/patches/{id}/comments`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentBody {
    /// The text (Markdown, at most 10,000 characters).
    body: String,
    /// Answer this thread (the id of its first comment) instead of starting one.
    #[serde(default)]
    reply_to: Option<i64>,
    /// Start a thread on this file of the patch's diff (with `line`).
    #[serde(default)]
    file: Option<String>,
    /// Its first line, as the diff numbers it.
    #[serde(default)]
    line: Option<i32>,
    /// Its last line (default: `line`).
    #[serde(default)]
    end_line: Option<i32>,
    /// `new` (default: lines of the patch's result) or `old` (lines it removes).
    #[serde(default)]
    side: Option<String>,
    /// The round you read (the patch's `round`); a newer round sent meanwhile makes this
    /// a 409, so a comment never lands on lines it was not written about.
    #[serde(default)]
    round: Option<i32>,
}

/// `POST /v1/patches/{id}/comments`: adds a comment (201).
pub async fn comment(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<CommentBody>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let anchor = match (body.file, body.line) {
        (Some(file), Some(line)) => Some(conversation::AnchorRequest {
            file,
            line,
            end_line: body.end_line,
            side: body.side,
        }),
        (None, None) if body.end_line.is_none() && body.side.is_none() => None,
        _ => {
            return Err(ApiError::bad_request(
                "a comment on lines needs both \"file\" and \"line\" (and optionally \"end_line\", \"side\"); leave all four out to comment on the patch",
            ));
        }
    };
    let remark = conversation::Remark {
        body: &body.body,
        reply_to: body.reply_to,
        anchor,
        round: body.round,
    };
    let stored = conversation::comment(&state, &caller.principal, &caller.actor(), id, remark).await?;
    Ok((StatusCode::CREATED, axum::Json(stored.to_wire())).into_response())
}

/// Body of `POST /v1/patches/{id}/revisions`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionBody {
    /// The revision the ops were made against (omit only for a patch creating a skill).
    #[serde(default)]
    base_revision: Option<i32>,
    /// The whole change again, as ops against `base_revision` (docs/PATCHING.md).
    #[schemars(with = "Vec<cairn_pipeline::ops::Op>")]
    ops: serde_json::Value,
    /// A new summary (default: the last round's).
    #[serde(default)]
    summary: Option<String>,
    /// A new rationale, e.g. how the review was answered (default: the last round's).
    #[serde(default)]
    rationale: Option<String>,
    /// The agent that wrote this round (default: the last round's).
    #[serde(default)]
    agent: Option<AgentInfo>,
}

/// `POST /v1/patches/{id}/revisions`: the author's next round of an open patch, through
/// every stage again; a round the pipeline refuses is answered 422 and changes nothing.
pub async fn revise(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<RevisionBody>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let revision = rounds::Revision {
        base_revision: body.base_revision,
        ops: body.ops,
        summary: body.summary,
        rationale: body.rationale,
        agent: body.agent,
    };
    rounds::revise(&state, &caller.principal, &caller.actor(), id, revision).await?;
    let review = conversation::read(&state, &caller.principal, id).await?;
    Ok(json_ok(review.to_wire()))
}

/// Body of `POST /v1/patches/{id}/request-changes`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestChangesBody {
    /// What the author should change (Markdown, required).
    comment: String,
    /// The round you reviewed (the patch's `round`); a newer round sent meanwhile makes
    /// this a 409: review it first.
    #[serde(default)]
    round: Option<i32>,
}

/// `POST /v1/patches/{id}/request-changes`: keeps the patch open, waiting for its author.
pub async fn request_changes(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<RequestChangesBody>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let review = conversation::request_changes(
        &state,
        &caller.principal,
        &caller.actor(),
        id,
        &body.comment,
        body.round,
    )
    .await?;
    Ok(json_ok(review.to_wire()))
}

/// Body of approve, reject and duplicate.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionBody {
    #[serde(default)]
    comment: Option<String>,
    /// Approve: also close the other open patches of its duplicate group.
    #[serde(default)]
    close_duplicates: bool,
    /// Approve: close only these of its duplicates (those the reviewer saw).
    #[serde(default)]
    duplicates: Option<Vec<String>>,
    /// Duplicate: the patch this one duplicates (default: the one its mark names).
    #[serde(default)]
    of: Option<String>,
    /// Approve: the round you reviewed; a newer one is refused (409) instead of published.
    #[serde(default)]
    round: Option<i32>,
}

/// `POST /v1/patches/{id}/approve`: publishes the patch as the skill's next revision.
pub async fn approve(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let body = decision(&body)?;
    if body.of.is_some() {
        return Err(ApiError::bad_request(
            "\"of\" belongs to POST /v1/patches/{id}/duplicate: approve takes a comment and close_duplicates",
        ));
    }
    let shown = body
        .duplicates
        .iter()
        .flatten()
        .map(|id| patches::parse_id(id))
        .collect::<Result<Vec<_>, _>>()?;
    let how = patches::Approve {
        comment: body.comment.as_deref(),
        close_duplicates: match (&body.duplicates, body.close_duplicates) {
            (Some(_), _) => patches::CloseDuplicates::These(&shown),
            (None, true) => patches::CloseDuplicates::All,
            (None, false) => patches::CloseDuplicates::None,
        },
        round: body.round,
    };
    let record = patches::approve(&state, &caller.principal, &caller.actor(), id, how).await?;
    Ok(json_ok(record.to_wire()))
}

/// `POST /v1/patches/{id}/duplicate`: closes the patch as a duplicate of another patch of
/// the same skill (`{"of": id}`, default: the one its duplicate mark names).
pub async fn close_duplicate(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let body = decision(&body)?;
    let of = body.of.as_deref().map(patches::parse_id).transpose()?;
    let record = patches::close_duplicate(
        &state,
        &caller.principal,
        &caller.actor(),
        id,
        of,
        body.comment.as_deref(),
    )
    .await?;
    Ok(json_ok(record.to_wire()))
}

/// Body of `POST /v1/patches/{id}/resolve`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveBody {
    /// Path → the resolved text of every file in conflict.
    files: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    comment: Option<String>,
    /// Approve the resolved patch at once.
    #[serde(default)]
    approve: bool,
}

/// `POST /v1/patches/{id}/resolve`: a reviewer resolves a conflict by hand; the answer
/// is the new patch (201), which supersedes this one and went through every stage.
pub async fn resolve(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<ResolveBody>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let resolution = patches::Resolution {
        files: body.files,
        comment: body.comment,
        approve: body.approve,
    };
    let record = patches::resolve(&state, &caller.principal, &caller.actor(), id, resolution).await?;
    Ok((StatusCode::CREATED, axum::Json(record.to_wire())).into_response())
}

/// Body of `POST /v1/patches/review`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchBody {
    /// `approve` or `reject`.
    #[schemars(extend("enum" = ["approve", "reject"]))]
    action: String,
    /// The patches, decided in this order.
    ids: Vec<String>,
    #[serde(default)]
    comment: Option<String>,
    #[serde(default)]
    close_duplicates: bool,
}

/// `POST /v1/patches/review`: approves or rejects several patches, one after another in
/// the order given; `{"results": [{"id", "patch" | "error"}]}` (200 even when some fail).
pub async fn review_batch(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<BatchBody>,
) -> Result<Response, ApiError> {
    let ids = body
        .ids
        .iter()
        .map(|id| patches::parse_id(id))
        .collect::<Result<Vec<_>, _>>()?;
    let action = match body.action.as_str() {
        "approve" => patches::BatchAction::Approve {
            comment: body.comment,
            close_duplicates: body.close_duplicates,
            shown: Vec::new(),
        },
        "reject" => {
            if body.close_duplicates {
                return Err(ApiError::bad_request(
                    "close_duplicates goes with approve: a rejection closes only the patches named",
                ));
            }
            patches::BatchAction::Reject {
                comment: body.comment.unwrap_or_default(),
            }
        }
        other => {
            return Err(ApiError::bad_request(format!(
                "action '{other}' is not a batch decision: use approve or reject"
            )));
        }
    };
    let outcomes = patches::review_batch(&state, &caller.principal, &caller.actor(), &ids, &action).await?;
    let results = outcomes
        .into_iter()
        .map(|o| match o.result {
            Ok(record) => cairn_wire::BatchResult {
                id: o.id.to_string(),
                patch: Some(record.to_wire()),
                error: None,
            },
            Err(e) => {
                let e = ApiError::from(e);
                cairn_wire::BatchResult {
                    id: o.id.to_string(),
                    patch: None,
                    error: Some(cairn_wire::ErrorDetail {
                        code: e.code().to_owned(),
                        message: e.message().to_owned(),
                    }),
                }
            }
        })
        .collect();
    Ok(json_ok(cairn_wire::BatchResults { results }))
}

/// `POST /v1/patches/{id}/reject`: closes the patch; the comment is required.
pub async fn reject(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let body = decision(&body)?;
    if body.close_duplicates || body.of.is_some() || body.duplicates.is_some() || body.round.is_some() {
        return Err(ApiError::bad_request(
            "reject takes only a comment: close duplicates with approve, or POST …/duplicate",
        ));
    }
    let comment = body.comment.unwrap_or_default();
    let record = patches::reject(&state, &caller.principal, &caller.actor(), id, &comment).await?;
    Ok(json_ok(record.to_wire()))
}

/// `POST /v1/patches/{id}/withdraw`: the author takes the patch back.
pub async fn withdraw(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let record = patches::withdraw(&state, &caller.principal, &caller.actor(), id).await?;
    Ok(json_ok(record.to_wire()))
}

/// `GET /v1/patch-policy`: who may approve what in this organisation.
pub async fn get_policy(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    Ok(json_ok(policy::read(&state.store, caller.principal.org_id).await?))
}

/// `PUT /v1/patch-policy`: replaces the policy (admins).
pub async fn put_policy(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(policy): ApiJson<cairn_pipeline::policy::Policy>,
) -> Result<Response, ApiError> {
    let saved = policy::replace(&state.store, caller.principal.org_id, policy, &caller.actor()).await?;
    Ok(json_ok(saved))
}

/// The optional `{"comment": …}` body of approve and reject (an empty body is none).
fn decision(body: &[u8]) -> Result<DecisionBody, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(DecisionBody::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body is not valid: {e}; send {{\"comment\": \"…\"}} (approve also takes \"close_duplicates\", duplicate \"of\") or nothing"
        ))
    })
}
