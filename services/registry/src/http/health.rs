//! Liveness and readiness probes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{READY_TIMEOUT, json_ok};
use crate::AppState;

/// `GET /healthz`: the process is up (no dependencies checked).
pub async fn healthz() -> Response {
    json_ok(json!({ "status": "ok" }))
}

/// `GET /readyz`: PostgreSQL and the blob store answer and the index is built (so the
/// first clients are not the ones who wait for it); 503 names what is not.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let (database, blobs) = checks(&state).await;
    let index = if state.index_cache.is_warm() { "ok" } else { "building" };
    let ready = database == "ok" && blobs == "ok" && index == "ok";
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        axum::Json(json!({
            "status": if ready { "ready" } else { "not_ready" },
            "checks": { "database": database, "blobs": blobs, "index": index }
        })),
    )
        .into_response()
}

/// Whether PostgreSQL and the blob store answer and the index is built (the verdict of
/// `/readyz`).
pub async fn ready(state: &AppState) -> bool {
    state.index_cache.is_warm() && checks(state).await == ("ok", "ok")
}

/// How long a readiness verdict is reused: probes and load balancers poll often, and an
/// unauthenticated endpoint must not turn each request into database and S3 calls.
const READY_CACHE: std::time::Duration = std::time::Duration::from_secs(1);

/// The (database, blob store) verdicts, from the last second's check or a fresh one.
async fn checks(state: &AppState) -> (&'static str, &'static str) {
    if let Some((at, verdicts)) = *state.readiness.lock().unwrap_or_else(|e| e.into_inner())
        && at.elapsed() < READY_CACHE
    {
        return verdicts;
    }
    let database = verdict(
        "database",
        tokio::time::timeout(READY_TIMEOUT, state.store.ping()).await,
    );
    let blobs = verdict(
        "blob store",
        tokio::time::timeout(READY_TIMEOUT, state.blobs.check()).await,
    );
    *state.readiness.lock().unwrap_or_else(|e| e.into_inner()) = Some((std::time::Instant::now(), (database, blobs)));
    state.metrics.dependency("database", database == "ok");
    state.metrics.dependency("blobs", blobs == "ok");
    (database, blobs)
}

/// "ok" or "failing"; the reason is logged, not shown (the probe is unauthenticated).
fn verdict<E: std::fmt::Display>(
    what: &str,
    result: Result<Result<(), E>, tokio::time::error::Elapsed>,
) -> &'static str {
    match result {
        Ok(Ok(())) => "ok",
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: {what} failing");
            "failing"
        }
        Err(_) => {
            tracing::warn!("readiness: {what} did not answer within {READY_TIMEOUT:?}");
            "failing"
        }
    }
}
