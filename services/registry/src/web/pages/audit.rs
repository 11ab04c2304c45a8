//! The audit log (admins): every mutation, newest first, filtered by actor, action,
//! target and time.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::{given, when};
use crate::AppState;
use crate::app::audit::{self, AuditFilter};
use crate::web::Chrome;
use crate::web::error::{WebError, encode};
use crate::web::session::Viewer;

/// Entries per page.
const PAGE: i64 = 100;

/// Query (filters) of the audit page.
#[derive(Debug, Default, Deserialize)]
pub struct AuditQuery {
    actor: Option<String>,
    action: Option<String>,
    target: Option<String>,
    since: Option<String>,
    until: Option<String>,
    before: Option<String>,
}

/// One entry.
#[derive(Debug)]
pub struct EntryRow {
    at: String,
    actor: String,
    action: String,
    target: String,
    details: String,
    request_id: String,
    client: String,
}

/// The audit page.
#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage {
    chrome: Chrome,
    notice: Option<String>,
    actor: String,
    action: String,
    target: String,
    since: String,
    until: String,
    rows: Vec<EntryRow>,
    next_page: Option<String>,
}

/// `GET /admin/audit`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<AuditQuery>,
) -> Result<Response, WebError> {
    let (actor, action, target) = (given(query.actor), given(query.action), given(query.target));
    let (since_raw, until_raw) = (given(query.since), given(query.until));
    let filter = AuditFilter {
        actor: actor.clone(),
        action: action.clone(),
        target: target.clone(),
        since: since_raw.clone(),
        until: until_raw.clone(),
        cursor: given(query.before),
    };
    let listed = audit::list(&state.store, viewer.principal.org_id, filter, PAGE).await?;
    let (rows, next) = (listed.entries, listed.next_cursor);
    let (actor, action, target) = (
        actor.unwrap_or_default(),
        action.unwrap_or_default(),
        target.unwrap_or_default(),
    );
    let (since, until) = (since_raw.unwrap_or_default(), until_raw.unwrap_or_default());
    let filters = [
        ("actor", &actor),
        ("action", &action),
        ("target", &target),
        ("since", &since),
        ("until", &until),
    ]
    .iter()
    .map(|(k, v)| format!("{k}={}", encode(v)))
    .collect::<Vec<_>>()
    .join("&");
    let page = AuditPage {
        chrome: Chrome::new(&viewer, "audit"),
        notice: None,
        rows: rows
            .into_iter()
            .map(|e| EntryRow {
                at: when(&e.created_at),
                actor: e.actor,
                action: e.action,
                target: e.target,
                details: serde_json::to_string(&e.details.0).unwrap_or_default(),
                request_id: e.request_id.unwrap_or_default(),
                client: e.client_addr.unwrap_or_default(),
            })
            .collect(),
        next_page: next.map(|c| format!("/admin/audit?{filters}&before={c}")),
        actor,
        action,
        target,
        since,
        until,
    };
    crate::web::page(&page)
}
