//! The REST API: router, middleware and the one `serve` function shared by `main` and
//! the tests.

mod audit;
mod blobs;
pub mod clawhub;
pub mod error;
mod events;
mod extract;
mod findings;
pub mod guard;
mod health;
pub(crate) mod index;
mod patches;
pub mod prefix;
pub mod routes;
mod skills;
mod tokens;
mod users;
mod webhooks;
mod wellknown;
pub mod wire;

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::{HeaderName, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use tokio::net::TcpListener;
use tower::Layer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, NotForContentType, Predicate};
use tower_http::request_id::PropagateRequestIdLayer;
use tower_http::trace::TraceLayer;

use crate::AppState;
use error::ApiError;
pub use health::ready;

/// The header carrying each request's id (set when the client did not send one).
static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest a handler may take to produce its response (bodies may stream longer).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How long shutdown waits for open connections (streams included) to finish.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest request body accepted (the batch blob request is the biggest: a list of ids).
pub(crate) const MAX_BODY_BYTES: usize = 256 * 1024;

/// Builds the whole HTTP application: the routes of the authorization table behind the
/// gate, and the layers every response passes through.
pub fn router(state: AppState) -> Router {
    let (routes, access) = routes::build(&state);
    let gate = guard::Gate::new(&state, access);
    routes
        .route_layer(middleware::from_fn_with_state(gate.clone(), guard::gate))
        // The review pages authenticate with their session cookie, not the API's gate.
        .merge(crate::web::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Outside the routes, so unknown paths are counted against the address too.
        .layer(middleware::from_fn_with_state(gate, guard::limit_address))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(deadline))
        .layer(CompressionLayer::new().compress_when(
            // Bundles are already gzip; everything else (JSON, text, tar of text) shrinks.
            DefaultPredicate::new().and(NotForContentType::const_new("application/gzip")),
        ))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|request: &Request| {
            let route = request
                .extensions()
                .get::<MatchedPath>()
                .map_or("unmatched", MatchedPath::as_str);
            let request_id = request
                .headers()
                .get(&REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            tracing::info_span!("http", method = %request.method(), route, request_id)
        }))
        .layer(tower::util::MapRequestLayer::new(guard::assign_request_id))
        .layer(middleware::from_fn_with_state(state.metrics.clone(), edge))
        .with_state(state)
}

/// The outermost middleware: counts and times every request by method, route template
/// and final status; adds `Retry-After` to every 503; answers gRPC calls that met a JSON
/// error with a gRPC status. One layer rather than three: each `from_fn` layer costs every
/// request a boxed future and a boxed clone of the route it wraps, which was measurable
/// on the index's 304 path (docs/BENCHMARKS.md).
async fn edge(
    axum::extract::State(metrics): axum::extract::State<std::sync::Arc<crate::metrics::Metrics>>,
    mut request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    // Known methods only: a client inventing methods must not grow the label set.
    let method: &'static str = match request.method().as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "OTHER",
    };
    let in_flight = metrics.start_request();
    let grpc = crate::grpc::status::prepare_for_reshaping(&mut request);
    let mut response = error::retry_after_on_503(next.run(request).await);
    if grpc {
        response = crate::grpc::status::reshape_errors(response).await;
    }
    in_flight.finish(method, &route, response.status().as_u16());
    response
}

/// Serves the registry (REST and gRPC, HTTP/1.1 and HTTP/2) on `listener` until
/// `shutdown` completes, then ends the live streams and drains in-flight requests. `main`
/// and the end-to-end tests both run the server through this.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let background = tokio::spawn(state.clone().background());
    let stop_background = background.abort_handle();
    let live = state.live.clone();
    let activity = state.activity.clone();
    let health = state.grpc_health.clone();
    let (draining_tx, draining) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async move {
        shutdown.await;
        // Stop reporting readiness first, so nothing marks us serving again.
        stop_background.abort();
        for service in ["", cairn_proto::REGISTRY_SERVICE] {
            health
                .set_service_status(service, tonic_health::ServingStatus::NotServing)
                .await;
        }
        live.close();
        activity.close();
        let _ = draining_tx.send(());
    };
    let auth = state.auth.clone();
    // Capability-URL and organisation prefixes come off before the router matches.
    let app = axum::ServiceExt::<Request>::into_make_service_with_connect_info::<SocketAddr>(
        tower::util::MapRequestLayer::new(prefix::strip::<axum::body::Body>).layer(router(state)),
    );
    let server = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .into_future();
    // Draining waits for every open connection; a client that stopped reading (or holds a
    // health watch open) must not keep the process alive forever.
    let deadline = async {
        if draining.await.is_ok() {
            tokio::time::sleep(DRAIN_TIMEOUT).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    let result = tokio::select! {
        result = server => result,
        () = deadline => {
            tracing::warn!("connections still open {DRAIN_TIMEOUT:?} after shutdown began; closing them");
            Ok(())
        }
    };
    background.abort();
    auth.stop_following();
    result
}

/// Answers 503 `timeout` (in the API's JSON shape) when a handler takes longer than
/// [`REQUEST_TIMEOUT`] to produce its response; streaming bodies may take longer. A gRPC
/// call's own deadline (`grpc-timeout`) shortens the limit, and passing it answers 504
/// `deadline_exceeded` (DEADLINE_EXCEEDED once reshaped for gRPC).
async fn deadline(request: Request, next: Next) -> Response {
    let client_deadline = request
        .headers()
        .get("grpc-timeout")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_grpc_timeout)
        .filter(|d| *d < REQUEST_TIMEOUT);
    let limit = client_deadline.unwrap_or(REQUEST_TIMEOUT);
    // A gRPC call that timed out may have committed: DEADLINE_EXCEEDED (unlike UNAVAILABLE)
    // does not tell the client a retry is safe.
    let grpc = crate::grpc::status::is_grpc(request.headers());
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) if client_deadline.is_some() || grpc => ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "deadline_exceeded",
            format!(
                "the request did not finish within {limit:?} (the call's deadline or the registry's limit); it may \
                 still have taken effect: check before retrying, or allow more time"
            ),
        )
        .into_response(),
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!(
                "the registry did not finish this request within {}s: retry later",
                REQUEST_TIMEOUT.as_secs()
            ),
        )
        .into_response(),
    }
}

/// Parses a gRPC `grpc-timeout` value: up to 8 digits and a unit (`H`, `M`, `S`, `m`,
/// `u`, `n`).
fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount.checked_mul(3600)?),
        "M" => Duration::from_secs(amount.checked_mul(60)?),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

async fn not_found(headers: axum::http::HeaderMap) -> ApiError {
    if crate::grpc::status::is_grpc(&headers) {
        return ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "unimplemented",
            "no such gRPC method: see proto/cairn/v1/registry.proto for the methods served",
        );
    }
    ApiError::not_found("no such endpoint: see the API reference in docs/API.md")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not support that method",
    )
}

/// Caching headers for content that can never change (blobs, pinned files).
const IMMUTABLE: &str = "private, max-age=31536000, immutable";

/// `Json` with a status, for handlers that return either.
fn json_ok<T: serde::Serialize>(value: T) -> Response {
    Json(value).into_response()
}

/// How long `/readyz` waits for a dependency.
const READY_TIMEOUT: Duration = Duration::from_secs(3);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeouts_parse_by_unit_and_reject_nonsense() {
        assert_eq!(parse_grpc_timeout("5S"), Some(Duration::from_secs(5)));
        assert_eq!(parse_grpc_timeout("250m"), Some(Duration::from_millis(250)));
        assert_eq!(parse_grpc_timeout("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_grpc_timeout("100u"), Some(Duration::from_micros(100)));
        for bad in ["", "S", "5", "5x", "123456789S", "-1S", "1.5S"] {
            assert_eq!(parse_grpc_timeout(bad), None, "{bad}");
        }
    }
}
