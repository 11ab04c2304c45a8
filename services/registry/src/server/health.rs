//! Liveness and readiness probes, over HTTP (`/healthz`, `/readyz`) and gRPC (the
//! standard health service, kept in line with readiness).

use axum::Json;
use axum::extract::State;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::AppState;
use crate::access::{Access, Route, Rule};

/// How long `/readyz` waits for a dependency.
const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// The HTTP probes, open to anyone.
pub fn routes() -> Vec<Route> {
    vec![
        (Rule::new(Method::GET, "/healthz", Access::Public), get(healthz)),
        (Rule::new(Method::GET, "/readyz", Access::Public), get(readyz)),
    ]
}

/// The paths never rate-limited: probes from orchestrators and load balancers, over
/// HTTP and gRPC.
pub fn probes() -> Vec<&'static str> {
    let mut probes = vec!["/healthz", "/readyz"];
    probes.extend(crate::grpc::HEALTH_PATHS);
    probes
}

/// `GET /healthz`: the process is up (no dependencies checked).
pub async fn healthz() -> Response {
    Json(json!({ "status": "ok" })).into_response()
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
        Json(json!({
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

/// Keeps the health service's answers in line with readiness (PostgreSQL and the blob
/// store) for as long as the returned future runs.
pub async fn report_health(state: AppState) {
    use tonic_health::ServingStatus;
    // Not serving until the first verdict (the reporter starts out serving), which comes
    // once the index is built (readiness waits for it), not five seconds later.
    for service in ["", cairn_proto::REGISTRY_SERVICE] {
        state
            .grpc_health
            .set_service_status(service, ServingStatus::NotServing)
            .await;
    }
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), state.index_cache.wait_warm()).await;
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
    loop {
        tick.tick().await;
        let ready = ready(&state).await;
        let status = if ready {
            ServingStatus::Serving
        } else {
            ServingStatus::NotServing
        };
        state.grpc_health.set_service_status("", status).await;
        state
            .grpc_health
            .set_service_status(cairn_proto::REGISTRY_SERVICE, status)
            .await;
    }
}
