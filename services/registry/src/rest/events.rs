//! `GET /v1/events`: the organisation's index changes as Server-Sent Events, from
//! `app::live` (the same feed as gRPC `WatchIndex`).
//!
//! Each change is `id: <cursor>`, `event: change`, `data: {"cursor", "kind", "name",
//! "revision", "entry"}`; quiet periods bring `event: heartbeat` with the last cursor.
//! A client that reconnects sends `Last-Event-ID` (browsers do it themselves) or
//! `?since=` and receives every change after it, once.

use std::convert::Infallible;

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;

use super::index::parse_cursor;
use super::wire::ToWire;
use crate::AppState;
use crate::app::live::{self, WatchError, WatchEvent, Watcher};
use crate::auth::Principal;
use crate::error::ApiError;
use crate::error::parse::ApiQuery;

/// How soon an EventSource client should reconnect after losing the stream.
const RECONNECT_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// Query of `GET /v1/events`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EventsQuery {
    /// A cursor: replay what changed since, then follow.
    since: Option<String>,
}

/// `GET /v1/events[?since=<cursor>]` (or `Last-Event-ID: <cursor>`).
pub async fn events(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(query): ApiQuery<EventsQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // An empty Last-Event-ID (nothing received yet) falls back to `since`.
    let last_event_id = headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("invalid"))
        .filter(|v| !v.trim().is_empty());
    let since = match last_event_id {
        Some(raw) => parse_cursor(Some(raw.trim()), "Last-Event-ID")?,
        None => parse_cursor(query.since.as_deref(), "since")?,
    };
    let watcher = Watcher {
        auth: state.auth.clone(),
        principal,
    };
    let changes = live::watch(&state.store, &state.live, watcher, since).await?;
    let events = changes.map(|event| {
        Ok::<_, Infallible>(match event {
            Ok(WatchEvent::Change(change)) => {
                let data = cairn_wire::Change {
                    cursor: change.cursor,
                    kind: change.kind.to_wire(),
                    name: change.name.clone(),
                    revision: change.revision,
                    entry: change.entry.as_deref().map(ToWire::to_wire),
                };
                match Event::default().event("change").id(change.cursor.to_string()).json_data(&data) {
                    Ok(event) => event,
                    Err(e) => error_event("internal", &format!("serializing a change failed: {e}")),
                }
            }
            Ok(WatchEvent::Heartbeat { cursor }) => Event::default()
                .event("heartbeat")
                .data(format!("{{\"cursor\":{cursor}}}")),
            Err(WatchError::Unauthorized(denied)) => {
                let error = ApiError::from(denied);
                error_event(error.code(), error.message())
            }
            Err(e) => {
                tracing::warn!(error = %e, "an event stream ended");
                error_event(
                    "unavailable",
                    "the registry could not read further changes: reconnect with Last-Event-ID set to the last id received",
                )
            }
        })
    });
    // A first block at once: it tells EventSource clients how soon to reconnect, and makes
    // buffering proxies pass the response on before the first change.
    let hello = futures::stream::once(async { Ok::<_, Infallible>(Event::default().retry(RECONNECT_AFTER)) });
    let mut response = Sse::new(hello.chain(events)).into_response();
    // Proxies such as nginx must pass events on at once.
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

fn error_event(code: &str, message: &str) -> Event {
    let body = cairn_wire::ErrorBody {
        error: cairn_wire::ErrorDetail {
            code: code.to_owned(),
            message: message.to_owned(),
        },
    };
    Event::default()
        .event("error")
        .data(serde_json::to_string(&body).unwrap_or_default())
}
