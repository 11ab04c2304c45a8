//! Security (admins): imported skills held in quarantine because they scan `dangerous`
//! (read the findings, then release or delete each), and rescanning skills after the
//! scanner's rules changed.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

use super::{back_with, given, when};
use crate::AppState;
use crate::app::patches::findings::{self, RescanReport};
use crate::app::quarantine;
use crate::web::error::WebError;
use crate::web::render::diff::Finding;
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Query of the security page.
#[derive(Debug, Default, Deserialize)]
pub struct SecurityQuery {
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One quarantined import.
#[derive(Debug)]
pub struct QuarantineRow {
    id: String,
    name: String,
    category: String,
    path: String,
    imported: String,
    imported_by: String,
    files: usize,
    findings: Vec<Finding>,
}

/// A latest version that is not `safe`, in a rescan's result.
#[derive(Debug)]
pub struct RescanRow {
    skill: String,
    revision: i32,
    verdict: String,
    findings: Vec<Finding>,
}

/// A rescan's result as shown.
#[derive(Debug)]
pub struct RescanView {
    scope: String,
    skills: usize,
    versions_scanned: usize,
    patches_rescanned: usize,
    versions: Vec<RescanRow>,
    changed: Vec<(String, String, String, String)>,
    quarantine_rescanned: usize,
    quarantine_changed: Vec<String>,
    failed: Vec<String>,
}

/// The security page.
#[derive(Template)]
#[template(path = "security.html")]
struct SecurityPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    quarantined: Vec<QuarantineRow>,
    rescan: Option<RescanView>,
}

async fn render(
    state: &AppState,
    viewer: &Viewer,
    query: SecurityQuery,
    rescan: Option<RescanView>,
) -> Result<Response, WebError> {
    let quarantined = quarantine::list(state, &viewer.principal).await?;
    let page = SecurityPage {
        chrome: Chrome::new(viewer, "security"),
        notice: query.flash.notice(state),
        error: query.flash.error(state),
        quarantined: quarantined
            .iter()
            .map(|q| QuarantineRow {
                id: q.id.to_string(),
                name: q.name.clone(),
                category: q.category.clone().unwrap_or_default(),
                path: q.source_path.clone(),
                imported: when(&q.created_at),
                imported_by: q.imported_by.clone(),
                files: q.manifest.0.as_array().map_or(0, Vec::len),
                findings: quarantine::scan_of(q).findings.iter().map(Finding::from).collect(),
            })
            .collect(),
        rescan,
    };
    crate::web::page(&page)
}

/// `GET /admin/security`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<SecurityQuery>,
) -> Result<Response, WebError> {
    render(&state, &viewer, query, None).await
}

/// The rescan form: one skill, or every skill when empty.
#[derive(Debug, Deserialize)]
pub struct RescanForm {
    #[serde(default)]
    skill: Option<String>,
}

/// `POST /admin/security/rescan`: rescans and shows what it found.
pub async fn rescan(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<RescanForm>,
) -> Result<Response, WebError> {
    let skill = match given(form.skill) {
        Some(raw) => match cairn_skill::SkillName::parse(raw.trim()) {
            Ok(name) => Some(name),
            Err(e) => {
                return back_with(
                    &state,
                    "/admin/security",
                    WebError::bad_request(format!("{e}: check the skill's name")),
                );
            }
        },
        None => None,
    };
    match findings::rescan(&state, &viewer.principal, &viewer.actor(), skill.as_ref()).await {
        Ok(report) => {
            let scope = skill.map_or_else(|| "every skill".to_owned(), |s| format!("skill {s}"));
            render(&state, &viewer, SecurityQuery::default(), Some(view(scope, report))).await
        }
        Err(e) => back_with(&state, "/admin/security", e),
    }
}

fn view(scope: String, report: RescanReport) -> RescanView {
    RescanView {
        scope,
        skills: report.skills,
        versions_scanned: report.versions_scanned,
        patches_rescanned: report.patches_rescanned,
        versions: report
            .versions
            .into_iter()
            .map(|v| RescanRow {
                skill: v.skill,
                revision: v.revision,
                verdict: v.verdict.as_str().to_owned(),
                findings: v.findings.iter().map(Finding::from).collect(),
            })
            .collect(),
        changed: report
            .patches_changed
            .into_iter()
            .map(|c| {
                (
                    c.id.to_string(),
                    c.skill,
                    c.from.replace('_', " "),
                    c.to.replace('_', " "),
                )
            })
            .collect(),
        quarantine_rescanned: report.quarantine_rescanned,
        quarantine_changed: report.quarantine_changed,
        failed: report.failed,
    }
}

/// The release form: why the admin trusts it.
#[derive(Debug, Deserialize)]
pub struct ReleaseForm {
    #[serde(default)]
    reason: String,
}

/// `POST /admin/security/quarantine/{id}/release`: publishes a quarantined import.
pub async fn release(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<ReleaseForm>,
) -> Result<Response, WebError> {
    let id = quarantine_id(&id)?;
    match quarantine::release(&state, &viewer.principal, &viewer.actor(), id, &form.reason).await {
        Ok((record, outcome)) => {
            let what = match outcome {
                cairn_store::PublishOutcome::Created { revision, .. } => format!("published as revision {revision}"),
                cairn_store::PublishOutcome::Unchanged { revision, .. } => {
                    format!("already the latest version (revision {revision})")
                }
            };
            Ok(done(
                &state,
                "/admin/security",
                &format!(
                    "Released {}: {what}; its findings are dismissed with your reason.",
                    record.name
                ),
            ))
        }
        Err(e) => back_with(&state, "/admin/security", e),
    }
}

/// The delete form (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct DeleteForm {}

/// `POST /admin/security/quarantine/{id}/delete`: deletes a quarantined import.
pub async fn delete(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(_): Verified<DeleteForm>,
) -> Result<Response, WebError> {
    let id = quarantine_id(&id)?;
    match quarantine::delete(&state, &viewer.principal, &viewer.actor(), id).await {
        Ok(record) => Ok(done(
            &state,
            "/admin/security",
            &format!("Deleted the quarantined import of {}.", record.name),
        )),
        Err(e) => back_with(&state, "/admin/security", e),
    }
}

fn quarantine_id(raw: &str) -> Result<Uuid, WebError> {
    Uuid::parse_str(raw)
        .map_err(|_| WebError::bad_request(format!("'{raw}' is not a quarantine id: pick the skill from the list.")))
}
