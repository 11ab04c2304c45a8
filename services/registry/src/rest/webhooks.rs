//! The webhook endpoints (admins): subscribe, list, delete, and each webhook's delivery
//! log.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use uuid::Uuid;

use super::json_ok;
use super::wire::ToWire;
use crate::AppState;
use crate::access::Caller;
use crate::app::webhooks::{self};
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiJson, ApiPath, ApiQuery};
use cairn_wire::{Delivery, Page};

/// Body of `POST /v1/webhooks`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    url: String,
    events: Vec<String>,
    #[serde(default)]
    secret: Option<String>,
}

/// `POST /v1/webhooks`: subscribes a URL to events; the answer shows the signing secret
/// once.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<CreateBody>,
) -> Result<Response, ApiError> {
    let created = webhooks::create(
        &state.store,
        &state.outbound,
        caller.principal.org_id,
        &body.url,
        &body.events,
        body.secret,
        &caller.actor(),
    )
    .await?;
    let mut out = created.info.to_wire();
    out.secret = Some(created.secret);
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

/// `GET /v1/webhooks`: the organisation's webhooks (without secrets).
pub async fn list(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let hooks = state.store.list_webhooks(caller.principal.org_id).await?;
    Ok(json_ok(Page {
        items: hooks.into_iter().map(ToWire::to_wire).collect(),
        next_cursor: None,
    }))
}

/// `DELETE /v1/webhooks/{id}`: removes a webhook and its delivery log.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let id = webhook_id(&id)?;
    state
        .store
        .delete_webhook(caller.principal.org_id, id, &caller.actor())
        .await
        .map_err(|e| ApiError::from(e).hint("list webhooks with GET /v1/webhooks"))?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Query of the delivery log.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DeliveriesQuery {
    /// Items per page, 1 to 200 (default 50).
    #[schemars(with = "Option<u32>", range(min = 1, max = 200))]
    limit: Option<String>,
}

/// `GET /v1/webhooks/{id}/deliveries`: the newest deliveries and how they went.
pub async fn deliveries(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<String>,
    ApiQuery(query): ApiQuery<DeliveriesQuery>,
) -> Result<Response, ApiError> {
    let id = webhook_id(&id)?;
    let limit = extract::limit(query.limit.as_deref())?;
    let rows = state
        .store
        .webhook_deliveries(caller.principal.org_id, id, limit)
        .await
        .map_err(|e| ApiError::from(e).hint("list webhooks with GET /v1/webhooks"))?;
    Ok(json_ok(Page {
        items: rows
            .into_iter()
            .map(|d| Delivery {
                next_attempt_at: (d.status == "pending").then_some(d.next_attempt_at),
                id: d.id,
                event: d.event,
                status: d.status,
                attempts: d.attempts,
                last_status_code: d.last_status_code,
                last_error: d.last_error,
                created_at: d.created_at,
                delivered_at: d.delivered_at,
            })
            .collect(),
        next_cursor: None,
    }))
}

fn webhook_id(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw).map_err(|_| {
        ApiError::bad_request(format!(
            "'{raw}' is not a webhook id: ids are UUIDs, as listed by GET /v1/webhooks"
        ))
    })
}
