//! Blob downloads: one by id, or many in one streamed response so a cold sync is not one
//! round trip per file. Only blobs referenced by the caller's organisation are served.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use bytes::Bytes;
use futures::StreamExt;
use serde::Deserialize;

use crate::AppState;
use crate::app::blobs::{self};
use crate::app::catalog::read_blob;
use crate::auth::Principal;
use crate::error::parse::ApiPath;
use crate::error::{ApiError, ErrorKind};
use crate::serving::IMMUTABLE;
use crate::serving::{if_none_match, not_modified};

/// `GET /v1/blobs/{sha256}`: immutable, cacheable forever.
pub async fn get_blob(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(sha256): ApiPath<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let hex = blobs::visible(&state, principal.org_id, &sha256).await?;
    let etag = format!("\"{hex}\"");
    if if_none_match(&headers, &etag) {
        return Ok(not_modified(&etag, IMMUTABLE));
    }
    let bytes = read_blob(state.blobs.as_ref(), &hex).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
        ],
        bytes,
    )
        .into_response())
}

/// Body of `POST /v1/blobs/batch`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// Blob ids (hex sha256), at most `app::blobs::MAX_BATCH`; duplicates are sent once.
    sha256: Vec<String>,
}

/// `POST /v1/blobs/batch`: `{"sha256": [...]}` → an uncompressed tar stream (`application/x-tar`)
/// with one regular-file entry per requested blob, named by its hex id, in request order.
/// Unknown ids fail the whole request up front (404 listing them), before anything streams.
pub async fn batch(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    body: Result<Json<BatchRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(request) = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::new(
                ErrorKind::TooLarge,
                "payload_too_large",
                format!(
                    "the request body is over {} bytes: ask for fewer blobs per request",
                    crate::access::MAX_BODY_BYTES
                ),
            );
        }
        ApiError::bad_request(format!(
            "the body must be JSON like {{\"sha256\": [\"<hex>\", ...]}}: {}",
            e.body_text()
        ))
    })?;
    let ids = blobs::visible_batch(&state, principal.org_id, &request.sha256).await?;
    let mut reads = Box::pin(blobs::read_all(state.blobs.clone(), ids));
    // The first blob is read before the answer starts: a blob store that is down then
    // gets a proper error (503, retryable) instead of a stream cut off at once.
    let first = match reads.next().await {
        Some(Err(e)) => return Err(e.into()),
        first => first,
    };
    let entries = futures::stream::iter(first)
        .chain(reads)
        .map(|read| match read {
            Ok((hex, bytes)) => Ok(tar_entry(&hex, &bytes)),
            Err(e) => {
                tracing::error!(error = %e, "streaming a blob batch failed");
                Err(std::io::Error::other(e.to_string()))
            }
        })
        .chain(futures::stream::once(async { Ok(Bytes::from_static(&[0u8; 1024])) }));
    Ok((
        [(header::CONTENT_TYPE, "application/x-tar")],
        Body::from_stream(entries),
    )
        .into_response())
}

/// One tar entry: header, content, padding to the 512-byte block.
fn tar_entry(name: &str, content: &[u8]) -> Bytes {
    let mut header = tar::Header::new_ustar();
    // Names are 64 hex characters: always fit the ustar name field.
    let _ = header.set_path(name);
    header.set_size(content.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_cksum();
    let padding = (512 - content.len() % 512) % 512;
    let mut out = Vec::with_capacity(512 + content.len() + padding);
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(content);
    out.resize(out.len() + padding, 0);
    Bytes::from(out)
}
