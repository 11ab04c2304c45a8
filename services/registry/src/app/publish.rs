//! Publishing bundles as new versions: blobs first, then one database transaction.
//!
//! Blobs are content-addressed and written before the commit that references them, so
//! a crash in between leaves at most an unreferenced blob, never a version with missing
//! bytes.

use std::collections::HashSet;

use bytes::Bytes;
use cairn_skill::{Bundle, Category, Sha256Hash, SkillName};
use cairn_store::blob::{BlobError, BlobStore};
use cairn_store::{Actor, CategoryUpdate, NewVersion, PublishOutcome, Store, StoreError, VersionScan, VersionSource};

/// A validated bundle ready to become a version of `name`.
#[derive(Debug)]
pub struct Candidate {
    /// The skill's name.
    pub name: SkillName,
    /// The category for a new skill (an existing skill keeps its own).
    pub category: Option<Category>,
    /// The bundle.
    pub bundle: Bundle,
    /// The scan's verdict, stated in the version's attestation.
    pub verdict: Option<cairn_scanner::Verdict>,
}

/// Why publishing failed; nothing was committed to the database.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// Uploading a blob failed.
    #[error(transparent)]
    Blob(#[from] BlobError),
    /// The database transaction failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The task committing a batch ended abnormally (panicked or was cancelled).
    #[error("publishing was interrupted: {0}")]
    Interrupted(String),
}

/// Publishes `candidates` (one transaction for all of them) and returns one outcome per
/// candidate, in order.
pub async fn publish(
    store: &Store,
    blobs: &dyn BlobStore,
    org_id: i64,
    candidates: &[Candidate],
    source: VersionSource,
    published_by: Option<i64>,
    actor: &Actor,
) -> Result<Vec<PublishOutcome>, PublishError> {
    upload_missing_blobs(store, blobs, candidates.iter().map(|c| &c.bundle)).await?;
    commit(store, org_id, candidates, source, published_by, actor).await
}

/// A category as stored with a patch or a quarantined import: checked when it was
/// stored, so one that no longer parses is left unset rather than refused.
pub(crate) fn stored_category(raw: Option<&str>) -> Option<Category> {
    raw.and_then(|c| Category::parse(c).ok())
}

/// The database half of [`publish`]: every blob of `candidates` must already be stored.
pub async fn commit(
    store: &Store,
    org_id: i64,
    candidates: &[Candidate],
    source: VersionSource,
    published_by: Option<i64>,
    actor: &Actor,
) -> Result<Vec<PublishOutcome>, PublishError> {
    let versions: Vec<NewVersion<'_>> = candidates
        .iter()
        .map(|c| NewVersion {
            name: &c.name,
            category: CategoryUpdate::IfNew(c.category.as_ref()),
            bundle: &c.bundle,
            source,
            published_by,
            scan: c.verdict.map(|verdict| VersionScan {
                verdict: verdict.as_str(),
                rules: cairn_scanner::rules_version(),
            }),
        })
        .collect();
    Ok(store.publish_versions(org_id, &versions, actor).await?)
}

/// The blob half of [`publish`]: uploads every file of `bundles` whose blob the database
/// does not record yet.
pub async fn upload_missing_blobs<'a>(
    store: &Store,
    blobs: &dyn BlobStore,
    bundles: impl Iterator<Item = &'a Bundle>,
) -> Result<(), PublishError> {
    let mut seen = HashSet::new();
    let mut pending = Vec::new();
    for bundle in bundles {
        for entry in bundle.manifest() {
            if seen.insert(entry.sha256) {
                pending.push((entry.sha256, bundle, entry.path));
            }
        }
    }
    let hexes: Vec<String> = pending.iter().map(|(id, _, _)| id.to_hex()).collect();
    // Marks reused blobs as in use (garbage collection keeps them) and learns which
    // are stored already.
    let known: HashSet<String> = store.touch_blobs(&hexes).await?.into_iter().collect();
    let missing: Vec<(Sha256Hash, Bytes)> = pending
        .into_iter()
        .filter(|(id, _, _)| !known.contains(&id.to_hex()))
        .map(|(id, bundle, path)| {
            let bytes = bundle
                .get(&path)
                .map(|f| Bytes::copy_from_slice(&f.bytes))
                .unwrap_or_default();
            (id, bytes)
        })
        .collect();
    blobs.put_many(missing).await?;
    Ok(())
}

/// A bundle's manifest as stored with a patch's candidate or a quarantined import
/// (`[{path, sha256, size, executable}]`; the blobs are in the blob store).
pub(crate) fn manifest_json(bundle: &Bundle) -> serde_json::Value {
    serde_json::Value::Array(
        bundle
            .manifest()
            .into_iter()
            .map(|e| {
                serde_json::json!({
                    "path": e.path.as_str(), "sha256": e.sha256.to_hex(), "size": e.size, "executable": e.executable,
                })
            })
            .collect(),
    )
}

/// Reads a bundle back from a stored manifest and its blobs. Its contents were checked
/// when it was stored (a description already over the limit may be kept, so the
/// description limit is not applied again here).
pub(crate) async fn bundle_from_manifest(
    services: &crate::Services,
    manifest: &serde_json::Value,
) -> Result<Bundle, super::catalog::CatalogError> {
    use super::catalog::{self, CatalogError};
    let entries = manifest
        .as_array()
        .ok_or_else(|| CatalogError::Corrupt("a stored manifest is not a list".to_owned()))?;
    let mut files = std::collections::BTreeMap::new();
    for entry in entries {
        let field = |k: &str| entry.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let bytes = catalog::read_blob(services.blobs.as_ref(), &field("sha256")).await?;
        let path = cairn_skill::RelPath::parse(&field("path")).map_err(|e| CatalogError::Corrupt(e.to_string()))?;
        let executable = entry
            .get("executable")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        files.insert(path, cairn_skill::BundleFile::new(bytes.to_vec(), executable));
    }
    let checked = services.limits.with_description_chars(usize::MAX);
    Bundle::from_files(files, &checked).map_err(|e| CatalogError::Corrupt(e.to_string()))
}
