//! Handling the scanner's false positives: dismiss a finding of a patch, list and revoke
//! a skill's dismissals, rescan skills (admins), and the import quarantine (admins).
//! Handlers parse, call `app::patches::findings` or `app::quarantine`, and map.

use axum::extract::State;
use axum::response::Response;
use cairn_wire::{Dismissed, Items, Released};
use serde::Deserialize;

use super::json_ok;
use super::wire::ToWire;
use crate::AppState;
use crate::access::Caller;
use crate::app::patches::{self, findings};
use crate::app::quarantine;
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiBytes, ApiJson, ApiPath};

/// Body of `POST /v1/patches/{id}/findings/dismiss`: the finding, as the patch's scan
/// names it, and why it is a false positive.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DismissBody {
    rule: String,
    file: String,
    line: usize,
    reason: String,
}

/// `POST /v1/patches/{id}/findings/dismiss`: dismisses one finding (reviewers; high and
/// critical findings: admins) and scans the patch again; answers the dismissal and the
/// patch as it stands now.
pub async fn dismiss(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<DismissBody>,
) -> Result<Response, ApiError> {
    let id = patches::parse_id(&id)?;
    let how = findings::Dismiss {
        rule: &body.rule,
        file: &body.file,
        line: body.line,
        reason: &body.reason,
    };
    let (dismissal, record) = findings::dismiss_finding(&state, &caller.principal, &caller.actor(), id, how).await?;
    Ok(json_ok(Dismissed {
        dismissal: dismissal.to_wire(),
        patch: record.to_wire(),
    }))
}

/// `GET /v1/skills/{name}/dismissals`: the skill's dismissals, revoked ones included,
/// newest first.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(name): ApiPath<String>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let items = findings::dismissals(&state, &caller.principal, &name).await?;
    Ok(json_ok(Items {
        items: items.into_iter().map(ToWire::to_wire).collect::<Vec<_>>(),
    }))
}

/// `DELETE /v1/skills/{name}/dismissals/{id}`: revokes a dismissal; the finding counts
/// again and the skill's open patches are scanned again.
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath((name, id)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("'{id}' is not a dismissal id: ids are numbers")))?;
    let revoked = findings::revoke_dismissal(&state, &caller.principal, &caller.actor(), &name, id).await?;
    Ok(json_ok(revoked.to_wire()))
}

/// Body of `POST /v1/admin/rescan`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RescanBody {
    /// One skill; omitted: every skill.
    #[serde(default)]
    skill: Option<String>,
}

/// `POST /v1/admin/rescan`: scans one skill or every skill again with the rules this
/// registry runs now (latest versions and open patches).
pub async fn rescan(
    State(state): State<AppState>,
    caller: Caller,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    // An empty body rescans every skill.
    let body: RescanBody = if body.iter().all(u8::is_ascii_whitespace) {
        RescanBody::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            ApiError::bad_request(format!(
                "the body is not a rescan request ({e}): send {{\"skill\": \"name\"}}, or nothing to rescan every skill"
            ))
        })?
    };
    let skill = body.skill.as_deref().map(extract::skill_name).transpose()?;
    let report = findings::rescan(&state, &caller.principal, &caller.actor(), skill.as_ref()).await?;
    Ok(json_ok(report.to_wire()))
}

/// `GET /v1/admin/quarantine`: imported skills held back as dangerous, oldest first.
pub async fn quarantine_list(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let items = quarantine::list(&state, &caller.principal).await?;
    Ok(json_ok(Items {
        items: items.into_iter().map(ToWire::to_wire).collect::<Vec<_>>(),
    }))
}

/// `GET /v1/admin/quarantine/{id}`: one quarantined import with its files and findings.
pub async fn quarantine_get(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = quarantine_id(&id)?;
    Ok(json_ok(quarantine::get(&state, &caller.principal, id).await?.to_wire()))
}

/// Body of `POST /v1/admin/quarantine/{id}/release`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseBody {
    reason: String,
}

/// `POST /v1/admin/quarantine/{id}/release`: publishes a quarantined import; its
/// findings are dismissed with the reason.
pub async fn quarantine_release(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<ReleaseBody>,
) -> Result<Response, ApiError> {
    let id = quarantine_id(&id)?;
    let (record, outcome) = quarantine::release(&state, &caller.principal, &caller.actor(), id, &body.reason).await?;
    let (revision, created) = match outcome {
        cairn_store::PublishOutcome::Created { revision, .. } => (revision, true),
        cairn_store::PublishOutcome::Unchanged { revision, .. } => (revision, false),
    };
    Ok(json_ok(Released {
        name: record.name,
        revision,
        created,
    }))
}

/// `DELETE /v1/admin/quarantine/{id}`: deletes a quarantined import.
pub async fn quarantine_delete(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = quarantine_id(&id)?;
    let deleted = quarantine::delete(&state, &caller.principal, &caller.actor(), id).await?;
    Ok(json_ok(deleted.to_wire()))
}

fn quarantine_id(raw: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(raw).map_err(|_| {
        ApiError::bad_request(format!(
            "'{raw}' is not a quarantine id: ids are UUIDs, as GET /v1/admin/quarantine lists them"
        ))
    })
}
