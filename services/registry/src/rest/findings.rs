//! Handling the scanner's false positives: dismiss a finding of a patch, list and revoke
//! a skill's dismissals, rescan skills (admins), and the import quarantine (admins).
//! Handlers parse, call `app::patches::findings` or `app::quarantine`, and map.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::json_ok;
use super::wire::PatchBody;
use crate::AppState;
use crate::access::Caller;
use crate::app::patches::{self, findings};
use crate::app::quarantine;
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiJson, ApiPath};

/// Body of `POST /v1/patches/{id}/findings/dismiss`: the finding, as the patch's scan
/// names it, and why it is a false positive.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DismissBody {
    rule: String,
    file: String,
    line: usize,
    reason: String,
}

/// A dismissal on the wire.
#[derive(Debug, Serialize)]
pub struct DismissalBody {
    id: i64,
    skill: String,
    rule: String,
    file: String,
    excerpt: String,
    severity: String,
    reason: String,
    dismissed_by: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<uuid::Uuid>,
    created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    revoked_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revoked_by: Option<String>,
}

impl From<cairn_store::DismissalRecord> for DismissalBody {
    fn from(d: cairn_store::DismissalRecord) -> Self {
        let time = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        DismissalBody {
            id: d.id,
            skill: d.skill_name,
            rule: d.rule,
            file: d.file,
            excerpt: d.excerpt,
            severity: d.severity,
            reason: d.reason,
            dismissed_by: d.dismissed_by,
            patch: d.patch_id,
            created_at: time(d.created_at),
            revoked_at: d.revoked_at.map(time),
            revoked_by: d.revoked_by,
        }
    }
}

#[derive(Debug, Serialize)]
struct DismissedBody {
    dismissal: DismissalBody,
    patch: PatchBody,
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
    Ok(json_ok(DismissedBody {
        dismissal: dismissal.into(),
        patch: PatchBody::from(record),
    }))
}

#[derive(Debug, Serialize)]
struct DismissalList {
    items: Vec<DismissalBody>,
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
    Ok(json_ok(DismissalList {
        items: items.into_iter().map(DismissalBody::from).collect(),
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
    Ok(json_ok(DismissalBody::from(revoked)))
}

/// Body of `POST /v1/admin/rescan`.
#[derive(Debug, Default, Deserialize)]
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
    body: axum::body::Bytes,
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
    Ok(json_ok(report))
}

/// A quarantined import on the wire.
#[derive(Debug, Serialize)]
pub struct QuarantinedBody {
    id: uuid::Uuid,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<String>,
    digest: String,
    files: serde_json::Value,
    scan: cairn_scanner::Report,
    source_path: String,
    imported_by: String,
    created_at: String,
}

impl From<cairn_store::QuarantinedRecord> for QuarantinedBody {
    fn from(q: cairn_store::QuarantinedRecord) -> Self {
        QuarantinedBody {
            scan: quarantine::scan_of(&q),
            id: q.id,
            name: q.name,
            category: q.category,
            digest: q.digest,
            files: q.manifest.0,
            source_path: q.source_path,
            imported_by: q.imported_by,
            created_at: q.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }
}

#[derive(Debug, Serialize)]
struct QuarantineList {
    items: Vec<QuarantinedBody>,
}

/// `GET /v1/admin/quarantine`: imported skills held back as dangerous, oldest first.
pub async fn quarantine_list(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let items = quarantine::list(&state, &caller.principal).await?;
    Ok(json_ok(QuarantineList {
        items: items.into_iter().map(QuarantinedBody::from).collect(),
    }))
}

/// `GET /v1/admin/quarantine/{id}`: one quarantined import with its files and findings.
pub async fn quarantine_get(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = quarantine_id(&id)?;
    Ok(json_ok(QuarantinedBody::from(
        quarantine::get(&state, &caller.principal, id).await?,
    )))
}

/// Body of `POST /v1/admin/quarantine/{id}/release`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseBody {
    reason: String,
}

#[derive(Debug, Serialize)]
struct ReleasedBody {
    name: String,
    revision: i32,
    /// `false`: the released content already was the latest version.
    created: bool,
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
    Ok(json_ok(ReleasedBody {
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
    Ok(json_ok(QuarantinedBody::from(deleted)))
}

fn quarantine_id(raw: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(raw).map_err(|_| {
        ApiError::bad_request(format!(
            "'{raw}' is not a quarantine id: ids are UUIDs, as GET /v1/admin/quarantine lists them"
        ))
    })
}
