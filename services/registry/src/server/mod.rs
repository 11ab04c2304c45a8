//! The server: one router for every transport (REST, the compatibility APIs, MCP, gRPC and
//! the review web) behind the shared gate, the layers every response passes through
//! (metrics, request ids, tracing, compression, deadlines, gRPC error re-shaping), the
//! health probes, the background work of a serving process, and the one `serve` function
//! shared by `main` and the tests. The only module that knows every transport.

mod grpc_errors;
pub mod health;

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tower::Layer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, NotForContentType, Predicate};
use tower_http::request_id::PropagateRequestIdLayer;
use tower_http::trace::TraceLayer;

use crate::access::gate::{self, Gate, REQUEST_ID};
use crate::access::{AccessTable, MAX_BODY_BYTES, Route, Rule, prefix};
use crate::error::{ApiError, ErrorKind, retry_after_on_503};
use crate::{AppState, app, compat, grpc, mcp, rest, web};

/// Longest a handler may take to produce its response (bodies may stream longer).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How long shutdown waits for open connections (streams included) to finish.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Builds the whole HTTP application: the routes of the authorization table behind the
/// gate, and the layers every response passes through.
pub fn router(state: AppState) -> Router {
    let http = http_routes();
    let pages = web::routes();
    let mut table = AccessTable::new();
    let every_rule = http
        .iter()
        .chain(&pages)
        .map(|(rule, _)| rule.clone())
        .chain(grpc::rules());
    for rule in every_rule {
        table.entry(rule.path).or_default().push((rule.method, rule.access));
    }
    let gate = Gate::new(&state, table, health::probes(), web::refusal_page);
    let behind_gate = |routes: Vec<Route>, router: Router<AppState>| {
        routes
            .into_iter()
            .fold(router, |router, (rule, handler)| router.route(rule.path, handler))
            .route_layer(middleware::from_fn_with_state(gate.clone(), gate::gate))
    };
    behind_gate(http, grpc::router(&state))
        // The review pages pass the same gate, inside their own layers.
        .merge(web::layers(behind_gate(pages, Router::new())))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Outside the routes, so unknown paths are counted against the address too.
        .layer(middleware::from_fn_with_state(gate, gate::limit_address))
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
        .layer(tower::util::MapRequestLayer::new(gate::assign_request_id))
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
    let grpc = grpc_errors::prepare_for_reshaping(&mut request);
    let mut response = retry_after_on_503(next.run(request).await);
    if grpc {
        response = grpc_errors::reshape_errors(response).await;
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
    let background = tokio::spawn(background(state.clone()));
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

/// How often idle rate-limit entries are dropped.
const LIMITER_SWEEP: Duration = Duration::from_secs(60);

/// The work a serving process does besides answering requests, for as long as the
/// returned future runs: following access changes (so cached token checks stay
/// exact), following index changes for watchers, dropping idle rate-limit entries, and
/// delivering webhooks, following audited changes for the review pages, collecting
/// unreferenced blobs, and re-checking conflicts when their skill moves on.
pub async fn background(state: AppState) {
    let sweep = {
        let limiters = state.limiters.clone();
        async move {
            let mut tick = tokio::time::interval(LIMITER_SWEEP);
            loop {
                tick.tick().await;
                limiters.forget_idle();
            }
        }
    };
    let auth = state.auth.clone();
    let live = state.live.clone();
    let activity = state.activity.clone();
    let index_keeper = {
        let state = state.clone();
        let heard = state.live.heard();
        async move {
            let encode = |org_id, index: &app::index::FullIndex| {
                rest::index::warm(&state, org_id, index);
                grpc::index_route::warm(&state, org_id, index);
            };
            app::index::keep_warm(&state, heard, encode).await;
        }
    };
    tokio::join!(
        index_keeper,
        health::report_health(state.clone()),
        auth.follow_changes(state.store.clone()),
        live.follow(state.store.clone()),
        activity.follow(state.store.clone()),
        sweep,
        app::webhooks::deliver_forever(state.store.clone(), state.metrics.clone(), state.outbound.clone()),
        app::gc::collect_forever(state.clone()),
        app::patches::recheck::run_forever(state.clone())
    );
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
    let grpc = grpc_errors::is_grpc(request.headers());
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) if client_deadline.is_some() || grpc => ApiError::new(
            ErrorKind::DeadlineExceeded,
            "deadline_exceeded",
            format!(
                "the request did not finish within {limit:?} (the call's deadline or the registry's limit); it may \
                 still have taken effect: check before retrying, or allow more time"
            ),
        )
        .into_response(),
        Err(_) => ApiError::new(
            ErrorKind::Unavailable,
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

/// Every route of the HTTP transports (health, REST, the compatibility APIs), with its
/// rule.
fn http_routes() -> Vec<Route> {
    let mut routes = health::routes();
    routes.extend(rest::routes());
    routes.extend(compat::routes());
    routes.extend(mcp::routes());
    routes
}

/// Every rule of every transport: for the tests that walk every route, and for the
/// documentation.
pub fn rules() -> Vec<Rule> {
    let mut rules: Vec<Rule> = http_routes().into_iter().map(|(rule, _)| rule).collect();
    rules.extend(web::routes().into_iter().map(|(rule, _)| rule));
    rules.extend(grpc::rules());
    rules
}

async fn not_found(headers: axum::http::HeaderMap) -> ApiError {
    if grpc_errors::is_grpc(&headers) {
        return ApiError::new(
            ErrorKind::Unimplemented,
            "unimplemented",
            "no such gRPC method: see proto/cairn/v1/registry.proto for the methods served",
        );
    }
    ApiError::not_found("no such endpoint: see the API reference in docs/API.md")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorKind::MethodNotAllowed,
        "method_not_allowed",
        "this endpoint does not support that method",
    )
}

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
