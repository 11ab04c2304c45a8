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
use futures::StreamExt;
use sha2::{Digest, Sha256};

use super::archives;
use super::catalog::{self, CatalogError, ResolvedVersion};
use super::index::{self, FullIndex, IndexError};
use crate::Services;

/// Archives computed at once when an index needs digests it does not have yet.
const ARCHIVE_CONCURRENCY: usize = 4;

/// The discovery indexes as last encoded, per organisation and kind, with the index
/// cursor they show: a request at an unchanged cursor is answered from here without
/// touching the database (beyond the cursor check) or encoding again.
#[derive(Debug, Default)]
pub struct EncodedIndexes(std::sync::Mutex<std::collections::HashMap<IndexKey, (i64, Bytes)>>);

/// An organisation and an index kind (`skills`, `agent-skills`).
type IndexKey = (i64, &'static str);

impl EncodedIndexes {
    /// The `kind` index of the organisation encoded at `cursor`, if kept.
    pub fn get(&self, org_id: i64, kind: &'static str, cursor: i64) -> Option<Bytes> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(&(org_id, kind))
            .filter(|(at, _)| *at == cursor)
            .map(|(_, bytes)| bytes.clone())
    }

    /// Forgets every kept encoding (an archive digest changed without an index change).
    pub fn forget_all(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Keeps the encoding of the `kind` index at `cursor` (never replacing a newer one).
    pub fn put(&self, org_id: i64, kind: &'static str, cursor: i64, bytes: Bytes) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if kept.get(&(org_id, kind)).is_none_or(|(at, _)| *at <= cursor) {
            kept.insert((org_id, kind), (cursor, bytes));
        }
    }
}

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
    Ok(index::current(services, org_id).await?)
}

/// The served entry of `name`, or a message saying where to look.
pub fn entry(index: &FullIndex, name: &str) -> Result<Arc<IndexEntry>, DiscoveryError> {
    index.entries.get(name).cloned().ok_or_else(|| {
        DiscoveryError::NotFound(format!(
            "no skill '{name}' is served here: see index.json for the skills this registry offers"
        ))
    })
}

/// One file of the latest version of `name` (its manifest entry: the bytes are the blob
/// it names, read only when needed).
pub async fn file_entry(services: &Services, org_id: i64, name: &str, path: &str) -> Result<FileEntry, DiscoveryError> {
    let index = current(services, org_id).await?;
    let entry = entry(&index, name)?;
    entry.files.iter().find(|f| f.path == path).cloned().ok_or_else(|| {
        DiscoveryError::NotFound(format!(
            "skill '{name}' has no file '{path}': its files are listed in index.json"
        ))
    })
}

/// A served archive: the revision, its SHA-256 (hex) and its bytes.
#[derive(Debug)]
pub struct Archive {
    /// The revision it packs.
    pub revision: i32,
    /// SHA-256 of the bytes (hex), as the agentskills index publishes it.
    pub sha256: String,
    /// The `.tar.gz`.
    pub bytes: Bytes,
}

/// Resolves the revision of `name` discovery clients may download: the served one
/// (`None`), or another one that is not yanked.
async fn servable(
    services: &Services,
    org_id: i64,
    name: &str,
    revision: Option<i32>,
) -> Result<ResolvedVersion, DiscoveryError> {
    let revision = match revision {
        Some(revision) => revision,
        None => entry(&*current(services, org_id).await?, name)?.revision,
    };
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
    Ok(resolved)
}

/// The SHA-256 (hex) of the archive of `name` at `revision` (`None`: the served one), if
/// it was built before: enough to answer a conditional request without reading it.
pub async fn archive_sha256(
    services: &Services,
    org_id: i64,
    name: &str,
    revision: Option<i32>,
) -> Result<(i32, Option<String>), DiscoveryError> {
    let resolved = servable(services, org_id, name, revision).await?;
    let sha = services.store.archive_sha256(resolved.version.id).await?;
    Ok((resolved.version.revision, sha))
}

/// The archive of `name` at `revision` (`None`: the served one).
pub async fn archive(
    services: &Services,
    org_id: i64,
    name: &str,
    revision: Option<i32>,
) -> Result<Archive, DiscoveryError> {
    let resolved = servable(services, org_id, name, revision).await?;
    let (sha256, bytes) = archives::stored(services, &resolved).await?;
    Ok(Archive {
        revision: resolved.version.revision,
        sha256,
        bytes,
    })
}

/// `sha256:<hex>` of the exact bytes.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// One cold index at a time builds archives (per process): concurrent first requests
/// wait for it instead of building the same archives again.
static BUILDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The archive digest (`sha256:<hex>`) of every served skill, by name: recorded on the
/// versions, built (and recorded) for those without one. A skill whose archive cannot be
/// built is left out (and logged) rather than failing the whole index.
pub async fn archive_digests(
    services: &Services,
    org_id: i64,
    index: &FullIndex,
) -> Result<BTreeMap<String, String>, DiscoveryError> {
    let wanted: Vec<(String, i32)> = index.entries.values().map(|e| (e.name.clone(), e.revision)).collect();
    let mut known = services.store.archive_digests(org_id, &wanted).await?;
    if known.iter().any(|(_, _, _, sha)| sha.is_none()) {
        let _building = BUILDING.lock().await;
        // Another request may have built them while this one waited.
        known = services.store.archive_digests(org_id, &wanted).await?;
        let missing: Vec<(String, i32)> = known
            .iter()
            .filter(|k| k.3.is_none())
            .map(|k| (k.0.clone(), k.1))
            .collect();
        let built: Vec<(String, Option<String>)> = futures::stream::iter(missing)
            .map(|(name, revision)| async move {
                let built = match catalog::resolve(&services.store, org_id, &name, RevisionSelector::Exact(revision)).await {
                    Ok(resolved) => archives::stored(services, &resolved).await.map(|(hex, _)| hex),
                    Err(e) => Err(e),
                };
                match built {
                    Ok(hex) => (name, Some(hex)),
                    Err(error) => {
                        tracing::warn!(%error, skill = %name, revision, "cannot build an archive; leaving it out of the agent-skills index");
                        (name, None)
                    }
                }
            })
            .buffer_unordered(ARCHIVE_CONCURRENCY)
            .collect()
            .await;
        for (name, hex) in built {
            if let Some(entry) = known.iter_mut().find(|k| k.0 == name) {
                entry.3 = hex;
            }
        }
    }
    Ok(known
        .into_iter()
        .filter_map(|(name, _, _, sha)| Some((name, format!("sha256:{}", sha?))))
        .collect())
}
