//! Every domain error of the application layer, the store and authentication, mapped
//! once to the API's error: REST, gRPC and the compatibility APIs all answer a failure
//! through these conversions, so one failure reads the same on every transport.

use cairn_store::StoreError;
use cairn_store::blob::BlobError;

use super::{ApiError, ErrorKind};
use crate::app::accounts::AccountError;
use crate::app::audit::AuditError;
use crate::app::blobs::BlobsError;
use crate::app::catalog::CatalogError;
use crate::app::clawhub::publish::ClawhubError;
use crate::app::discovery::DiscoveryError;
use crate::app::index::IndexError;
use crate::app::live::WatchError;
use crate::app::patches::PatchError;
use crate::app::policy::PolicyError;
use crate::app::provenance::ProvenanceError;
use crate::app::publish::PublishError;
use crate::app::webhooks::WebhookError;
use crate::auth::AuthError;

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(what) => ApiError::not_found(format!("{what} does not exist")),
            StoreError::Conflict(message) => ApiError::new(ErrorKind::Conflict, "conflict", message),
            StoreError::Invalid(message) => ApiError::bad_request(message),
            e @ StoreError::Unavailable(_) => ApiError::unavailable("database", &e),
            StoreError::Signing(message) => {
                // The operator's problem, not the caller's: the request can be retried once
                // the registry's signing key or log is fixed. The detail is in the log.
                tracing::error!(%message, "the transparency log refused an entry");
                ApiError::new(
                    ErrorKind::Unavailable,
                    "signing_unavailable",
                    "the registry cannot record this change in its transparency log right now (its signing key or \
                     log needs its operator): nothing was changed; retry later and tell the registry's operator",
                )
            }
            other => ApiError::internal("database error", &other),
        }
    }
}

impl From<ProvenanceError> for ApiError {
    fn from(error: ProvenanceError) -> Self {
        match error {
            ProvenanceError::NotFound(message) => ApiError::not_found(message),
            ProvenanceError::OutOfRange(message) | ProvenanceError::Invalid(message) => ApiError::bad_request(message),
            ProvenanceError::Store(e) => e.into(),
            ProvenanceError::Catalog(e) => e.into(),
            ProvenanceError::NotSigning => ApiError::new(
                ErrorKind::Unavailable,
                "signing_unavailable",
                "this registry instance cannot sign a checkpoint right now (it does not hold the log's active key): \
                 retry in a moment, another instance may answer; tell the registry's operator if it persists",
            ),
            e @ ProvenanceError::Corrupt(_) => ApiError::internal("serving the transparency log", &e),
        }
    }
}

impl From<BlobError> for ApiError {
    fn from(error: BlobError) -> Self {
        if error.is_unavailable() {
            return ApiError::unavailable("blob store", &error);
        }
        ApiError::internal("blob store error", &error)
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Unavailable(e) if !e.is_unavailable() => ApiError::internal("checking a token", &e),
            AuthError::Unavailable(e) => {
                tracing::error!(error = %e, "token check failed");
                ApiError::new(
                    ErrorKind::Unavailable,
                    "unavailable",
                    AuthError::Unavailable(e).to_string(),
                )
            }
            e @ AuthError::NoLongerAllowed(_) => ApiError::new(ErrorKind::Forbidden, "forbidden", e.to_string()),
            other => ApiError::new(ErrorKind::Unauthenticated, "unauthorized", other.to_string()),
        }
    }
}

impl From<AccountError> for ApiError {
    fn from(error: AccountError) -> Self {
        match error {
            AccountError::Invalid(message) => ApiError::bad_request(message),
            AccountError::Forbidden(message) => ApiError::new(ErrorKind::Forbidden, "forbidden", message),
            AccountError::NotFound(what) => ApiError::not_found(format!("{what} does not exist")),
            AccountError::Conflict(message) => ApiError::new(ErrorKind::Conflict, "conflict", message),
            AccountError::Store(e) => e.into(),
            AccountError::Internal(e) => ApiError::internal("issuing a token", &e),
        }
    }
}

impl From<CatalogError> for ApiError {
    fn from(error: CatalogError) -> Self {
        match error {
            CatalogError::NotFound(message) => ApiError::not_found(message),
            CatalogError::Store(e) => e.into(),
            CatalogError::Blob(e) => e.into(),
            e @ CatalogError::ShuttingDown => ApiError::new(ErrorKind::Unavailable, "unavailable", e.to_string()),
            other => ApiError::internal("reading a version failed", &other),
        }
    }
}

impl From<PublishError> for ApiError {
    fn from(error: PublishError) -> Self {
        match error {
            PublishError::Blob(e) => e.into(),
            PublishError::Store(e) => e.into(),
            other => ApiError::internal("storing files", &other),
        }
    }
}

impl From<PatchError> for ApiError {
    fn from(error: PatchError) -> Self {
        match error {
            PatchError::Invalid(message) => ApiError::bad_request(message),
            PatchError::Refused(message) => ApiError::new(ErrorKind::Unprocessable, "patch_refused", message),
            PatchError::NotFound(message) => ApiError::not_found(message),
            PatchError::Forbidden(message) => ApiError::new(ErrorKind::Forbidden, "forbidden", message),
            PatchError::State(message) => ApiError::new(ErrorKind::Conflict, "conflict", message),
            PatchError::TooMany(message) => ApiError::new(ErrorKind::RateLimited, "rate_limited", message),
            PatchError::Store(e) => e.into(),
            PatchError::Catalog(e) => e.into(),
            PatchError::Publish(e) => e.into(),
        }
    }
}

impl From<IndexError> for ApiError {
    fn from(error: IndexError) -> Self {
        match error {
            e @ IndexError::CursorExpired { .. } => ApiError::new(ErrorKind::Gone, "cursor_expired", e.to_string()),
            IndexError::Store(e) => e.into(),
        }
    }
}

impl From<DiscoveryError> for ApiError {
    fn from(error: DiscoveryError) -> Self {
        match error {
            DiscoveryError::NotFound(message) => ApiError::not_found(message),
            DiscoveryError::Index(e) => e.into(),
            DiscoveryError::Catalog(e) => e.into(),
            DiscoveryError::Store(e) => e.into(),
        }
    }
}

impl From<WatchError> for ApiError {
    fn from(error: WatchError) -> Self {
        match error {
            e @ (WatchError::CursorExpired { .. } | WatchError::TooFarBehind { .. }) => {
                ApiError::new(ErrorKind::Gone, "cursor_expired", e.to_string())
            }
            e @ WatchError::TooManyWatches { .. } => {
                ApiError::new(ErrorKind::RateLimited, "rate_limited", e.to_string())
            }
            WatchError::Unauthorized(e) => e.into(),
            WatchError::Store(e) => e.into(),
        }
    }
}

impl From<WebhookError> for ApiError {
    fn from(error: WebhookError) -> Self {
        match error {
            WebhookError::Invalid(message) => ApiError::bad_request(message),
            address @ WebhookError::Address(_) => {
                ApiError::new(ErrorKind::Unprocessable, "address_not_allowed", address.to_string())
            }
            WebhookError::Store(e) => e.into(),
        }
    }
}

impl From<BlobsError> for ApiError {
    fn from(error: BlobsError) -> Self {
        match error {
            BlobsError::Invalid(message) => ApiError::bad_request(message),
            BlobsError::NotFound(message) => ApiError::not_found(message),
            BlobsError::Store(e) => e.into(),
        }
    }
}

impl From<PolicyError> for ApiError {
    fn from(error: PolicyError) -> Self {
        match error {
            e @ PolicyError::NotMember(_) => ApiError::not_found(e.to_string()),
            PolicyError::Store(e) => e.into(),
            e @ PolicyError::Encode(_) => ApiError::internal("saving a policy", &e),
        }
    }
}

impl From<AuditError> for ApiError {
    fn from(error: AuditError) -> Self {
        match error {
            AuditError::Invalid(message) => ApiError::bad_request(message),
            AuditError::Store(e) => e.into(),
        }
    }
}

impl From<ClawhubError> for ApiError {
    fn from(error: ClawhubError) -> Self {
        match error {
            ClawhubError::Invalid(message) => ApiError::bad_request(message),
            ClawhubError::Catalog(e) => e.into(),
            ClawhubError::Patch(e) => e.into(),
            ClawhubError::Blob(e) => e.into(),
            ClawhubError::Store(e) => e.into(),
        }
    }
}
