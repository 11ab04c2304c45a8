//! What other skill clients read (issue 9): the latest approved, non-yanked version of
//! every skill, as the discovery index Hermes Agent and the `skills` CLI install from
//! (`/.well-known/skills/`) and as agentskills discovery 0.2.0 archives
//! (`/.well-known/agent-skills/`). Archives are deterministic — entries sorted, fixed
//! timestamps and modes, `SKILL.md` at the root — so the digest published for a version
//! is the same on every replica and after every restart; it is computed once and kept on
//! the version.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use cairn_store::{FileEntry, IndexEntry, RevisionSelector};
use futures::{StreamExt, TryStreamExt};
use sha2::{Digest, Sha256};

use super::catalog::{self, CatalogError};
use super::index::{self, FullIndex, IndexError};
use crate::Services;

/// Archives computed at once when an index needs digests it does not have yet.
const ARCHIVE_CONCURRENCY: usize = 4;

/// Why a discovery read failed.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// The skill, version or file is not served (absent, yanked, or no such file).
    #[error("{0}")]
    NotFound(String),
    /// Reading the index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Reading a version failed.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] cairn_store::StoreError),
}

/// The organisation's current index (latest non-yanked version of each skill).
pub async fn current(services: &Services, org_id: i64) -> Result<Arc<FullIndex>, DiscoveryError> {
    let cursor = index::current_cursor(services, org_id, None).await?;
    Ok(index::full(services, org_id, cursor).await?)
}

/// The served entry of `name`, or a message saying where to look.
pub fn entry(index: &FullIndex, name: &str) -> Result<Arc<IndexEntry>, DiscoveryError> {
    index.entries.get(name).cloned().ok_or_else(|| {
        DiscoveryError::NotFound(format!(
            "no skill '{name}' is served here: see index.json for the skills this registry offers"
        ))
    })
}

/// One file of the latest version of `name`, with its bytes.
pub async fn file(
    services: &Services,
    org_id: i64,
    name: &str,
    path: &str,
) -> Result<(FileEntry, Bytes), DiscoveryError> {
    let index = current(services, org_id).await?;
    let entry = entry(&index, name)?;
    let file = entry.files.iter().find(|f| f.path == path).cloned().ok_or_else(|| {
        DiscoveryError::NotFound(format!(
            "skill '{name}' has no file '{path}': its files are listed in index.json"
        ))
    })?;
    let bytes = catalog::read_blob(services.blobs.as_ref(), &file.sha256).await?;
    Ok((file, bytes))
}

/// The deterministic archive of `name` at `revision` (`None`: the served one). Only the
/// served (latest non-yanked) revision or another non-yanked one is given out.
pub async fn archive(
    services: &Services,
    org_id: i64,
    name: &str,
    revision: Option<i32>,
) -> Result<(i32, Vec<u8>), DiscoveryError> {
    let index = current(services, org_id).await?;
    let served = entry(&index, name)?;
    let revision = revision.unwrap_or(served.revision);
    let resolved = catalog::resolve(&services.store, org_id, name, RevisionSelector::Exact(revision))
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(_) => {
                DiscoveryError::NotFound(format!("skill '{name}' has no revision {revision}: see index.json"))
            }
            other => other.into(),
        })?;
    if resolved.version.yanked {
        return Err(DiscoveryError::NotFound(format!(
            "revision {revision} of '{name}' was withdrawn (yanked): see index.json for the current one"
        )));
    }
    let _permit = services.archive_permits.acquire().await.map_err(|_| {
        DiscoveryError::NotFound("the registry is shutting down: retry against another replica".to_owned())
    })?;
    let bytes = catalog::bundle_archive(&services.store, services.blobs.as_ref(), &resolved).await?;
    Ok((revision, bytes))
}

/// `sha256:<hex>` of the exact bytes.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The archive digest (`sha256:<hex>`) of every served skill, by name: kept on the
/// versions, computed (and kept) for those that have none yet.
pub async fn archive_digests(
    services: &Services,
    org_id: i64,
    index: &FullIndex,
) -> Result<BTreeMap<String, String>, DiscoveryError> {
    let wanted: Vec<(String, i32)> = index.entries.values().map(|e| (e.name.clone(), e.revision)).collect();
    let known = services.store.archive_digests(org_id, &wanted).await?;
    let mut digests = BTreeMap::new();
    let mut missing = Vec::new();
    for (name, revision, version_id, sha) in known {
        match sha {
            Some(sha) => {
                digests.insert(name, format!("sha256:{sha}"));
            }
            None => missing.push((name, revision, version_id)),
        }
    }
    let computed: Vec<(String, String)> = futures::stream::iter(missing)
        .map(|(name, revision, version_id)| async move {
            let (_, bytes) = archive(services, org_id, &name, Some(revision)).await?;
            let hex = hex::encode(Sha256::digest(&bytes));
            services.store.set_archive_sha256(version_id, &hex).await?;
            Ok::<_, DiscoveryError>((name, format!("sha256:{hex}")))
        })
        .buffer_unordered(ARCHIVE_CONCURRENCY)
        .try_collect()
        .await?;
    digests.extend(computed);
    Ok(digests)
}
