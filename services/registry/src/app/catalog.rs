//! Reading published skills: resolving `name@rev|latest`, single files and whole bundles.

use bytes::Bytes;
use cairn_skill::Sha256Hash;
use cairn_store::blob::{BlobError, BlobStore};
use cairn_store::{FileEntry, RevisionSelector, SkillSummary, Store, StoreError, VersionInfo};
use futures::{StreamExt, TryStreamExt};

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// Skill, version or file does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The metadata store failed.
    #[error(transparent)]
    Store(StoreError),
    /// The blob store failed.
    #[error(transparent)]
    Blob(#[from] BlobError),
    /// The database references a blob the blob store does not have (operator problem).
    #[error("blob {0} is referenced by a version but missing from the blob store")]
    MissingBlob(String),
    /// Stored content no longer forms a valid bundle (should not happen).
    #[error("stored version cannot be packed: {0}")]
    Corrupt(String),
    /// The process is shutting down and builds no more archives.
    #[error("the registry is shutting down: retry in a moment")]
    ShuttingDown,
}

impl From<StoreError> for CatalogError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => CatalogError::NotFound(format!("{what} does not exist")),
            other => CatalogError::Store(other),
        }
    }
}

/// A resolved version of a skill.
#[derive(Debug)]
pub struct ResolvedVersion {
    /// The skill.
    pub skill: SkillSummary,
    /// The version.
    pub version: VersionInfo,
}

/// Finds a skill by name in an organisation; the message says where to look instead.
pub async fn find_skill(store: &Store, org_id: i64, name: &str) -> Result<SkillSummary, CatalogError> {
    store.skill(org_id, name).await.map_err(|e| match e {
        StoreError::NotFound(_) => CatalogError::NotFound(format!(
            "skill '{name}' does not exist: check the name against the list of skills"
        )),
        other => other.into(),
    })
}

/// Finds a skill's version; the messages name what was asked for.
pub async fn resolve(
    store: &Store,
    org_id: i64,
    name: &str,
    selector: RevisionSelector,
) -> Result<ResolvedVersion, CatalogError> {
    let skill = find_skill(store, org_id, name).await?;
    let version = store
        .version(skill.id, selector)
        .await
        .map_err(|e| match (e, selector) {
            (StoreError::NotFound(_), RevisionSelector::Exact(rev)) => CatalogError::NotFound(format!(
                "skill '{name}' has no revision {rev}: pick one from its list of versions"
            )),
            (StoreError::NotFound(_), RevisionSelector::Latest) => {
                CatalogError::NotFound(format!("skill '{name}' has no version that is not yanked"))
            }
            (other, _) => other.into(),
        })?;
    Ok(ResolvedVersion { skill, version })
}

/// A skill's version with its manifest.
pub async fn version_with_files(
    store: &Store,
    org_id: i64,
    name: &str,
    selector: RevisionSelector,
) -> Result<(ResolvedVersion, Vec<FileEntry>), CatalogError> {
    let resolved = resolve(store, org_id, name, selector).await?;
    let files = store.version_files(resolved.version.id).await?;
    Ok((resolved, files))
}

/// Reads one blob that the database says exists.
pub async fn read_blob(blobs: &dyn BlobStore, sha256: &str) -> Result<Bytes, CatalogError> {
    let id = Sha256Hash::parse_hex(sha256).map_err(|_| CatalogError::MissingBlob(sha256.to_owned()))?;
    blobs
        .get(&id)
        .await?
        .ok_or_else(|| CatalogError::MissingBlob(sha256.to_owned()))
}

/// Finds one file of a version in its manifest (the bytes are read separately, so a
/// conditional request that matches costs no blob read).
pub async fn find_file(store: &Store, resolved: &ResolvedVersion, path: &str) -> Result<FileEntry, CatalogError> {
    let files = store.version_files(resolved.version.id).await?;
    let entry = files.into_iter().find(|f| f.path == path).ok_or_else(|| {
        CatalogError::NotFound(format!(
            "skill '{}' revision {} has no file '{path}': pick one from the version's manifest",
            resolved.skill.name, resolved.version.revision
        ))
    })?;
    Ok(entry)
}

/// Builds the deterministic tar.gz of a version (same bytes for the same version) from its
/// manifest and blobs, without re-validating: published versions stay downloadable even if
/// write-time rules tighten later.
pub async fn bundle_archive(
    store: &Store,
    blobs: &dyn BlobStore,
    resolved: &ResolvedVersion,
) -> Result<Vec<u8>, CatalogError> {
    let contents = read_files(store, blobs, resolved).await?;
    let entries = contents
        .iter()
        .map(|(entry, bytes)| (entry.path.as_str(), bytes.as_ref(), entry.executable));
    cairn_skill::archive::pack_entries(entries, Vec::new()).map_err(|e| CatalogError::Corrupt(e.to_string()))
}

/// Every file of a version with its bytes, in manifest order (blobs read a few at a time).
pub async fn read_files(
    store: &Store,
    blobs: &dyn BlobStore,
    resolved: &ResolvedVersion,
) -> Result<Vec<(FileEntry, Bytes)>, CatalogError> {
    let files = store.version_files(resolved.version.id).await?;
    futures::stream::iter(files)
        .map(|f| async move {
            let bytes = read_blob(blobs, &f.sha256).await?;
            Ok::<_, CatalogError>((f, bytes))
        })
        .buffered(8)
        .try_collect()
        .await
}

/// Every file of a version as a bundle's file map (path → bytes and mode), for diffs and
/// the pipeline; paths are parsed again but no write-time limit is applied.
pub async fn file_map(
    store: &Store,
    blobs: &dyn BlobStore,
    resolved: &ResolvedVersion,
) -> Result<std::collections::BTreeMap<cairn_skill::path::RelPath, cairn_skill::BundleFile>, CatalogError> {
    let mut files = std::collections::BTreeMap::new();
    for (entry, bytes) in read_files(store, blobs, resolved).await? {
        let path = cairn_skill::path::RelPath::parse(&entry.path).map_err(|e| CatalogError::Corrupt(e.to_string()))?;
        files.insert(path, cairn_skill::BundleFile::new(bytes.to_vec(), entry.executable));
    }
    Ok(files)
}

/// Yanks or unyanks one revision of a skill (reviewers), and tells the index cache when
/// the index changed.
pub async fn set_yanked(
    services: &crate::Services,
    org_id: i64,
    name: &cairn_skill::SkillName,
    revision: i32,
    yanked: bool,
    actor: &cairn_store::Actor,
) -> Result<cairn_store::YankOutcome, CatalogError> {
    let outcome = services.store.set_yanked(org_id, name, revision, yanked, actor).await?;
    if outcome.changed {
        services.index_cache.changed(org_id);
    }
    Ok(outcome)
}
