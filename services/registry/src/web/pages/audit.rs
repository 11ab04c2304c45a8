//! The audit log (admins): every mutation, newest first, filtered by actor, action,
//! target and time.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;

use super::{given, when};
use crate::AppState;
use crate::auth::scopes::Scope;
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

/// A time from the filter: RFC 3339, or the browser's `datetime-local` (read as UTC).
fn time(name: &str, raw: Option<&str>) -> Result<Option<DateTime<Utc>>, WebError> {
    let Some(raw) = raw else { return Ok(None) };
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(Some(t.with_timezone(&Utc)));
    }
    for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(raw, format) {
            return Ok(Some(t.and_utc()));
        }
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).map(|t| t.and_utc()));
    }
    Err(WebError::bad_request(format!(
        "'{raw}' in {name} is not a time: write it like 2026-11-29T12:00 (UTC) or 2026-11-29T12:00:00Z."
    )))
}

/// `GET /admin/audit`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<AuditQuery>,
) -> Result<Response, WebError> {
    viewer.require(Scope::Admin)?;
    let (actor, action, target) = (given(query.actor), given(query.action), given(query.target));
    let (since_raw, until_raw) = (given(query.since), given(query.until));
    let before_id =
        match given(query.before) {
            None => None,
            Some(raw) => Some(raw.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
                WebError::bad_request("That page link is not valid: start again from the first page.")
            })?),
        };
    let mut rows = state
        .store
        .list_audit(
            viewer.principal.org_id,
            &cairn_store::AuditQuery {
                actor: actor.clone(),
                action: action.clone(),
                target: target.clone(),
                since: time("since", since_raw.as_deref())?,
                until: time("until", until_raw.as_deref())?,
                before_id,
                limit: PAGE + 1,
            },
        )
        .await?;
    let next = crate::app::paging::cut_page(&mut rows, PAGE, |e| e.id.to_string());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_times_accept_rfc3339_and_browser_input() {
        let t = time("since", Some("2026-11-29T12:00:00Z")).unwrap().unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-29T12:00:00+00:00");
        assert_eq!(time("since", Some("2026-11-29T12:00")).unwrap(), Some(t));
        assert!(time("since", Some("2026-11-29")).unwrap().is_some());
        assert!(time("since", Some("yesterday")).is_err());
        assert_eq!(time("since", None).unwrap(), None);
    }
}
