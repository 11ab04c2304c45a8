//! `GET /v1/audit`: the organisation's audit log (admins; the gate enforces it).

use axum::extract::State;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::json_ok;
use super::wire::{AuditItem, Page};
use crate::AppState;
use crate::access::Caller;
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiQuery};

/// Query of `GET /v1/audit`.
#[derive(Debug, Deserialize)]
pub struct AuditParams {
    /// Exactly this actor.
    actor: Option<String>,
    /// This action, or a family of actions ending with `.` (`token.`).
    action: Option<String>,
    /// Exactly this target.
    target: Option<String>,
    /// RFC 3339 time: at or after.
    since: Option<String>,
    /// RFC 3339 time: before.
    until: Option<String>,
    cursor: Option<String>,
    limit: Option<String>,
}

fn time(name: &str, raw: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    raw.filter(|r| !r.is_empty())
        .map(|r| {
            DateTime::parse_from_rfc3339(r)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| {
                    ApiError::bad_request(format!(
                        "{name} '{r}' is not a time: use RFC 3339, e.g. 2026-11-29T12:00:00Z"
                    ))
                })
        })
        .transpose()
}

/// `GET /v1/audit`: newest first, filtered, paged by `next_cursor`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(params): ApiQuery<AuditParams>,
) -> Result<Response, ApiError> {
    let limit = extract::limit(params.limit.as_deref())?;
    let before_id = match params.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(c.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
            ApiError::bad_request(format!(
                "cursor '{c}' is not valid: pass back the next_cursor of the previous page"
            ))
        })?),
    };
    let non_empty = |v: Option<String>| v.filter(|v| !v.is_empty());
    let query = cairn_store::AuditQuery {
        actor: non_empty(params.actor),
        action: non_empty(params.action),
        target: non_empty(params.target),
        since: time("since", params.since.as_deref())?,
        until: time("until", params.until.as_deref())?,
        before_id,
        limit: limit + 1,
    };
    let mut rows = state.store.list_audit(caller.principal.org_id, &query).await?;
    let next_cursor = extract::cut_page(&mut rows, limit, |e| e.id.to_string());
    Ok(json_ok(Page {
        items: rows.into_iter().map(AuditItem::from).collect(),
        next_cursor,
    }))
}
