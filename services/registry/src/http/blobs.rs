//! Blob downloads: one by id, or many in one streamed response so a cold sync is not one
//! round trip per file. Only blobs referenced by the caller's organisation are served.

use std::collections::HashSet;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use bytes::Bytes;
use cairn_skill::Sha256Hash;
use futures::StreamExt;
use serde::Deserialize;

use super::IMMUTABLE;
use super::error::ApiError;
use super::extract::ApiPath;
use super::skills::{if_none_match, not_modified};
use crate::AppState;
use crate::app::catalog::read_blob;
use crate::auth::Principal;

/// Most blobs one batch request may ask for.
pub const MAX_BATCH: usize = 1000;
/// Blobs read from the store at once while streaming a batch.
const BATCH_READ_AHEAD: usize = 8;

fn parse_id(raw: &str) -> Result<Sha256Hash, ApiError> {
    Sha256Hash::parse_hex(raw).map_err(|_| {
        ApiError::bad_request(format!(
            "'{raw}' is not a blob id: use the 64-character lowercase hex sha256 from a manifest"
        ))
    })
}

/// `GET /v1/blobs/{sha256}`: immutable, cacheable forever.
pub async fn get_blob(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(sha256): ApiPath<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = parse_id(&sha256)?;
    let hex = id.to_hex();
    let visible = state
        .store
        .blobs_visible_to_org(principal.org_id, std::slice::from_ref(&hex))
        .await?;
    if visible.is_empty() {
        return Err(ApiError::not_found(format!("blob {hex} does not exist")));
    }
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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// Blob ids (hex sha256), at most [`MAX_BATCH`]; duplicates are sent once.
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
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!(
                    "the request body is over {} bytes: ask for fewer blobs per request",
                    super::MAX_BODY_BYTES
                ),
            );
        }
        ApiError::bad_request(format!(
            "the body must be JSON like {{\"sha256\": [\"<hex>\", ...]}}: {}",
            e.body_text()
        ))
    })?;
    if request.sha256.is_empty() {
        return Err(ApiError::bad_request("sha256 is empty: list at least one blob id"));
    }
    if request.sha256.len() > MAX_BATCH {
        return Err(ApiError::bad_request(format!(
            "{} blob ids requested; at most {MAX_BATCH} per request: split the list",
            request.sha256.len()
        )));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::new();
    for raw in &request.sha256 {
        let hex = parse_id(raw)?.to_hex();
        if seen.insert(hex.clone()) {
            ids.push(hex);
        }
    }
    let visible: HashSet<String> = state
        .store
        .blobs_visible_to_org(principal.org_id, &ids)
        .await?
        .into_iter()
        .map(|(sha, _)| sha)
        .collect();
    let missing: Vec<&String> = ids.iter().filter(|id| !visible.contains(*id)).collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(10).map(|s| s.as_str()).collect();
        return Err(ApiError::not_found(format!(
            "{} requested blob(s) do not exist: {}{}",
            missing.len(),
            shown.join(", "),
            if missing.len() > shown.len() { ", …" } else { "" }
        )));
    }
    let blobs = state.blobs.clone();
    let entries = futures::stream::iter(ids)
        .map(move |hex| {
            let blobs = blobs.clone();
            async move {
                let bytes = read_blob(blobs.as_ref(), &hex).await.map_err(|e| {
                    tracing::error!(error = %e, "streaming a blob batch failed");
                    std::io::Error::other(e.to_string())
                })?;
                Ok::<Bytes, std::io::Error>(tar_entry(&hex, &bytes))
            }
        })
        .buffered(BATCH_READ_AHEAD)
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
