//! `GET /v1/audit`: the organisation's audit log (admins; the gate enforces it).

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use super::json_ok;
use super::wire::ToWire;
use crate::AppState;
use crate::access::Caller;
use crate::app::audit::{self, AuditFilter};
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiQuery};
use cairn_wire::Page;

/// Query of `GET /v1/audit`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
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
    /// Paging.
    #[serde(flatten)]
    page: extract::PageQuery,
}

/// `GET /v1/audit`: newest first, filtered, paged by `next_cursor`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(params): ApiQuery<AuditParams>,
) -> Result<Response, ApiError> {
    let limit = params.page.limit()?;
    let filter = AuditFilter {
        actor: params.actor,
        action: params.action,
        target: params.target,
        since: params.since,
        until: params.until,
        cursor: params.page.cursor,
    };
    let page = audit::list(&state.store, caller.principal.org_id, filter, limit).await?;
    Ok(json_ok(Page {
        items: page.entries.into_iter().map(ToWire::to_wire).collect(),
        next_cursor: page.next_cursor,
    }))
}
