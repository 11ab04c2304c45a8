//! The single error shape of the API, shared by every transport, and the one place domain
//! errors become it ([`domain`]).
//!
//! Over HTTP: `{"error": {"code": "not_found", "message": "skill 'x' does not exist"}}`
//! with the status of its [`ErrorKind`]; over gRPC: the kind's status code, the message,
//! and the code in the `cairn-error-code` metadata. Internal failures are logged with the
//! request id and answered with a generic message.

mod domain;
pub mod parse;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// What kind of failure an error is: both its HTTP status and its gRPC code derive from
/// this, so neither transport translates the other's vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is wrong (a bad name, field or value).
    BadRequest,
    /// No credential, or one that does not verify.
    Unauthenticated,
    /// The caller is known but may not do this.
    Forbidden,
    /// The thing does not exist (or is not visible to the caller).
    NotFound,
    /// The route exists, the method does not.
    MethodNotAllowed,
    /// The request conflicts with the current state (a stale revision, a taken name).
    Conflict,
    /// What the request refers to is gone for good (an expired cursor).
    Gone,
    /// The body is larger than the route accepts.
    TooLarge,
    /// The body is not in a format the route reads.
    UnsupportedMediaType,
    /// Well-formed, but refused on its merits (a patch the pipeline refuses).
    Unprocessable,
    /// Too many requests for now.
    RateLimited,
    /// A failure on the registry's side (details are in its log).
    Internal,
    /// No such method (gRPC) or operation.
    Unimplemented,
    /// A dependency is unreachable for now; nothing changed, retry later.
    Unavailable,
    /// The call's deadline passed; it may still have taken effect.
    DeadlineExceeded,
}

impl ErrorKind {
    /// The HTTP status answering this kind.
    pub const fn http_status(self) -> StatusCode {
        match self {
            ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
            ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorKind::Forbidden => StatusCode::FORBIDDEN,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Gone => StatusCode::GONE,
            ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorKind::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorKind::Unimplemented => StatusCode::NOT_IMPLEMENTED,
            ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    /// The gRPC status code answering this kind.
    pub const fn grpc_code(self) -> tonic::Code {
        use tonic::Code;
        match self {
            ErrorKind::BadRequest | ErrorKind::UnsupportedMediaType => Code::InvalidArgument,
            ErrorKind::Unauthenticated => Code::Unauthenticated,
            ErrorKind::Forbidden => Code::PermissionDenied,
            ErrorKind::NotFound => Code::NotFound,
            ErrorKind::MethodNotAllowed | ErrorKind::Unimplemented => Code::Unimplemented,
            ErrorKind::Conflict | ErrorKind::Gone | ErrorKind::Unprocessable => Code::FailedPrecondition,
            ErrorKind::TooLarge | ErrorKind::RateLimited => Code::ResourceExhausted,
            ErrorKind::Internal => Code::Internal,
            ErrorKind::Unavailable => Code::Unavailable,
            ErrorKind::DeadlineExceeded => Code::DeadlineExceeded,
        }
    }

    /// The kind of an HTTP error response this registry did not shape itself (a framework
    /// rejection): the nearest kind for its status.
    pub fn of_foreign_status(status: StatusCode) -> ErrorKind {
        match status {
            StatusCode::BAD_REQUEST => ErrorKind::BadRequest,
            StatusCode::UNAUTHORIZED => ErrorKind::Unauthenticated,
            StatusCode::FORBIDDEN => ErrorKind::Forbidden,
            StatusCode::NOT_FOUND => ErrorKind::NotFound,
            StatusCode::METHOD_NOT_ALLOWED => ErrorKind::MethodNotAllowed,
            StatusCode::CONFLICT => ErrorKind::Conflict,
            StatusCode::GONE => ErrorKind::Gone,
            StatusCode::PAYLOAD_TOO_LARGE => ErrorKind::TooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorKind::UnsupportedMediaType,
            StatusCode::UNPROCESSABLE_ENTITY => ErrorKind::Unprocessable,
            StatusCode::TOO_MANY_REQUESTS => ErrorKind::RateLimited,
            StatusCode::NOT_IMPLEMENTED => ErrorKind::Unimplemented,
            StatusCode::SERVICE_UNAVAILABLE => ErrorKind::Unavailable,
            StatusCode::GATEWAY_TIMEOUT => ErrorKind::DeadlineExceeded,
            _ => ErrorKind::Internal,
        }
    }
}

/// An error answered to an API client, whatever the transport.
#[derive(Debug)]
pub struct ApiError {
    kind: ErrorKind,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// Builds an error of `kind` with a machine-readable `code`.
    pub fn new(kind: ErrorKind, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            code,
            message: message.into(),
        }
    }

    /// Not found: the thing does not exist (or is not visible to the caller).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, "not_found", message)
    }

    /// Bad request: the request itself is wrong.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, "bad_request", message)
    }

    /// Forbidden: the caller may not do this.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, "forbidden", message)
    }

    /// Internal: something on our side failed; details go to the log, not the client.
    pub fn internal(context: &str, error: &dyn std::fmt::Display) -> Self {
        tracing::error!(%error, "{context}");
        Self::new(
            ErrorKind::Internal,
            "internal",
            "the registry hit an internal error; it was logged — retry, and report it with the x-request-id header if it persists",
        )
    }

    /// Unavailable: a dependency (database, blob store) is unreachable for now; the
    /// request changed nothing and may be retried after `Retry-After`.
    pub fn unavailable(what: &str, error: &dyn std::fmt::Display) -> Self {
        tracing::warn!(%error, "{what} unavailable");
        Self::new(
            ErrorKind::Unavailable,
            "unavailable",
            format!("the registry's {what} is unreachable right now: retry in a few seconds"),
        )
    }

    /// Adds where to look to a not-found error (`… does not exist (<hint>)`); other
    /// errors keep their own message. The application layer's messages name no
    /// transport's paths: a transport adds its own at its boundary, on routes no other
    /// transport serves (every transport answers a shared use case's failure with the
    /// same message).
    pub fn hint(mut self, hint: &str) -> Self {
        if self.kind == ErrorKind::NotFound {
            self.message = format!("{} ({hint})", self.message);
        }
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The HTTP status (from the kind).
    pub fn status(&self) -> StatusCode {
        self.kind.http_status()
    }

    /// The machine-readable code (`not_found`, `patch_refused`, …).
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The message for the caller.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Seconds a client is asked to wait before retrying a 503: long enough for a database
/// restart or a blob-store blip to pass, short enough that sync clients catch up quickly.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// Adds `Retry-After` to every 503 the router answers, whatever its format (JSON, the
/// ClawHub API's text, the review web's pages): applied by the router's outermost
/// middleware.
pub fn retry_after_on_503(mut response: Response) -> Response {
    if response.status() == StatusCode::SERVICE_UNAVAILABLE && !response.headers().contains_key(header::RETRY_AFTER) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(cairn_wire::ErrorBody {
            error: cairn_wire::ErrorDetail {
                code: self.code.to_owned(),
                message: self.message,
            },
        });
        let mut response = (self.kind.http_status(), body).into_response();
        if self.kind == ErrorKind::Unauthenticated {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"cairn\""),
            );
        }
        // The kind travels with the response, so a gRPC call answered by a middleware's
        // JSON error is re-shaped by kind, not by guessing from the status.
        response.extensions_mut().insert(self.kind);
        response
    }
}

/// Metadata key carrying the API's error code (`not_found`, `patch_refused`, …) on a gRPC
/// status.
pub const ERROR_CODE_KEY: &str = "cairn-error-code";

/// A gRPC status of `kind` carrying `code` in its metadata.
pub fn grpc_status(kind: ErrorKind, code: &str, message: &str) -> tonic::Status {
    let mut status = tonic::Status::new(kind.grpc_code(), message);
    if let Ok(value) = code.parse() {
        status.metadata_mut().insert(ERROR_CODE_KEY, value);
    }
    status
}

impl From<ApiError> for tonic::Status {
    fn from(error: ApiError) -> Self {
        grpc_status(error.kind, error.code, &error.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_keeps_its_meaning_on_both_transports() {
        use tonic::Code;
        let kinds = [
            (ErrorKind::BadRequest, Code::InvalidArgument),
            (ErrorKind::Unauthenticated, Code::Unauthenticated),
            (ErrorKind::Forbidden, Code::PermissionDenied),
            (ErrorKind::NotFound, Code::NotFound),
            (ErrorKind::MethodNotAllowed, Code::Unimplemented),
            (ErrorKind::Conflict, Code::FailedPrecondition),
            (ErrorKind::Gone, Code::FailedPrecondition),
            (ErrorKind::TooLarge, Code::ResourceExhausted),
            (ErrorKind::UnsupportedMediaType, Code::InvalidArgument),
            (ErrorKind::Unprocessable, Code::FailedPrecondition),
            (ErrorKind::RateLimited, Code::ResourceExhausted),
            (ErrorKind::Internal, Code::Internal),
            (ErrorKind::Unimplemented, Code::Unimplemented),
            (ErrorKind::Unavailable, Code::Unavailable),
            (ErrorKind::DeadlineExceeded, Code::DeadlineExceeded),
        ];
        for (kind, code) in kinds {
            assert_eq!(kind.grpc_code(), code, "{kind:?}");
            // A response this registry shaped reads back as the same kind.
            assert_eq!(ErrorKind::of_foreign_status(kind.http_status()), kind, "{kind:?}");
        }
    }

    #[test]
    fn the_error_code_travels_in_grpc_metadata() {
        let status: tonic::Status = ApiError::not_found("skill 'x' does not exist").into();
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert_eq!(status.message(), "skill 'x' does not exist");
        assert_eq!(status.metadata().get(ERROR_CODE_KEY).unwrap(), "not_found");
    }
}
