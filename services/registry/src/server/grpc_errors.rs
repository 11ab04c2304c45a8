//! gRPC calls answered by the shared middleware (rate limits, the authorization gate,
//! deadlines, unknown paths) get a JSON error like any request; this re-shapes it into a
//! gRPC status of the same [`ErrorKind`], so gRPC clients always see a status they
//! understand.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, header};
use axum::response::Response;

use crate::error::{ErrorKind, grpc_status};

/// Whether a request or response is gRPC (`application/grpc`, `application/grpc+proto`).
pub fn is_grpc(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// Headers of a refusal worth keeping on its gRPC form.
const KEPT_HEADERS: [&str; 6] = [
    "x-request-id",
    "retry-after",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "www-authenticate",
];

/// Readies a request for [`reshape_errors`]: whether it is a gRPC call; for one, drops
/// `Accept-Encoding` (gRPC compresses messages itself, `grpc-encoding`; an HTTP content
/// coding would only hide the JSON errors re-shaped afterwards).
pub fn prepare_for_reshaping(request: &mut Request) -> bool {
    let grpc = is_grpc(request.headers());
    if grpc {
        request.headers_mut().remove(header::ACCEPT_ENCODING);
    }
    grpc
}

/// For a gRPC call answered by a JSON error (from a middleware or the fallback): the same
/// error as a gRPC status instead, so gRPC clients always see a status they understand.
/// Used by the router's outermost middleware, after [`prepare_for_reshaping`].
pub async fn reshape_errors(response: Response) -> Response {
    if is_grpc(response.headers()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
    let field = |key: &str| {
        parsed
            .as_ref()
            .and_then(|v| v.get("error"))
            .and_then(|e| e.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let kind = parts
        .extensions
        .get::<ErrorKind>()
        .copied()
        .unwrap_or_else(|| ErrorKind::of_foreign_status(parts.status));
    let code = field("code").unwrap_or_else(|| "error".to_owned());
    let message = field("message").unwrap_or_else(|| format!("the registry answered {}", parts.status));
    let mut reshaped: Response = grpc_status(kind, &code, &message).into_http::<Body>();
    for name in KEPT_HEADERS {
        if let Some(value) = parts.headers.get(name) {
            reshaped.headers_mut().insert(name, value.clone());
        }
    }
    reshaped
}
