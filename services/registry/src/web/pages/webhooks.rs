//! Webhooks (admins): subscribe a URL to events, see each one's delivery log, remove it.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

use super::{back_with, given, when};
use crate::AppState;
use crate::app::webhooks;
use crate::web::error::WebError;
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Query of the webhook pages.
#[derive(Debug, Default, Deserialize)]
pub struct WebhooksQuery {
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One webhook.
#[derive(Debug)]
pub struct HookRow {
    id: String,
    url: String,
    events: String,
    active: bool,
    created: String,
}

/// The webhooks page.
#[derive(Template)]
#[template(path = "webhooks.html")]
struct WebhooksPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    events: Vec<&'static str>,
    rows: Vec<HookRow>,
    created: Option<(String, String)>,
}

async fn render(
    state: &AppState,
    viewer: &Viewer,
    query: WebhooksQuery,
    created: Option<(String, String)>,
) -> Result<Response, WebError> {
    let hooks = state.store.list_webhooks(viewer.principal.org_id).await?;
    let page = WebhooksPage {
        chrome: Chrome::new(viewer, "webhooks"),
        notice: query.flash.notice(state),
        error: query.flash.error(state),
        events: cairn_store::WEBHOOK_EVENTS.to_vec(),
        rows: hooks
            .into_iter()
            .map(|h| HookRow {
                id: h.id.to_string(),
                url: h.url,
                events: h.events.join(", "),
                active: h.active,
                created: when(&h.created_at),
            })
            .collect(),
        created,
    };
    crate::web::page(&page)
}

/// `GET /admin/webhooks`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<WebhooksQuery>,
) -> Result<Response, WebError> {
    render(&state, &viewer, query, None).await
}

/// The subscribe form: a checkbox per event, named after it.
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    url: String,
    secret: Option<String>,
    #[serde(rename = "patch.submitted")]
    submitted: Option<String>,
    #[serde(rename = "patch.approved")]
    approved: Option<String>,
    #[serde(rename = "patch.rejected")]
    rejected: Option<String>,
    #[serde(rename = "patch.blocked")]
    blocked: Option<String>,
    #[serde(rename = "version.published")]
    published: Option<String>,
}

/// `POST /admin/webhooks`: subscribes a URL; the signing secret is shown once.
pub async fn create(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<CreateForm>,
) -> Result<Response, WebError> {
    let events: Vec<String> = [
        ("patch.submitted", &form.submitted),
        ("patch.approved", &form.approved),
        ("patch.rejected", &form.rejected),
        ("patch.blocked", &form.blocked),
        ("version.published", &form.published),
    ]
    .into_iter()
    .filter(|(_, checked)| checked.is_some())
    .map(|(event, _)| event.to_owned())
    .collect();
    match webhooks::create(
        &state.store,
        &state.outbound,
        viewer.principal.org_id,
        form.url.trim(),
        &events,
        given(form.secret),
        &viewer.actor(),
    )
    .await
    {
        Ok(created) => {
            let label = format!("{} ({})", created.info.url, created.info.events.join(", "));
            render(&state, &viewer, WebhooksQuery::default(), Some((created.secret, label))).await
        }
        Err(e) => back_with(&state, "/admin/webhooks", e),
    }
}

fn hook_id(raw: &str) -> Result<Uuid, WebError> {
    Uuid::parse_str(raw)
        .map_err(|_| WebError::bad_request(format!("'{raw}' is not a webhook id: pick the webhook from the list.")))
}

/// The delete form (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct DeleteForm {}

/// `POST /admin/webhooks/{id}/delete`: removes a webhook and its delivery log.
pub async fn delete(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(_): Verified<DeleteForm>,
) -> Result<Response, WebError> {
    let id = match hook_id(&id) {
        Ok(id) => id,
        Err(e) => return back_with(&state, "/admin/webhooks", e),
    };
    match state
        .store
        .delete_webhook(viewer.principal.org_id, id, &viewer.actor())
        .await
    {
        Ok(()) => Ok(done(&state, "/admin/webhooks", "Webhook removed.")),
        Err(e) => back_with(&state, "/admin/webhooks", e),
    }
}

/// One delivery.
#[derive(Debug)]
pub struct DeliveryRow {
    event: String,
    status: String,
    attempts: i32,
    response: String,
    created: String,
    finished: String,
}

/// A webhook's delivery log.
#[derive(Template)]
#[template(path = "deliveries.html")]
struct DeliveriesPage {
    chrome: Chrome,
    notice: Option<String>,
    url: String,
    rows: Vec<DeliveryRow>,
}

/// `GET /admin/webhooks/{id}`: the newest deliveries and how they went.
pub async fn deliveries(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
) -> Result<Response, WebError> {
    let id = hook_id(&id)?;
    let org_id = viewer.principal.org_id;
    let hook = state
        .store
        .list_webhooks(org_id)
        .await?
        .into_iter()
        .find(|h| h.id == id)
        .ok_or_else(|| WebError::not_found("That webhook does not exist (any more): see the webhooks list."))?;
    let rows = state.store.webhook_deliveries(org_id, id, 200).await?;
    let page = DeliveriesPage {
        chrome: Chrome::new(&viewer, "webhooks"),
        notice: None,
        url: hook.url,
        rows: rows
            .into_iter()
            .map(|d| DeliveryRow {
                event: d.event,
                status: d.status,
                attempts: d.attempts,
                response: match (d.last_status_code, d.last_error) {
                    (Some(code), _) => format!("HTTP {code}"),
                    (None, Some(error)) => error,
                    (None, None) => "—".to_owned(),
                },
                created: when(&d.created_at),
                finished: d.delivered_at.as_ref().map_or_else(
                    || format!("next attempt {}", when(&d.next_attempt_at)),
                    |at| format!("delivered {}", when(at)),
                ),
            })
            .collect(),
    };
    crate::web::page(&page)
}
