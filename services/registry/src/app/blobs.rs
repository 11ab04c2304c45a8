//! Blob reads for every transport: which blobs a caller may read (only those referenced
//! by a version of their organisation), and many blobs read as one stream so a cold sync
//! is not one round trip per file.

use std::collections::HashSet;
use std::sync::Arc;

use bytes::Bytes;
use cairn_skill::Sha256Hash;
use cairn_store::StoreError;
use cairn_store::blob::BlobStore;
use futures::{Stream, StreamExt};

use super::catalog::{CatalogError, read_blob};
use crate::Services;

/// Most blobs one batch may ask for.
pub const MAX_BATCH: usize = 1000;
/// Blobs read from the store at once while streaming a batch.
const READ_AHEAD: usize = 8;

/// Why a blob request failed.
#[derive(Debug, thiserror::Error)]
pub enum BlobsError {
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// A blob does not exist (or not for this organisation).
    #[error("{0}")]
    NotFound(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Parses a blob id.
pub fn parse_id(raw: &str) -> Result<Sha256Hash, BlobsError> {
    Sha256Hash::parse_hex(raw).map_err(|_| {
        BlobsError::Invalid(format!(
            "'{raw}' is not a blob id: use the 64-character lowercase hex sha256 from a manifest"
        ))
    })
}

/// The id of one blob the caller's organisation may read.
pub async fn visible(services: &Services, org_id: i64, raw: &str) -> Result<String, BlobsError> {
    let hex = parse_id(raw)?.to_hex();
    let found = services
        .store
        .blobs_visible_to_org(org_id, std::slice::from_ref(&hex))
        .await?;
    if found.is_empty() {
        return Err(BlobsError::NotFound(format!("blob {hex} does not exist")));
    }
    Ok(hex)
}

/// Checks a batch up front: 1 to [`MAX_BATCH`] valid ids, every one readable by the
/// organisation (else nothing is sent and the error lists the missing ones). Returns the
/// ids without duplicates, in request order.
pub async fn visible_batch(services: &Services, org_id: i64, raw_ids: &[String]) -> Result<Vec<String>, BlobsError> {
    if raw_ids.is_empty() {
        return Err(BlobsError::Invalid(
            "sha256 is empty: list at least one blob id".to_owned(),
        ));
    }
    if raw_ids.len() > MAX_BATCH {
        return Err(BlobsError::Invalid(format!(
            "{} blob ids requested; at most {MAX_BATCH} per request: split the list",
            raw_ids.len()
        )));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::new();
    for raw in raw_ids {
        let hex = parse_id(raw)?.to_hex();
        if seen.insert(hex.clone()) {
            ids.push(hex);
        }
    }
    let found: HashSet<String> = services
        .store
        .blobs_visible_to_org(org_id, &ids)
        .await?
        .into_iter()
        .map(|(sha, _)| sha)
        .collect();
    let missing: Vec<&str> = ids
        .iter()
        .filter(|id| !found.contains(*id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(10).copied().collect();
        return Err(BlobsError::NotFound(format!(
            "{} requested blob(s) do not exist: {}{}",
            missing.len(),
            shown.join(", "),
            if missing.len() > shown.len() { ", …" } else { "" }
        )));
    }
    Ok(ids)
}

/// The blobs' bytes in order, a few read ahead.
pub fn read_all(
    blobs: Arc<dyn BlobStore>,
    ids: Vec<String>,
) -> impl Stream<Item = Result<(String, Bytes), CatalogError>> + Send + 'static {
    futures::stream::iter(ids)
        .map(move |hex| {
            let blobs = blobs.clone();
            async move {
                let bytes = read_blob(blobs.as_ref(), &hex).await?;
                Ok((hex, bytes))
            }
        })
        .buffered(READ_AHEAD)
}
