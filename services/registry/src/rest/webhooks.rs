//! The webhook endpoints (admins): subscribe, list, delete, and each webhook's delivery
//! log.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::json_ok;
use super::wire::Page;
use crate::AppState;
use crate::access::Caller;
use crate::app::webhooks::{self};
use crate::error::ApiError;
use crate::error::parse::{self as extract, ApiJson, ApiPath, ApiQuery};

/// Body of `POST /v1/webhooks`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    url: String,
    events: Vec<String>,
    #[serde(default)]
    secret: Option<String>,
}

/// A webhook on the wire.
#[derive(Debug, Serialize)]
pub struct WebhookBody {
    id: String,
    url: String,
    events: Vec<String>,
    active: bool,
    created_at: chrono::DateTime<chrono::Utc>,
    /// Only in the answer to its creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
}

impl From<cairn_store::WebhookInfo> for WebhookBody {
    fn from(w: cairn_store::WebhookInfo) -> Self {
        WebhookBody {
            id: w.id.to_string(),
            url: w.url,
            events: w.events,
            active: w.active,
            created_at: w.created_at,
            secret: None,
        }
    }
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
    let mut out = WebhookBody::from(created.info);
    out.secret = Some(created.secret);
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

/// `GET /v1/webhooks`: the organisation's webhooks (without secrets).
pub async fn list(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let hooks = state.store.list_webhooks(caller.principal.org_id).await?;
    Ok(json_ok(Page {
        items: hooks.into_iter().map(WebhookBody::from).collect(),
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
#[derive(Debug, Deserialize)]
pub struct DeliveriesQuery {
    limit: Option<String>,
}

/// A delivery on the wire.
#[derive(Debug, Serialize)]
pub struct DeliveryBody {
    id: i64,
    event: String,
    status: String,
    attempts: i32,
    next_attempt_at: Option<chrono::DateTime<chrono::Utc>>,
    last_status_code: Option<i32>,
    last_error: Option<String>,
    created_at: chrono::DateTime<chrono::Utc>,
    delivered_at: Option<chrono::DateTime<chrono::Utc>>,
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
            .map(|d| DeliveryBody {
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
