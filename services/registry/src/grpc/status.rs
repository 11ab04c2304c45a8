//! The one place API errors become gRPC statuses. Handlers' domain errors are first
//! mapped as for REST ([`ApiError`]), so both transports answer the same failure with
//! the same message; the HTTP status then picks the gRPC code, and the API's error code
//! travels in the `cairn-error-code` metadata.
//!
//! The same mapping re-shapes the JSON errors that the shared middleware (rate limits,
//! the authorization gate, deadlines, unknown paths) answers to gRPC requests.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use tonic::{Code, Status};

use crate::http::error::ApiError;

/// Metadata key carrying the API's error code (`not_found`, `patch_refused`, …).
pub const ERROR_CODE_KEY: &str = "cairn-error-code";

/// The gRPC code for an HTTP status of the API.
fn code_for(status: StatusCode) -> Code {
    match status {
        StatusCode::BAD_REQUEST | StatusCode::UNSUPPORTED_MEDIA_TYPE => Code::InvalidArgument,
        StatusCode::UNAUTHORIZED => Code::Unauthenticated,
        StatusCode::FORBIDDEN => Code::PermissionDenied,
        StatusCode::NOT_FOUND => Code::NotFound,
        StatusCode::METHOD_NOT_ALLOWED | StatusCode::NOT_IMPLEMENTED => Code::Unimplemented,
        StatusCode::CONFLICT | StatusCode::GONE | StatusCode::UNPROCESSABLE_ENTITY => Code::FailedPrecondition,
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::TOO_MANY_REQUESTS => Code::ResourceExhausted,
        StatusCode::GATEWAY_TIMEOUT => Code::DeadlineExceeded,
        StatusCode::SERVICE_UNAVAILABLE => Code::Unavailable,
        _ => Code::Internal,
    }
}

fn status(http: StatusCode, code: &str, message: &str) -> Status {
    let mut status = Status::new(code_for(http), message);
    if let Ok(value) = code.parse() {
        status.metadata_mut().insert(ERROR_CODE_KEY, value);
    }
    status
}

impl From<ApiError> for Status {
    fn from(error: ApiError) -> Self {
        status(error.status(), error.code(), error.message())
    }
}

/// INVALID_ARGUMENT with the `bad_request` code: the request itself is wrong.
pub fn invalid(message: impl Into<String>) -> Status {
    ApiError::bad_request(message).into()
}

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
    let code = field("code").unwrap_or_else(|| "error".to_owned());
    let message = field("message").unwrap_or_else(|| format!("the registry answered {}", parts.status));
    let mut reshaped: Response = status(parts.status, &code, &message).into_http::<Body>();
    for name in KEPT_HEADERS {
        if let Some(value) = parts.headers.get(name) {
            reshaped.headers_mut().insert(name, value.clone());
        }
    }
    reshaped
}
